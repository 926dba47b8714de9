"""Importers: other tools' recorded runs turned into cassettes of the section-5 format (DESIGN 9)."""
