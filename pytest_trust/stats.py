"""Intervals for the numbers we report: Wilson for a pass rate, a seeded bootstrap for a mean of rates."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 10_000  # as the SystemCheck paper's RuLES intervals
BOOTSTRAP_SEED = 20231103  # fixed, so every run (and -n 2 vs -n 0) reports the same interval


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion; (0, 1) for n == 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_mean_of_rates(groups: Sequence[tuple[int, int]], level: float = 0.95,
                            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile interval of the unweighted mean of several pass rates, each group (successes, n)
    resampled with replacement on its own (a stratified bootstrap). Resampling n pass/fail outcomes
    with replacement draws the pass count from Binomial(n, successes/n), which is what is drawn."""
    rng = np.random.default_rng(seed)
    means = np.zeros(resamples)
    for successes, n in groups:
        means += rng.binomial(n, successes / n, size=resamples) / n
    means /= len(groups)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_weighted_rates(terms: Sequence[tuple[float, int, int]], offset: float = 0.0, level: float = 0.95,
                             resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile interval of ``offset + sum(weight * successes / n)`` over ``(weight, successes, n)``
    terms, each term's count redrawn from Binomial(n, successes/n) on its own, as above. Scores that
    average runs of unequal standing (a mean of parts, each a mean of runs) weigh their rates this way."""
    rng = np.random.default_rng(seed)
    draws = np.full(resamples, float(offset))
    for weight, successes, n in terms:
        draws += weight * rng.binomial(n, successes / n, size=resamples) / n
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)
