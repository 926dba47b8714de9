"""Reports of a run: the terminal summary, the JSON report (docs/report-schema.md), the JUnit properties."""
