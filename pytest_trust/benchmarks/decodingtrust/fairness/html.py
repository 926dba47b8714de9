"""The HTML report's fairness section: accuracy, demographic parity and equalized odds differences per setting."""

from __future__ import annotations

import re

import plotly.graph_objects as go

from ....report.formatting import fmt_interval, fmt_value
from ....report.html_parts import error_bars, escape, figure, metric_table, table
from ...spec import ReportView

MEASURES = ("accuracy", "dpd", "eod", "rejection_rate")


def section(report: ReportView) -> str:
    metrics = report.metrics
    settings: list[str] = []
    for key in metrics:
        match = re.fullmatch(r"fairness\.(.+)\.(accuracy|dpd|eod|rejection_rate)", key)
        if match and match.group(1) not in settings:
            settings.append(match.group(1))
    if not settings:
        return '<p class="empty">Fairness did not run.</p>'
    fig = go.Figure()
    for measure in MEASURES:
        ms = [metrics.get(f"fairness.{s}.{measure}") for s in settings]
        fig.add_bar(name=measure, x=settings, y=[m.value if m else None for m in ms], error_y=error_bars(ms))
    fig.update_layout(title="Accuracy, demographic parity difference (dpd) and equalized odds difference (eod)",
                      barmode="group", yaxis={"range": [0, 1]})
    rows = []
    for setting in settings:
        row = [f"<code>{escape(setting)}</code>"]
        for measure in MEASURES:
            metric = metrics.get(f"fairness.{setting}.{measure}")
            row.append(escape(f"{fmt_value(metric)} {fmt_interval(metric)}".strip()) if metric else "-")
        rows.append(row)
    overall = [k for k in metrics if k.startswith("fairness.") and k.count(".") == 1]
    return (figure(fig, 380) + table(["setting", *MEASURES], rows, {1, 2, 3, 4})
            + metric_table(metrics, overall))
