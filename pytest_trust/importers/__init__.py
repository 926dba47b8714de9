"""Importers: other tools' recorded runs turned into cassettes in the recording layer's format (docs/decisions.md)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from . import decodingtrust


def import_hint(model: str, benchmarks: Iterable[str], cassettes: Path | None = None) -> str | None:
    """The command that imports a recorded run of ``model`` covering one of ``benchmarks``, if any
    importer knows one (so a run with no cassettes can say how to get them)."""
    importable = {benchmark.name for benchmark in decodingtrust.importable()}
    if decodingtrust.has_recordings(model) and any(name in importable for name in benchmarks):
        return f"DecodingTrust recorded this model; import its run with `{decodingtrust.import_command(model, cassettes)}`"
    return None
