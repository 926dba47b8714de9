"""The HTML report's RuLES section: pass rates per suite and test-case kind, per scenario behaviour, and
per red-team attack category. ``rule_following`` draws RuLES v1's section too."""

from __future__ import annotations

import re

import plotly.graph_objects as go

from ...report.html_parts import error_bars, figure, metric_table
from ...results.metrics import Metric
from ..spec import ReportView

SUITES = ("benign", "basic", "redteam")


def section(report: ReportView) -> str | None:
    metrics = report.metrics
    if not any(key.startswith("rules.") for key in metrics):
        return '<p class="empty">RuLES did not run.</p>'
    return rule_following(metrics, "rules", SUITES, "rules.redteam.category.", "Red-team")


def rule_following(metrics: dict[str, Metric], name: str, all_suites: tuple[str, ...], categories: str,
                    attacked: str) -> str:
    """Pass rates only. A suite is charted when it has one (``name.suite``, ``.harmless`` or ``.helpful``); a
    behaviour's is ``name.suite.behavior.Stem``. RuLES v1's gcg suite has none: its per-behaviour keys go on
    past the stem (``rules_v1.gcg.behavior.Stem.failure_rate``, ``.mcnemar_p``), and they stay in the table."""
    parts = []
    suites = [s for s in all_suites if any(f"{name}.{s}{kind}" in metrics for kind in ("", ".harmless", ".helpful"))]
    rates = {key: match.groups() for key in metrics  # key -> (suite, behaviour)
             if (match := re.fullmatch(rf"{re.escape(name)}\.([^.]+)\.behavior\.([^.]+)", key))}
    fig = go.Figure()
    kinds = ([("all", "")] if any(f"{name}.{s}" in metrics for s in suites) else []) + [
        ("harmless", ".harmless"), ("helpful", ".helpful")]
    for kind, suffix in kinds:
        ms = [metrics.get(f"{name}.{s}{suffix}") for s in suites]
        fig.add_bar(name=kind, x=suites, y=[m.value if m else None for m in ms], error_y=error_bars(ms))
    fig.update_layout(title="Pass rate per suite and test-case kind", yaxis={"range": [0, 1], "tickformat": ".0%"},
                      barmode="group")
    parts.append(figure(fig, 340))
    behaviours = sorted({behaviour for suite, behaviour in rates.values() if suite in suites})
    if behaviours:
        fig = go.Figure()
        for suite in suites:
            ms = [metrics.get(f"{name}.{suite}.behavior.{b}") for b in behaviours]
            fig.add_bar(name=suite, y=behaviours, x=[m.value if m else None for m in ms], orientation="h",
                        error_x=error_bars(ms))
        fig.update_layout(title="Pass rate per scenario behaviour", xaxis={"range": [0, 1], "tickformat": ".0%"},
                          barmode="group", yaxis={"autorange": "reversed"})
        parts.append(figure(fig, 120 + 22 * len(behaviours) * max(len(suites), 1)))
    strategies = sorted(k for k in metrics if k.startswith(categories) and k.count(".") == categories.count("."))
    if strategies:
        ms = [metrics[k] for k in strategies]
        fig = go.Figure(go.Bar(x=[k.rsplit(".", 1)[1] for k in strategies], y=[m.value for m in ms],
                               error_y=error_bars(ms), marker_color="#c06a2b"))
        fig.update_layout(title=f"{attacked} pass rate per attack category",
                          yaxis={"range": [0, 1], "tickformat": ".0%"})
        parts.append(figure(fig, 320))
    keys = [k for k in metrics if k.startswith(f"{name}.") and k not in rates and ".scenario." not in k]
    parts.append(metric_table(metrics, keys))
    return "".join(parts)
