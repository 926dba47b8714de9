"""Metric values and the collection of item results into them.

Every metric an estimate is made from items carries a 95% interval (``low``, ``high``): Wilson for a rate
(kind ``rate``: a share of n items), a seeded bootstrap for anything else (kind ``mean``: a mean of rates, a
score, a derived measure). ``interval(level)`` gives the interval at another level, for a gate that names
one: Wilson at that level's z from the rate's count, or the percentile interval of the bootstrap draws the
metric keeps in memory (``draws``; not written to reports). Kind ``value`` is a constant or a description of
the run (a score's weights), which has no interval.

An interval holds (covers the truth in about 95% of runs, ``bench/coverage.py``) only from ``MIN_N`` units up:
below that a rate or mean carries no interval and says why in ``why`` ("n too small"), and a gate with a
confidence level on it is INCONCLUSIVE. An interval never excludes its own point estimate, and none is zero
wide: draws that are all alike (every unit the same, so a bootstrap shows no spread) give no interval either.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .stats import Studentized, effective_wilson, percentile_interval, wilson, z_of

LEVEL = 0.95  # the level of low and high
# the fewest units (items; prompts where samples share one; in a stratified mean, the smallest stratum's) a rate
# or mean takes an interval from: below it the measured coverage falls under 93% (docs/intervals.md, the
# coverage table). A bootstrap that resamples units (prompts, answers) needs more: at 20 prompts a toxicity EMT near 0
# or 1 was covered in 86-88% of runs, a privacy leak rate near 0 in 84%; at 100, 92-95%.
MIN_N = 10
MIN_N_RESAMPLED = 100
# a bootstrap-t of a mean of skewed unit values (toxicity's per-prompt maxima) held 93-96% from 20 units up
MIN_N_STUDENTIZED = 20


@dataclass(frozen=True)
class Metric:
    value: float
    low: float | None = None  # 95% interval
    high: float | None = None
    n: int = 0
    kind: str = "rate"  # "rate" (a pass rate over n items), "mean" (a mean of rates, a score), "value" (other)
    partial: str | None = None  # what a score needs and this run lacks; a partial score never gates
    why: str | None = None  # why a sampled metric has no interval ("n too small: 2 < 10")
    # the bootstrap draws low and high are the 2.5 and 97.5 percentiles of (in memory only)
    draws: Any = field(default=None, repr=False, compare=False)
    # the interval at any level where it is not the draws' percentile interval (a folded difference; in memory)
    at_level: Callable[[float], tuple[float, float]] | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        entry = {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "kind": self.kind,
                 "partial": self.partial}
        if self.why:
            entry["why"] = self.why
        return entry

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> Metric:
        """A metric read back from a JSON report: its 95% interval, not its draws."""
        return cls(entry.get("value"), entry.get("low"), entry.get("high"), entry.get("n", 0),
                   entry.get("kind", "rate"), entry.get("partial"), entry.get("why"))

    def interval(self, level: float = LEVEL) -> tuple[float, float] | None:
        """The interval at ``level``; None when the metric has none, or none at that level (a bootstrap
        metric read back from a JSON report keeps only its 95% interval)."""
        if self.low is None or self.high is None:
            return None
        if abs(level - LEVEL) < 1e-12:
            return self.low, self.high
        if self.at_level is not None:
            return covering(self.value, self.at_level(level))
        if self.draws is not None:
            return covering(self.value, percentile_interval(self.draws, level))
        if self.kind == "rate" and self.n:
            return wilson(round(self.value * self.n), self.n, z_of(level))
        return None


def too_small(n: int, minimum: int = MIN_N) -> str | None:
    """Why n units give no interval, or None when they do."""
    return f"n too small: {n} < {minimum}" if n < minimum else None


def no_interval(why: str | None) -> str:
    """What a report shows in place of the interval of a sampled metric without one."""
    if not why:
        return ""
    return "n too small" if why.startswith("n too small") else "no spread"


def covering(value: float, interval: tuple[float, float]) -> tuple[float, float]:
    """The interval stretched to hold its point estimate: a percentile interval can miss it where the draws
    are skewed (a rate at 0/n drawn from its Jeffreys posterior lies wholly above 0)."""
    low, high = interval
    return interval if math.isnan(value) else (min(low, value), max(high, value))


def pass_rate(passed: int, n: int) -> Metric:
    value = passed / n if n else 0.0
    if why := too_small(n):
        return Metric(value, None, None, n, why=why)
    low, high = wilson(passed, n)
    return Metric(value, low, high, n)


def error_rate(errored: int, n: int) -> Metric:
    """The share of items that ran but could not be scored; a gate bounds it from above."""
    return pass_rate(errored, n)


def bootstrapped(value: float, draws: Any, n: int, partial: str | None = None,
                 at_level: Callable[[float], tuple[float, float]] | None = None, units: int | None = None,
                 minimum: int = MIN_N) -> Metric:
    """A metric with the percentile interval of its draws (kept for intervals at other levels), or the
    interval ``at_level`` gives, stretched to hold ``value``; none below ``minimum`` units (``units``: the
    smallest stratum's, or the clusters resampled where n counts samples; else n), or where every draw is the
    same."""
    why = too_small(n if units is None else units, minimum)
    if why is None:
        low, high = covering(value, at_level(LEVEL) if at_level else percentile_interval(draws))
        if low == high:
            why = "every resample the same (all units alike): no spread to measure"
        else:
            return Metric(value, low, high, n, kind="mean", partial=partial, draws=draws, at_level=at_level)
    return Metric(value, None, None, n, kind="mean", partial=partial, why=why, draws=draws)


def resampled(value: float, draws: Any, n: int, partial: str | None = None, units: int | None = None) -> Metric:
    """``bootstrapped`` for the draws of a bootstrap that resamples units (items, prompts, answers): its
    percentile interval holds from MIN_N_RESAMPLED units up, not MIN_N (bench/coverage.py)."""
    return bootstrapped(value, draws, n, partial, units=units, minimum=MIN_N_RESAMPLED)


def studentized(value: float, bootstrap: Studentized, n: int, partial: str | None = None,
                units: int | None = None) -> Metric:
    """``bootstrapped`` with a bootstrap-t interval (``stats.Studentized``): it holds from MIN_N_STUDENTIZED
    units up; its draws stay for the metrics combined from it."""
    return bootstrapped(value, bootstrap.draws, n, partial, at_level=bootstrap.interval, units=units,
                        minimum=MIN_N_STUDENTIZED)


def clustered_rate(value: float, draws: Any, n: int, partial: str | None = None, units: int | None = None) -> Metric:
    """``resampled`` for a share (in [0, 1]) of units resampled in strata or clusters (privacy's answers, runs and
    prompts): Wilson's interval at the effective sample size of the draws' variance (``stats.effective_wilson``),
    which the percentile interval of the same draws fell short of near 0 (bench/coverage.py); its draws stay for
    the metrics combined from it. Draws all alike have no spread, though numpy's variance of them is a float
    residue (3e-33 for 1/3), which alone would give an interval 2e-16 wide."""
    alike = not len(draws) or np.nanmax(draws) == np.nanmin(draws)
    variance = 0.0 if alike else float(np.nanvar(draws))
    return bootstrapped(value, draws, n, partial, at_level=lambda level: effective_wilson(value, variance, z_of(level)),
                        units=units, minimum=MIN_N_RESAMPLED)
