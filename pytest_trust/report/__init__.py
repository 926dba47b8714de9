"""Reports of a run: the terminal summary and the JSON report (DESIGN section 8)."""
