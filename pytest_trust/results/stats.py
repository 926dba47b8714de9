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


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion, modified near 0 and n after Brown, Cai and DasGupta (2001,
    Statistical Science 16(2), section 4.1.1): for a few successes (or failures) the bound nearer the edge is
    the one-sided Poisson bound where that is lower, since Wilson's own covers a rate of 0.05 at n = 10 or 20 in
    only 91-92% of runs (bench/coverage.py). They apply it to 1 and 2 up to n = 50 and to 3 up to 100; 3 at
    n = 20 was needed here too. Above 100 items it applies up to 8 (``EDGE_COUNTS``): where some 4 successes
    are expected (a rate of 0.004 at n = 1,000, the Poisson regime) Wilson's lower bound for 4 to 8 exceeds the
    exact one and the interval covers 92.9% (exactly); with the Poisson bound, 96.0%, and at least 93.4% for
    any rate at n = 150 to 10,000. (0, 1) for n == 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    if successes == 0:  # exactly 0, not the float residue of centre - half (2e-19 at 0/1,000: above the estimate)
        low = 0.0
    if successes == n:
        high = 1.0
    near = EDGE_COUNTS[0] if n <= 100 else EDGE_COUNTS[1]
    alpha = 2 * NormalDist().cdf(-z)  # 0.05 at z = 1.96
    if 1 <= round(successes) <= near:  # an effective count (``effective_wilson``) takes its nearest whole one
        low = min(low, poisson_lower(round(successes), alpha) / n)
    if 1 <= round(n - successes) <= near:
        high = max(high, 1 - poisson_lower(round(n - successes), alpha) / n)
    return low, high


def effective_wilson(value: float, variance: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval of a share whose units are clustered or stratified, at its effective sample size: the n
    at which a share of independent items would have the estimate's ``variance``, value (1 - value) / variance
    (Kish's design effect; Korn and Graubard 1998, Survey Methodology 24(2), on small expected counts). The
    percentile interval of resampled answers, like Wald's, is about symmetric where the share's sampling is
    skewed: a mean of three runs' leak rates near 0.05 at 100 answers a run covered 92.3%, this 95%
    (bench/coverage.py). The estimate alone (no spread) where the variance is 0 or the share is 0 or 1."""
    if not variance > 0 or not 0 < value < 1:
        return value, value
    n = value * (1 - value) / variance
    return wilson(value * n, n, z)


EDGE_COUNTS = (3, 8)  # the counts near an edge given the Poisson bound: up to 100 items, and above


def poisson_lower(count: int, alpha: float) -> float:
    """The mean below which seeing ``count`` or more events has probability under ``alpha``: half the alpha
    quantile of chi-square with 2 x count degrees of freedom (by bisection on the Poisson tail)."""
    def at_least(mean: float) -> float:
        term = total = math.exp(-mean)
        for k in range(1, count):
            term *= mean / k
            total += term
        return 1 - total

    low, high = 0.0, float(count)
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if at_least(middle) < alpha else (low, middle)
    return (low + high) / 2


class Interval(tuple):
    """``(low, high)`` of a percentile bootstrap, with its draws: a gate asking another confidence level
    takes its interval from them (``Metric.draws``)."""

    draws: np.ndarray

    def __new__(cls, low: float, high: float, draws: np.ndarray) -> Self:
        interval = super().__new__(cls, (low, high))
        interval.draws = draws
        return interval


def jeffreys_draws(successes: int, n: int, size: int, rng: np.random.Generator, prior: float = 0.5) -> np.ndarray:
    """Draws of a rate from its posterior under a Beta(prior, prior) prior, Jeffreys' at 0.5. Unlike
    Binomial(n, successes/n), the redraw of a bootstrap, it spreads at 0/n and n/n too: a stratum that
    passed every item is not known to pass every item (docs/decisions.md, "Intervals")."""
    return rng.beta(successes + prior, n - successes + prior, size=size)


def rate_draws(successes: int, n: int, size: int, rng: np.random.Generator, prior: float = 0.5) -> np.ndarray:
    """Draws of a rate for a mean of rates: a Beta with the mean of its Beta(prior, prior) posterior, m, and the
    variance of a rate's estimate at that mean, m (1 - m) / n: Beta(m (n - 1), (1 - m) (n - 1)). The posterior's
    own variance, m (1 - m) / (n + 2 prior + 1), falls short of it by a factor of about n / (n + 1); one
    rate's interval hides that in its discreteness, a mean of three does not: near 0.5 at 10 items a rate it covered 92.9%, this 95.3%
    (bench/coverage.py). For n = 1 the posterior itself."""
    if n < 2:
        return jeffreys_draws(successes, n, size, rng, prior)
    mean = (successes + prior) / (n + 2 * prior)
    return rng.beta(mean * (n - 1), (1 - mean) * (n - 1), size=size)


def bootstrap_mean_of_rates(groups: Sequence[tuple[int, int]], level: float = 0.95,
                            resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Interval:
    """Percentile interval of the unweighted mean of several pass rates, each group (successes, n) drawn
    on its own from its posterior (``bootstrap_weighted_rates``): a stratified posterior simulation."""
    return bootstrap_weighted_rates([(1 / len(groups), successes, n) for successes, n in groups], 0.0, level,
                                    resamples, seed)


def bootstrap_weighted_rates(terms: Sequence[tuple[float, int, int]], offset: float = 0.0, level: float = 0.95,
                             resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> Interval:
    """Percentile interval of ``offset + sum(weight * successes / n)`` over ``(weight, successes, n)``
    terms, each term's rate drawn on its own (``rate_draws``: its posterior's mean, its estimate's variance).
    Scores that average runs of unequal standing (a mean of parts, each a mean of runs) weigh their rates so.

    The prior is Beta(a, a) with a = 0.5 x sqrt(sum w^2) / sum |w|: Jeffreys' for one rate, thinner as the
    terms multiply. Each term's prior pulls its rate towards 1/2 by about a / n, and those pulls add up over
    the terms while their spread adds in quadrature; with Jeffreys' own prior on each of 4 rates near 0.02 to
    0.08 the mean's interval covered 74-86% at 5-10 items a rate, with this one 93-96% (bench/coverage.py)."""
    rng = np.random.default_rng(seed)
    weights = [abs(weight) for weight, _, _ in terms]
    prior = 0.5 * math.sqrt(sum(w * w for w in weights)) / sum(weights) if sum(weights) else 0.5
    draws = np.full(resamples, float(offset))
    for weight, successes, n in terms:
        draws += weight * rate_draws(successes, n, resamples, rng, prior)
    interval = percentile_interval(draws, level)
    return Interval(interval[0], interval[1], draws)


def difference_draws(a: tuple[int, int], b: tuple[int, int], key: str,
                     resamples: int = BOOTSTRAP_RESAMPLES) -> np.ndarray:
    """Draws of rate a - rate b, given as (successes, n), each rate from its Jeffreys posterior on its own
    (a Bayesian counterpart of Newcombe's interval for a difference of proportions); seeded by ``key``."""
    rng = rng_for(key)
    return jeffreys_draws(*a, resamples, rng) - jeffreys_draws(*b, resamples, rng)


def group_differences(counts: np.ndarray, key: str, resamples: int = BOOTSTRAP_RESAMPLES) -> list[np.ndarray]:
    """Draws of group 1's minus group 0's selection rate, true positive rate and false positive rate, from counts
    ``[group, label, prediction]`` of binary groups, labels and predictions, each rate from its Jeffreys
    posterior (``difference_draws``): folded, the first is a demographic parity difference, the larger of the
    other two an equalized odds difference. A group with no item of a kind has its rate drawn from
    Beta(1/2, 1/2): nothing is known of it."""
    counts = np.asarray(counts, dtype=int)
    selected = [(int(counts[g, :, 1].sum()), int(counts[g].sum())) for g in (1, 0)]
    true_pos = [(int(counts[g, 1, 1]), int(counts[g, 1].sum())) for g in (1, 0)]
    false_pos = [(int(counts[g, 0, 1]), int(counts[g, 0].sum())) for g in (1, 0)]
    return [difference_draws(*pair, f"{key}.{name}", resamples) for name, pair in
            (("selection", selected), ("tpr", true_pos), ("fpr", false_pos))]


def folded_interval(signed: Sequence[np.ndarray], level: float = 0.95) -> tuple[float, float]:
    """Interval of max_i |d_i| from draws of the signed differences d_i: each d_i's percentile interval at
    level 1 - (1 - level) / k (Bonferroni over the k of them), folded at 0 (0 when it holds 0, else its
    end nearer 0), then the largest low and the largest high. It covers max |d| whenever every d_i's interval
    covers its d_i, so at least ``level`` of the time; percentiles of |d| draws instead never reach 0 and
    miss a true difference of 0 (bench/coverage.py)."""
    inner = 1 - (1 - level) / len(signed)
    lows, highs = [], []
    for draws in signed:
        low, high = percentile_interval(draws, inner)
        lows.append(0.0 if low <= 0 <= high else min(abs(low), abs(high)))
        highs.append(max(abs(low), abs(high)))
    return max(lows), max(highs)


def mean_of_folded(terms: Sequence[tuple[float, Sequence[np.ndarray]]], draws: np.ndarray,
                   level: float = 0.95) -> tuple[float, float]:
    """Interval of ``sum(weight * max_i |d_i|)`` over ``(weight, signed draws)`` terms (a mean of settings'
    DPDs), whose ``draws`` are that sum over the terms' absolute draws: their percentile interval, its low end
    taken without the terms whose difference may be 0 (their ``folded_interval``, Bonferroni over the k terms,
    holds 0) where that is lower. Percentiles of absolute values never reach 0: a term at a true difference of 0
    still adds its draws' typical size, so a mean of differences all 0 was never covered (bench/coverage.py)."""
    low, high = percentile_interval(draws, level)
    inner = 1 - (1 - level) / len(terms)
    kept = [weight * np.max(np.abs(signed), axis=0) for weight, signed in terms
            if folded_interval(signed, inner)[0] > 0]
    floor = percentile_interval(sum(kept), level)[0] if kept else 0.0
    return min(low, floor), high


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


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of p-values tested together (Holm 1979): the i-th smallest is multiplied by
    (m - i + 1), each kept at least the one before it and at most 1. Calling adjusted p < alpha significant keeps
    the chance of any false call among the m tests at alpha, whatever their dependence."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted = [0.0] * len(pvalues)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def paired_bootstrap_mean_of_rates(strata: Sequence[tuple[int, int, int]], level: float = 0.95,
                                   resamples: int = BOOTSTRAP_RESAMPLES,
                                   seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """Paired (Bayesian) bootstrap of the change of an unweighted mean of pass rates, each stratum given as
    ``(newly_passing, newly_failing, n)`` over its n items present in both runs. A stratum's shares of newly
    passing, newly failing and unchanged items are drawn from their Dirichlet posterior (Rubin's Bayesian
    bootstrap of its n pairs with Perks' prior, 1/3 on each of the three outcomes, thinned over the k strata by
    1 / sqrt(k) as ``bootstrap_weighted_rates`` thins Jeffreys'), and its rate changes by passing - failing.
    Resampling the pairs themselves (a multinomial at the observed shares) drew no spread where every item of a
    bucket flipped (``-50.00% [-50.0%, -50.0%]``, p = 0): a bucket that all flipped is not known to flip every
    time. Jeffreys' 1/2 an outcome pulled a change near -1 towards 0 by 3/2 of an item a bucket and covered
    one near -0.95 in 82-87% of runs at 10-20 items a bucket (bench/coverage.py, "paired change").
    Returns the percentile interval of the change and a two-sided p-value, twice the smaller share of draws on
    either side of 0 counted as (k + 1) / (resamples + 1) (Davison and Hinkley 1997, section 4.2): a
    resampling p is never below 1 / (resamples + 1)."""
    rng = np.random.default_rng(seed)
    prior = 1 / (3 * math.sqrt(len(strata)))
    deltas = np.zeros(resamples)
    for gained, lost, n in strata:
        shares = rng.dirichlet([gained + prior, lost + prior, n - gained - lost + prior], size=resamples)
        deltas += shares[:, 0] - shares[:, 1]
    deltas /= len(strata)
    low, high = percentile_interval(deltas, level)
    below, above = int(np.sum(deltas <= 0)), int(np.sum(deltas >= 0))
    p = min(1.0, 2 * (min(below, above) + 1) / (resamples + 1))
    return low, high, p


def outcome_shares(counts: Sequence[int], key: str, resamples: int = BOOTSTRAP_RESAMPLES,
                   prior: float = 1.0) -> np.ndarray:
    """Draws of the shares of K exclusive outcomes seen ``counts`` times, from their Dirichlet posterior under
    Perks' prior (``prior`` / K an outcome, a total of one item): Rubin's Bayesian bootstrap of the items,
    with every outcome possible; resamples x K, seeded by ``key``. Resampling the items draws an outcome
    never seen with share 0 every time: a detection F1 of 100 items without a false positive or negative
    resampled to 1 every time (no interval, 2% of runs near F1 0.96), and near it covered 92.1%; these draws
    94.9%, every run with an interval (bench/coverage.py)."""
    counts = np.asarray(counts, dtype=float)
    return rng_for(key).dirichlet(counts + prior / len(counts), size=resamples)


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
        drawn = rng.integers(0, total, size=(stop - start, total), dtype=np.int32)  # the int64 draws, half the bytes
        for column in range(units.shape[1]):
            sums[start:stop, column] = units[:, column][drawn].sum(axis=1)
        del drawn  # freed before the next chunk is drawn, not held beside it
    return sums


MULTINOMIAL_KINDS = 64  # up to this many distinct units a multinomial draw of their counts is the cheaper
CHUNK = 2_000_000  # numbers drawn at once


class Studentized:
    """Bootstrap-t of ``offset + sum(weight * mean of stratum)``, each stratum's values resampled on its own
    (``resampled_sums``): the quantiles of the resampled t = (estimate* - estimate) / se* scale the estimate's
    own standard error. A mean of per-prompt maxima near 0 or 1 is skewed, and the percentile interval of its
    resampled means covered an EMT near 0.97 in 92% of runs at 100 prompts and 87% at 20; bootstrap-t kept
    93-96% from 20 prompts up (bench/coverage.py)."""

    def __init__(self, strata: Sequence[Sequence[float]], weights: Sequence[float], offset: float, key: str,
                 resamples: int = BOOTSTRAP_RESAMPLES, bounds: tuple[float, float] = (-math.inf, math.inf)) -> None:
        self.bounds = bounds  # where the quantity can lie: the interval is cut to it
        self.value, variance = float(offset), 0.0
        self.draws, draw_variance = np.full(resamples, float(offset)), np.zeros(resamples)
        for index, (stratum, weight) in enumerate(zip(strata, weights, strict=True)):
            values = np.asarray(stratum, dtype=float)
            n = len(values)
            self.value += weight * float(values.mean())
            sums = resampled_sums(np.column_stack([values, values * values]), f"{key}.{index}", resamples)
            means = sums[:, 0] / n
            self.draws += weight * means
            if n > 1 and np.ptp(values) > 0:  # identical values have no spread (not a float residue of one)
                variance += weight * weight * float(values.var(ddof=1)) / n
                draw_variance += weight * weight * np.maximum(sums[:, 1] / n - means * means, 0.0) / (n - 1)
        self.se = math.sqrt(variance)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (self.draws - self.value) / np.sqrt(draw_variance)
        self.t = t[np.isfinite(t)]  # a resample of identical values has no spread to scale by

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """The bootstrap-t interval, cut to ``bounds``; the estimate alone where the values show no spread. Cutting
        loses no coverage (the truth lies within the bounds): a resample of 20 prompts that are nearly all 1 has
        a tiny standard error, whose t scaled a rate's interval down to -459 before it was cut."""
        if self.se == 0 or len(self.t) == 0:
            return self.value, self.value
        tail = (1 - level) / 2  # the (B + 1) x tail-th smallest t (Davison and Hinkley 1997, section 5.2.3): the
        # default interpolation sits one draw inside the heavy tail of t (an EMT near 0.07 at 20 prompts: 92.35% -> 92.6%)
        low_t, high_t = np.quantile(self.t, [tail, 1 - tail], method="weibull")
        low, high = self.value - float(high_t) * self.se, self.value - float(low_t) * self.se
        return max(low, self.bounds[0]), min(high, self.bounds[1])
