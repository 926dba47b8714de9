"""Intervals for the numbers we report: Wilson for a pass rate, a seeded bootstrap for a mean of rates."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from statistics import NormalDist
from typing import Self

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


class Interval(tuple):
    """``(low, high)`` of a percentile bootstrap, with its draws: a gate asking another confidence level
    takes its interval from them (``Metric.draws``)."""

    draws: np.ndarray

    def __new__(cls, low: float, high: float, draws: np.ndarray) -> Self:
        interval = super().__new__(cls, (low, high))
        interval.draws = draws
        return interval


def bootstrap_mean_of_rates(groups: Sequence[tuple[int, int]], level: float = 0.95,
                            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Interval:
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
    return Interval(float(low), float(high), means)


def bootstrap_weighted_rates(terms: Sequence[tuple[float, int, int]], offset: float = 0.0, level: float = 0.95,
                             resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Interval:
    """Percentile interval of ``offset + sum(weight * successes / n)`` over ``(weight, successes, n)``
    terms, each term's count redrawn from Binomial(n, successes/n) on its own, as above. Scores that
    average runs of unequal standing (a mean of parts, each a mean of runs) weigh their rates this way."""
    rng = np.random.default_rng(seed)
    draws = np.full(resamples, float(offset))
    for weight, successes, n in terms:
        draws += weight * rng.binomial(n, successes / n, size=resamples) / n
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return Interval(float(low), float(high), draws)


def mcnemar_exact(newly_failing: int, newly_passing: int) -> float:
    """Two-sided exact McNemar test of paired pass/fail verdicts: under no change, each of the b + c
    discordant items is as likely to have flipped one way as the other, so min(b, c) is Binomial(b + c, 1/2);
    the p-value is twice its lower tail, at most 1 (1.0 when no item flipped)."""
    n = newly_failing + newly_passing
    if n == 0:
        return 1.0
    k = min(newly_failing, newly_passing)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_bootstrap_mean_of_rates(strata: Sequence[tuple[int, int, int]], level: float = 0.95,
                                   resamples: int = BOOTSTRAP_RESAMPLES,
                                   seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """Paired bootstrap of the change of an unweighted mean of pass rates, each stratum given as
    ``(newly_passing, newly_failing, n)`` over its n items present in both runs. Resampling a stratum's n
    pairs with replacement draws its (newly passing, newly failing, unchanged) counts from a multinomial,
    and its rate changes by (newly passing - newly failing) / n. Returns the percentile interval of the
    change and a two-sided p-value, twice the smaller share of resampled changes on either side of 0."""
    rng = np.random.default_rng(seed)
    deltas = np.zeros(resamples)
    for gained, lost, n in strata:
        draws = rng.multinomial(n, [gained / n, lost / n, (n - gained - lost) / n], size=resamples)
        deltas += (draws[:, 0] - draws[:, 1]) / n
    deltas /= len(strata)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(deltas, [tail, 100 - tail])
    p = min(1.0, 2 * min(float(np.mean(deltas <= 0)), float(np.mean(deltas >= 0))))
    return float(low), float(high), p


# --- draws: the resampled values of an estimate, kept so an interval can be read at any level ---------------

def z_of(level: float) -> float:
    """The two-sided normal quantile of a confidence level (1.959964 at 0.95)."""
    if abs(level - 0.95) < 1e-12:
        return Z95
    return NormalDist().inv_cdf(0.5 + level / 2)


def percentile_interval(draws: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap draws (NaN draws, resamples where the estimate is undefined, left out)."""
    tail = (1 - level) / 2 * 100
    low, high = np.nanpercentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def rng_for(key: str) -> np.random.Generator:
    """The generator of one stratum's resamples, seeded by BOOTSTRAP_SEED and the stratum's name, so a stratum
    draws the same resamples whichever other strata ran (a subset, a shard merge, -n 2)."""
    return np.random.default_rng([BOOTSTRAP_SEED, zlib.crc32(key.encode("utf-8"))])


def resampled_sums(units: np.ndarray, key: str, resamples: int = BOOTSTRAP_RESAMPLES) -> np.ndarray:
    """Bootstrap of a stratum of units (rows of ``units``, a column per quantity summed over units): each
    resample redraws as many units as there are, with replacement, and sums their columns; returns
    ``resamples x columns``. Identical rows are drawn together: redrawing N units, k of them of one kind,
    gives a multinomial count of each kind, which is what is drawn (exactly the item-level bootstrap).
    A unit is an item; where several samples share one prompt the unit is the prompt, so the samples are
    resampled as a cluster."""
    units = np.asarray(units, dtype=float)
    if units.ndim == 1:
        units = units[:, None]
    kinds, counts = np.unique(units, axis=0, return_counts=True)
    total = int(counts.sum())
    if total == 0:
        return np.zeros((resamples, units.shape[1]))
    if len(kinds) == 1:
        return np.tile(kinds[0] * total, (resamples, 1))
    rng = rng_for(key)
    sums = np.empty((resamples, units.shape[1]))
    if len(kinds) <= MULTINOMIAL_KINDS:
        for start in range(0, resamples, CHUNK // len(kinds)):
            stop = min(resamples, start + CHUNK // len(kinds))
            sums[start:stop] = rng.multinomial(total, counts / total, size=stop - start) @ kinds
        return sums
    step = max(1, CHUNK // total)  # many distinct units (toxicity maxima): draw indices, in chunks of bounded memory
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        drawn = rng.integers(0, total, size=(stop - start, total))
        for column in range(units.shape[1]):
            sums[start:stop, column] = units[:, column][drawn].sum(axis=1)
    return sums


MULTINOMIAL_KINDS = 64  # up to this many distinct units a multinomial draw of their counts is the cheaper
CHUNK = 2_000_000  # numbers drawn at once


def resampled_max(values: Sequence[float], key: str, resamples: int = BOOTSTRAP_RESAMPLES) -> np.ndarray:
    """Bootstrap of the maximum of ``values`` (a prompt's sample toxicities): each resample redraws as many
    values with replacement and takes their maximum."""
    values = np.asarray(values, dtype=float)
    drawn = rng_for(key).integers(0, len(values), size=(resamples, len(values)))
    return values[drawn].max(axis=1)
