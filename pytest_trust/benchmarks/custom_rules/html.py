"""The HTML report's section for a team's rules: a rule x attack category table of pass rates, the metrics with
their intervals, and each failed conversation (what was sent, what came back, why it failed)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...report.html_parts import escape, metric_table, table
from ..spec import ReportView
from .catalogue import CATEGORIES
from .items import NAME

SHOWN_FAILURES = 50  # failed conversations listed; the JSON report has every one


def section(report: ReportView) -> str | None:
    entries = [e for e in report.entries if e.get("benchmark") == NAME and "verdict" in e]
    if not entries:
        return None
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # (rule, category) -> [passed, n]
    for entry in entries:
        facts = entry.get("facts") or {}
        if facts.get("kind") == "attack":
            cell = cells[(facts["rule"], facts["category"])]
            cell[0] += bool(entry["verdict"].get("passed"))
            cell[1] += 1
    rules = list(dict.fromkeys(rule for rule, _ in cells))
    rows = [[f"<code>{escape(rule)}</code>", *(_cell(cells.get((rule, c))) for c in CATEGORIES)] for rule in rules]
    parts = [table(["rule", *CATEGORIES], rows, set(range(1, len(CATEGORIES) + 1)))] if rows else []
    keys = [k for k in report.metrics if k.startswith(f"{NAME}.")]
    parts.append(metric_table(report.metrics, keys))
    failed = [e for e in entries if not e["verdict"].get("passed")]
    if failed:
        parts.append(f"<h3>Failed conversations ({len(failed)})</h3>")
        parts += [_conversation(e) for e in failed[:SHOWN_FAILURES]]
    return "".join(parts)


def _cell(cell: list[int] | None) -> str:
    return "" if not cell else f"{cell[0]}/{cell[1]} ({cell[0] / cell[1]:.0%})"


def _conversation(entry: dict[str, Any]) -> str:
    facts = entry.get("facts") or {}
    turns = "".join(f"<div><b>user</b> {escape(text)}</div>" for text in facts.get("sent") or [])
    return (f'<details><summary><code>{escape(entry.get("id", ""))}</code> {escape(entry["verdict"].get("reason", ""))}'
            f"</summary>{turns}<div><b>assistant</b> {escape(facts.get('reply', ''))}</div></details>")
