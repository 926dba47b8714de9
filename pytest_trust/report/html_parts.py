"""The parts of an HTML report page that every section draws with: escaped text, tables, a metric's row with
its interval bar, and Plotly figures (each a JSON spec the page draws once its one copy of plotly.js is unpacked:
``pytest_trust.report.plotly_bundle``). Shared by
the report's own sections and those a benchmark declares (``Benchmark.report_sections``)."""

from __future__ import annotations

import html
import json
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from ..results.metrics import Metric
from .formatting import fmt_interval, fmt_value, is_percent

METRIC_COLUMNS = ["metric", "value", "95% interval", "", "n"]
REASON_SHOWN = 160  # characters of a verdict reason in an item's one-line summary
PLOT_CONFIG = {"displaylogo": False, "responsive": True}


def escape(value: Any) -> str:
    """Any value as HTML text, safe inside an attribute too."""
    return html.escape(str(value), quote=True)


def figure(fig: go.Figure, height: int) -> str:
    """The figure as its data and layout only (no template, no script): the page draws every ``div.plot``."""
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10}, font={"size": 12})
    spec = json.loads(pio.to_json(fig, validate=False, remove_uids=True))
    spec["layout"].pop("template", None)  # plotly_white, once per page
    spec["config"] = PLOT_CONFIG
    text = json.dumps(spec, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
    return f'<div class="plot" style="height:{height}px"><script type="application/json">{text}</script></div>'


def table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def bar(metric: Metric | None) -> str:
    """A value and its interval drawn on a 0-1 scale (rates and scores only)."""
    if metric is None or not is_percent(metric) or metric.value is None:
        return ""
    value = min(max(metric.value, 0.0), 1.0)
    low = metric.low if metric.low is not None else value
    high = metric.high if metric.high is not None else value
    low, high = min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0)
    return (f'<div class="bar" title="{escape(fmt_interval(metric))}"><span style="left:{low * 100:.1f}%;'
            f'width:{max(high - low, 0.005) * 100:.1f}%"></span><i style="left:{value * 100:.1f}%"></i></div>')


def metric_row(key: str, metric: Metric) -> list[str]:
    note = metric.partial or ""
    shown = note if len(note) <= REASON_SHOWN else note[:REASON_SHOWN - 3] + "..."
    partial = f'<div class="partial" title="{escape(note)}">partial: {escape(shown)}</div>' if note else ""
    return [f"<code>{escape(key)}</code>{partial}", escape(fmt_value(metric)), escape(fmt_interval(metric)), bar(metric),
            escape(metric.n)]


def error_bars(metrics: list[Metric | None]) -> dict[str, Any]:
    plus = [(m.high - m.value) if m is not None and m.high is not None else 0 for m in metrics]
    minus = [(m.value - m.low) if m is not None and m.low is not None else 0 for m in metrics]
    return {"type": "data", "array": plus, "arrayminus": minus, "visible": True}


def metric_table(metrics: dict[str, Metric], keys: list[str]) -> str:
    """The metrics of ``keys``: value, interval (with its bar) and n, one row each."""
    return table(METRIC_COLUMNS, [metric_row(key, metrics[key]) for key in keys], {1, 4})


def scorer_text(entry: dict[str, Any]) -> str:
    """A scorer of the run (the report's ``run.scorers``): ``name version``, and its benchmark when not toxicity."""
    text = f"{entry.get('name')} {entry.get('version') or '(version not recorded)'}"
    return text if entry.get("benchmark") in (None, "toxicity") else f"{entry['benchmark']}: {text}"
