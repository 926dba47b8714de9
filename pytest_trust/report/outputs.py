"""The report files a run writes at its end, all rendered from the run's one ``RunReport``."""

from __future__ import annotations

from pathlib import Path

from .file import dump, write_atomically
from .run_report import RunReport


def write(report: RunReport, paths: dict[str, Path], recordings: Path | None = None) -> None:
    """Each of ``paths`` ("json", "html", "markdown") written atomically; the HTML embeds the items'
    conversations when ``recordings`` (the model's cassette folder) holds them. ``OSError`` says which failed."""
    if "json" in paths:
        dump(paths["json"], report.to_dict())
    if "html" in paths:
        from . import html  # plotly loads only for a run that writes HTML
        from .transcripts import transcripts

        write_atomically(paths["html"], html.render(report, recordings and transcripts(report.entries, recordings)))
    if "markdown" in paths:
        from . import markdown

        write_atomically(paths["markdown"], markdown.render(report))
