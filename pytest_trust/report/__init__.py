"""Reports of a run: the terminal summary and the JSON report (docs/report-schema.md)."""
