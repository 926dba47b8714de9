"""The report files a run writes at its end, all rendered from one JSON report's dict, as
``pytest-trust report`` renders a saved one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..report_file import dump, write_atomically


def write(report: dict[str, Any], paths: dict[str, Path], recordings: Path | None = None) -> None:
    """Each of ``paths`` ("json", "html", "markdown") written atomically; the HTML embeds the items'
    conversations when ``recordings`` (the model's cassette folder) holds them. ``OSError`` says which failed."""
    if "json" in paths:
        dump(paths["json"], report)
    if "html" in paths:
        from . import html  # plotly loads only for a run that writes HTML
        from .transcripts import transcripts

        write_atomically(paths["html"], html.render(report, recordings and transcripts(report["items"], recordings)))
    if "markdown" in paths:
        from . import markdown

        write_atomically(paths["markdown"], markdown.render(report))
