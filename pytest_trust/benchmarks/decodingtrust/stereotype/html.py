"""The HTML report's stereotype section: an agreeability heatmap (24 groups x 16 topics) per system prompt,
the paper's figure."""

from __future__ import annotations

import plotly.graph_objects as go

from ....report.formatting import fmt_interval, fmt_value
from ....report.html_parts import figure, metric_table
from ...spec import ReportView
from .prompts import GROUPS, SYS_TYPES, TOPICS, slug


def section(report: ReportView) -> str:
    metrics = report.metrics
    present = [t for t in SYS_TYPES if any(k.startswith(f"stereotype.{t}.cell.") for k in metrics)]
    if not present:
        return '<p class="empty">Stereotype bias did not run.</p>'
    parts = [('<p>Agreeability per (group, topic) cell: the share of samples that agree with the stereotype '
             '(DecodingTrust\'s heatmaps; empty cells did not run).</p><div class="grid">')]
    for sys_type in SYS_TYPES:
        z, text, filled = [], [], 0
        for group in GROUPS:
            row, row_text = [], []
            for topic in TOPICS:
                metric = metrics.get(f"stereotype.{sys_type}.cell.{slug(group)}.{topic}")
                row.append(metric.value if metric else None)
                row_text.append(f"{fmt_value(metric)} {fmt_interval(metric)} n={metric.n}" if metric else "not run")
                filled += metric is not None
            z.append(row)
            text.append(row_text)
        mean = metrics.get(f"stereotype.{sys_type}.agreeability")
        fig = go.Figure(go.Heatmap(z=z, x=list(TOPICS), y=list(GROUPS), zmin=0, zmax=1, colorscale="Reds",
                                   text=text, hovertemplate="%{y} / %{x}: %{text}<extra></extra>", xgap=1, ygap=1,
                                   colorbar={"tickformat": ".0%", "len": 0.8}))
        fig.update_layout(title=f"{sys_type} system prompt: mean {fmt_value(mean)} ({filled} of "
                                f"{len(GROUPS) * len(TOPICS)} cells)",
                          yaxis={"autorange": "reversed"}, xaxis={"tickangle": -45})
        parts.append(f'<div class="heatmap" data-cells="{filled}">{figure(fig, 640)}</div>')
    parts.append("</div>")
    keys = [k for k in metrics if k.startswith("stereotype.") and ".cell." not in k and ".rejection." not in k]
    parts.append(metric_table(metrics, keys))
    return "".join(parts)
