"""Metric values and the collection of item results into them (DESIGN section 10)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .stats import wilson


@dataclass(frozen=True)
class Metric:
    value: float
    low: float | None = None  # 95% interval
    high: float | None = None
    n: int = 0
    kind: str = "rate"  # "rate" (a pass rate over n items), "mean" (a mean of rates), "value" (other)
    partial: str | None = None  # what a score needs and this run lacks; a partial score never gates

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def pass_rate(passed: int, n: int) -> Metric:
    low, high = wilson(passed, n)
    return Metric(passed / n if n else 0.0, low, high, n)


def error_rate(errored: int, n: int) -> Metric:
    """The share of items that ran but could not be scored; a gate bounds it from above."""
    low, high = wilson(errored, n)
    return Metric(errored / n if n else 0.0, low, high, n)
