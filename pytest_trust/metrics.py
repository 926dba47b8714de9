"""Metric values and the collection of item results into them.

Every metric an estimate is made from items carries a 95% interval (``low``, ``high``): Wilson for a rate
(kind ``rate``: a share of n items), a seeded bootstrap for anything else (kind ``mean``: a mean of rates, a
score, a derived measure). ``interval(level)`` gives the interval at another level, for a gate that names
one: Wilson at that level's z from the rate's count, or the percentile interval of the bootstrap draws the
metric keeps in memory (``draws``; not written to reports). Kind ``value`` is a constant or a description of
the run (a score's weights), which has no interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .stats import percentile_interval, wilson, z_of

LEVEL = 0.95  # the level of low and high


@dataclass(frozen=True)
class Metric:
    value: float
    low: float | None = None  # 95% interval
    high: float | None = None
    n: int = 0
    kind: str = "rate"  # "rate" (a pass rate over n items), "mean" (a mean of rates, a score), "value" (other)
    partial: str | None = None  # what a score needs and this run lacks; a partial score never gates
    # the bootstrap draws low and high are the 2.5 and 97.5 percentiles of (in memory only)
    draws: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "kind": self.kind,
                "partial": self.partial}

    def interval(self, level: float = LEVEL) -> tuple[float, float] | None:
        """The interval at ``level``; None when the metric has none, or none at that level (a bootstrap
        metric read back from a JSON report keeps only its 95% interval)."""
        if self.low is None or self.high is None:
            return None
        if abs(level - LEVEL) < 1e-12:
            return self.low, self.high
        if self.draws is not None:
            return percentile_interval(self.draws, level)
        if self.kind == "rate" and self.n:
            return wilson(round(self.value * self.n), self.n, z_of(level))
        return None


def pass_rate(passed: int, n: int) -> Metric:
    low, high = wilson(passed, n)
    return Metric(passed / n if n else 0.0, low, high, n)


def error_rate(errored: int, n: int) -> Metric:
    """The share of items that ran but could not be scored; a gate bounds it from above."""
    low, high = wilson(errored, n)
    return Metric(errored / n if n else 0.0, low, high, n)


def bootstrapped(value: float, draws: Any, n: int, partial: str | None = None) -> Metric:
    """A metric with the percentile interval of its bootstrap draws (kept for intervals at other levels)."""
    low, high = percentile_interval(draws)
    return Metric(value, low, high, n, kind="mean", partial=partial, draws=draws)
