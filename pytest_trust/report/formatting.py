"""How a metric's value and interval read, in every report: rates and scores as percentages (the papers'
0-100 scale), other values as plain numbers."""

from __future__ import annotations

from ..results.metrics import Metric, no_interval


def is_percent(metric: Metric | None) -> bool:
    """Rates and scores read as percentages (the papers' 0-100 scale); other values as plain numbers."""
    return metric is None or metric.kind != "value"


def fmt_number(value: float | None, percent: bool) -> str:
    if value is None:
        return "-"
    return f"{value:.2%}" if percent else f"{value:.4f}"


def fmt_value(metric: Metric | None) -> str:
    return "-" if metric is None else fmt_number(metric.value, is_percent(metric))


def fmt_interval(metric: Metric | None) -> str:
    if metric is None or metric.low is None or metric.high is None:
        return f"({no_interval(metric.why)})" if metric is not None and metric.why else ""
    if is_percent(metric):
        return f"[{metric.low:.1%}, {metric.high:.1%}]"
    return f"[{metric.low:.4f}, {metric.high:.4f}]"
