#!/usr/bin/env python
"""How often each 95% interval the project reports covers the truth: ``python bench/coverage.py`` (not a test).

For every interval family (a Wilson rate, a stratified mean of rates, a weighted mean, RuLES' score, detection
F1, toxicity's EMT, toxicity probability and score with prompts as clusters, stereotype agreeability,
fairness' DPD and EOD, privacy's leak rate), simulates data of known truth at several sizes (units per stratum:
items, or prompts where samples share one) and truths near 0, 0.5 and 1, computes the interval as the project
does (pytest_trust.results.stats and pytest_trust.results.metrics, the same functions the benchmarks call, with RESAMPLES
draws instead of 10,000 to keep the run short) and prints, per cell, the share of runs whose interval holds the
truth and the interval's mean width. Below metrics.MIN_N units a metric has no interval: shown ``n<MIN``.
A run whose draws are all alike has no interval either (a gate on it is INCONCLUSIVE, not wrong): coverage is
over the runs with an interval, and the share without one is shown when there is any.

    python bench/coverage.py            # 2,000 runs a cell, about 2 minutes on one core
    python bench/coverage.py --quick    # 300 runs, sizes 10 and 100 (tests/test_coverage.py)
    python bench/coverage.py --family "fairness DPD"   # one family

A cell is marked ``!`` below BAND (93-97%) and ``+`` above it (a discrete rate can only be conservative at
some truths). Exit status 0 when every cell at or above its family's minimum covers at least BAND's low end
less twice the Monte Carlo standard error of the coverage (about 1 point at 2,000 runs: a method covering 93%
exactly shows 92-94%), has no zero-width interval and no point estimate outside its interval; 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_trust.results.metrics import (
    MIN_N,
    MIN_N_RESAMPLED,
    MIN_N_STUDENTIZED,
    Metric,
    bootstrapped,
    clustered_rate,
    covering,
    pass_rate,
    studentized,
)
from pytest_trust.results.stats import (
    Studentized,
    bootstrap_mean_of_rates,
    bootstrap_weighted_rates,
    folded_interval,
    group_differences,
    mean_of_folded,
    outcome_shares,
    paired_bootstrap_mean_of_rates,
    resampled_sums,
)

RUNS, QUICK_RUNS = 2_000, 300
RESAMPLES = 1_000
SIZES, QUICK_SIZES = (5, 10, 20, 100, 1000), (10, 100)
BAND = (0.93, 0.97)
SEED = 20261202
SAMPLES = 25  # a toxicity or stereotype prompt's samples

Simulate = Callable[[np.random.Generator, int, Any], Metric]


@dataclass(frozen=True)
class Family:
    name: str
    method: str
    truths: tuple[tuple[str, Any, float], ...]  # (label, parameters, true value)
    simulate: Simulate  # one run's metric from data drawn at n units per stratum
    minimum: int = MIN_N  # the fewest units per stratum the project gives this family an interval from
    largest: int = 1000  # sizes above this are not simulated (a continuous bootstrap at n = 1,000 is slow)


@dataclass(frozen=True)
class Cell:
    coverage: float | None  # over the runs with an interval; None below MIN_N
    width: float | None
    without: float  # share of runs with no interval
    zero_width: int  # runs with an interval of width 0
    outside: int  # runs whose point estimate lies outside its interval


# --- rates and means of rates ---------------------------------------------------------------------------

def rate(rng: np.random.Generator, n: int, p: float) -> Metric:
    return pass_rate(int(rng.binomial(n, p)), n)


def mean_of_rates(rng: np.random.Generator, n: int, rates: tuple[float, ...]) -> Metric:
    groups = [(int(rng.binomial(n, p)), n) for p in rates]
    value = sum(s / n for s, _ in groups) / len(groups)
    return bootstrapped(value, bootstrap_mean_of_rates(groups, resamples=RESAMPLES).draws, n * len(groups), units=n)


WEIGHTS = (0.5, 0.3, 0.2)


def weighted(rng: np.random.Generator, n: int, rates: tuple[float, ...]) -> Metric:
    terms = [(w, int(rng.binomial(n, p)), n) for w, p in zip(WEIGHTS, rates)]
    value = sum(w * s / n for w, s, _ in terms)
    return bootstrapped(value, bootstrap_weighted_rates(terms, resamples=RESAMPLES).draws, n * len(terms), units=n)


# --- detection F1 -----------------------------------------------------------------------------------------

def f1(rng: np.random.Generator, n: int, cells: tuple[float, ...]) -> Metric:
    """Items fall in (TP, FP, FN, TN) with probabilities ``cells``; F1's draws from the posterior of the four
    outcomes' shares, as rules_detection's aggregate draws them."""
    tp, fp, fn, tn = np.bincount(rng.choice(4, size=n, p=cells), minlength=4)
    if tp + fp + fn == 0:
        return Metric(float("nan"), n=n)
    shares = outcome_shares([tp, fp, fn, tn], "f1", RESAMPLES)
    f1_draws = 2 * shares[:, 0] / (2 * shares[:, 0] + shares[:, 1] + shares[:, 2])
    return bootstrapped(2 * tp / (2 * tp + fp + fn), f1_draws, n, minimum=MIN_N_RESAMPLED)


def f1_truth(cells: tuple[float, ...]) -> float:
    tp, fp, fn, _ = cells
    return 2 * tp / (2 * tp + fp + fn)


# --- toxicity: a prompt's samples share it ------------------------------------------------------------------

def prompt_maxima(rng: np.random.Generator, prompts: int, shift: float) -> np.ndarray:
    """Each prompt's maximum toxicity over its SAMPLES samples: a sample's toxicity is the logistic of
    shift + the prompt's level (shared by its samples) + the sample's own noise."""
    level = rng.normal(size=(prompts, 1))
    noise = rng.normal(size=(prompts, SAMPLES))
    return (1 / (1 + np.exp(-(shift + level + noise)))).max(axis=1)


def emt_draws(maxima: np.ndarray, key: str) -> np.ndarray:
    return resampled_sums(maxima[:, None], key, RESAMPLES)[:, 0] / len(maxima)


def emt(rng: np.random.Generator, n: int, shift: float) -> Metric:
    maxima = prompt_maxima(rng, n, shift)
    return studentized(float(maxima.mean()), Studentized([maxima], [1.0], 0.0, "emt", RESAMPLES), n)


def emt_percentile(rng: np.random.Generator, n: int, shift: float) -> Metric:
    """The percentile interval of resampled means the bootstrap-t replaced (tests/test_coverage.py)."""
    maxima = prompt_maxima(rng, n, shift)
    return bootstrapped(float(maxima.mean()), emt_draws(maxima, "emt"), n, minimum=MIN_N_STUDENTIZED)


def toxic_share(rng: np.random.Generator, n: int, shift: float) -> Metric:
    return pass_rate(int((prompt_maxima(rng, n, shift) > 0.5).sum()), n)


SCENARIOS = 8  # toxicity.score: 1 - the mean of 8 scenarios' EMTs


def toxicity_score(rng: np.random.Generator, n: int, shift: float) -> Metric:
    shifts = shift + np.linspace(-1, 1, SCENARIOS)
    maxima = [prompt_maxima(rng, n, s) for s in shifts]
    boot = Studentized(maxima, [-1 / SCENARIOS] * SCENARIOS, 1.0, "score", RESAMPLES)
    return studentized(1 - float(np.mean([m.mean() for m in maxima])), boot, n * SCENARIOS, units=n)


def toxicity_truths(statistic: Callable[[np.ndarray], float], scenarios: int = 1) -> Callable[[float], float]:
    """The true value of a statistic of prompt maxima at a shift, by one large simulation (cached)."""
    cache: dict[float, float] = {}

    def truth(shift: float) -> float:
        if shift not in cache:
            rng = np.random.default_rng([SEED, 7])
            shifts = [shift] if scenarios == 1 else shift + np.linspace(-1, 1, scenarios)
            cache[shift] = float(np.mean([statistic(prompt_maxima(rng, 100_000, s)) for s in shifts]))
        return cache[shift]
    return truth


# --- stereotype agreeability: cells of prompts of samples ------------------------------------------------------

CELLS = 2


def agreeability(rng: np.random.Generator, n: int, means: tuple[float, ...]) -> Metric:
    """CELLS cells of n prompts each; a prompt's SAMPLES samples agree with its own probability, drawn from a
    Beta of the cell's mean (concentration 5); the mean over cells of agree / samples, each cell's prompts
    resampled as clusters."""
    draws = np.zeros(RESAMPLES)
    value = 0.0
    for cell, mean in enumerate(means):
        p = rng.beta(5 * mean, 5 * (1 - mean), size=n)
        units = np.stack([np.full(n, SAMPLES), rng.binomial(SAMPLES, p)], axis=1)
        sums = resampled_sums(units, f"cell{cell}", RESAMPLES)
        draws += sums[:, 1] / sums[:, 0] / len(means)
        value += units[:, 1].sum() / units[:, 0].sum() / len(means)
    return bootstrapped(value, draws, n * len(means) * SAMPLES, units=n, minimum=MIN_N_RESAMPLED)


# --- fairness: DPD and EOD of binary groups ------------------------------------------------------------------

def parity_counts(rng: np.random.Generator, n: int, selection: np.ndarray) -> np.ndarray:
    """counts[group, label, prediction] of n items, group and label each 1 with probability 1/2, the
    prediction 1 with probability selection[group, label]."""
    group, label = rng.integers(0, 2, n), rng.integers(0, 2, n)
    prediction = (rng.random(n) < selection[group, label]).astype(int)
    counts = np.zeros((2, 2, 2), dtype=int)
    np.add.at(counts, (group, label, prediction), 1)
    return counts


def spread(counts: np.ndarray, axis: tuple[int, ...], positive: np.ndarray) -> float:
    """fairlearn's between-groups difference of a rate, 0 for a rate without items, over the groups present."""
    rates = [positive[g] / counts[g].sum(axis=axis) if counts[g].sum() else None for g in (0, 1)]
    present = [r for r in rates if r is not None and np.isfinite(r)]
    return float(max(present) - min(present)) if len(present) == 2 else 0.0


def dpd_value(counts: np.ndarray) -> float:
    return spread(counts, (0, 1), counts[:, :, 1].sum(axis=1))


def eod_value(counts: np.ndarray) -> float:
    def diff(label: int) -> float:
        sizes = counts[:, label].sum(axis=1)
        if not counts.sum(axis=(1, 2)).all():
            return 0.0
        rates = np.where(sizes > 0, counts[:, label, 1] / np.maximum(sizes, 1), 0.0)
        return float(abs(rates[1] - rates[0]))
    return max(diff(1), diff(0))


def parity(rng: np.random.Generator, n: int, selection: np.ndarray, which: str) -> Metric:
    counts = parity_counts(rng, n, selection)
    signed = group_differences(counts, "parity", RESAMPLES)
    chosen = signed[:1] if which == "dpd" else signed[1:]
    value = dpd_value(counts) if which == "dpd" else eod_value(counts)
    return bootstrapped(value, np.abs(chosen[0]), n, at_level=lambda level: folded_interval(chosen, level))


def mean_dpd(rng: np.random.Generator, n: int, selections: tuple[np.ndarray, ...]) -> Metric:
    """fairness.dpd, the headline: the mean of the settings' DPDs, its draws the mean of their |d| draws."""
    counts = [parity_counts(rng, n, selection) for selection in selections]
    signed = [group_differences(c, f"setting{i}", RESAMPLES)[0] for i, c in enumerate(counts)]
    draws = sum(np.abs(d) for d in signed) / len(counts)
    terms = [(1 / len(counts), [d]) for d in signed]
    return bootstrapped(float(np.mean([dpd_value(c) for c in counts])), draws, n * len(counts), units=n,
                        at_level=lambda level: mean_of_folded(terms, draws, level))


def parity_truth(selection: np.ndarray, which: str) -> float:
    if which == "dpd":
        return float(abs(selection[1].mean() - selection[0].mean()))
    return float(np.abs(selection[1] - selection[0]).max())


EQUAL = np.array([[0.3, 0.3], [0.3, 0.3]])
MODERATE = np.array([[0.2, 0.6], [0.4, 0.8]])
LARGE = np.array([[0.05, 0.1], [0.9, 0.95]])


# --- privacy: the mean leak rate of several runs, each run's answers resampled ------------------------------------

def leak_rate(rng: np.random.Generator, n: int, rates: tuple[float, ...]) -> Metric:
    draws = np.zeros(RESAMPLES)
    value = 0.0
    for run, p in enumerate(rates):
        leaks = rng.random(n) < p
        units = np.stack([np.ones(n), leaks], axis=1)
        sums = resampled_sums(units, f"run{run}", RESAMPLES)
        draws += sums[:, 1] / sums[:, 0] / len(rates)
        value += leaks.mean() / len(rates)
    return clustered_rate(value, draws, n * len(rates), units=n)


# --- a baseline: the change of a mean of pass rates between two runs of the same items ---------------------------

def paired_change(rng: np.random.Generator, n: int, flips: tuple[tuple[float, float], ...]) -> Metric:
    """Buckets of n items each, an item newly passing or newly failing with its bucket's probabilities ``flips``
    (gain, loss), as ``baseline.benchmark_test`` counts them; the interval of the change of the mean of the
    buckets' pass rates (``stats.paired_bootstrap_mean_of_rates``), given from MIN_N_RESAMPLED items a bucket."""
    strata = []
    for gain, loss in flips:
        gained, lost, _ = rng.multinomial(n, [gain, loss, 1 - gain - loss])
        strata.append((int(gained), int(lost), n))
    low, high, _ = paired_bootstrap_mean_of_rates(strata, resamples=RESAMPLES)
    value = sum((gained - lost) / n for gained, lost, _ in strata) / len(strata)
    return Metric(value, *covering(value, (low, high)), n * len(strata), kind="mean")


PAIRED = {"change 0": ((0.05, 0.05), (0.1, 0.1), (0.02, 0.02), (0.0, 0.0)),  # as many newly pass as newly fail
          # a baseline passing every item, this run each bucket's with RuLES' rates: middle, low
          "change -0.5": tuple((0.0, 1 - p) for p in (0.3, 0.5, 0.5, 0.7)),
          "change -0.95": tuple((0.0, 1 - p) for p in (0.02, 0.05, 0.05, 0.08))}


LOW, MID, HIGH = (0.02, 0.05, 0.08), (0.4, 0.5, 0.6), (0.92, 0.95, 0.98)
RULES_LOW, RULES_MID, RULES_HIGH = (0.02, 0.05, 0.05, 0.08), (0.3, 0.5, 0.5, 0.7), (0.92, 0.95, 0.95, 0.98)
TOXIC = {"low": -5.0, "mid": -2.5, "high": 2.0}  # shifts: EMT near 0.07, 0.4 and 0.97
emt_truth = toxicity_truths(lambda m: m.mean())
toxic_truth = toxicity_truths(lambda m: (m > 0.5).mean())
score_truth = toxicity_truths(lambda m: 1 - m.mean(), SCENARIOS)
AGREE = ((0.03, 0.07), (0.4, 0.6), (0.93, 0.97))


def families() -> list[Family]:
    def rates_truths(triples: tuple[tuple[float, ...], ...], combine: Callable[[tuple[float, ...]], float]):
        return tuple((label, t, combine(t)) for label, t in zip(("near 0", "near 0.5", "near 1"), triples))

    def mean(t: tuple[float, ...]) -> float:
        return sum(t) / len(t)

    return [
        Family("rate", "Wilson score interval", (("p 0.05", 0.05, 0.05), ("p 0.5", 0.5, 0.5), ("p 0.95", 0.95, 0.95)),
               rate),
        Family("mean of rates (3 strata)", "each stratum's rate: a Beta of its posterior's mean, its estimate's variance",
               rates_truths((LOW, MID, HIGH), mean), mean_of_rates),
        Family("weighted mean (3 terms)", "as above, weights 0.5, 0.3, 0.2",
               rates_truths((LOW, MID, HIGH), lambda t: sum(w * p for w, p in zip(WEIGHTS, t))), weighted),
        Family("RuLES score (4 buckets)", "mean of 4 buckets' rates, drawn as above",
               rates_truths((RULES_LOW, RULES_MID, RULES_HIGH), mean), mean_of_rates),
        Family("detection F1", "the 4 outcomes' shares from their Dirichlet posterior (Perks' prior)",
               tuple((label, c, f1_truth(c)) for label, c in (("F1 0.17", (0.05, 0.2, 0.3, 0.45)),
                                                              ("F1 0.6", (0.3, 0.2, 0.2, 0.3)),
                                                              ("F1 0.96", (0.48, 0.02, 0.02, 0.48)))), f1,
               minimum=MIN_N_RESAMPLED),
        Family("toxicity EMT", "prompts resampled as clusters (bootstrap-t)",
               tuple((f"EMT {emt_truth(s):.2f}", s, emt_truth(s)) for s in TOXIC.values()), emt, largest=100,
               minimum=MIN_N_STUDENTIZED),
        Family("toxicity probability", "Wilson over prompts",
               tuple((f"P {toxic_truth(s):.2f}", s, toxic_truth(s)) for s in TOXIC.values()), toxic_share),
        Family("toxicity score (8 EMTs)", "1 - mean of 8 scenarios' cluster bootstraps (bootstrap-t)",
               tuple((f"score {score_truth(s):.2f}", s, score_truth(s)) for s in TOXIC.values()), toxicity_score,
               largest=100, minimum=MIN_N_STUDENTIZED),
        Family("stereotype agreeability", f"{CELLS} cells, prompts resampled as clusters",
               rates_truths(AGREE, mean), agreeability, largest=100, minimum=MIN_N_RESAMPLED),
        Family("fairness DPD", "Jeffreys difference of selection rates, folded at 0",
               tuple((f"DPD {parity_truth(s, 'dpd'):.2f}", (s, "dpd"), parity_truth(s, "dpd"))
                     for s in (EQUAL, MODERATE, LARGE)), lambda rng, n, a: parity(rng, n, *a)),
        Family("fairness EOD", "Jeffreys differences of TPR and FPR, folded, Bonferroni",
               tuple((f"EOD {parity_truth(s, 'eod'):.2f}", (s, "eod"), parity_truth(s, "eod"))
                     for s in (EQUAL, MODERATE, LARGE)), lambda rng, n, a: parity(rng, n, *a)),
        Family("fairness mean DPD (3 settings)", "mean of absolute-difference draws; low end without settings that may be 0",
               tuple((f"mean DPD {np.mean([parity_truth(s, 'dpd') for s in t]):.2f}", t,
                      float(np.mean([parity_truth(s, "dpd") for s in t])))
                     for t in ((EQUAL, EQUAL, EQUAL), (EQUAL, MODERATE, LARGE), (LARGE, LARGE, MODERATE))), mean_dpd),
        Family("paired change (4 buckets)", "each bucket's flips from their Dirichlet posterior (Bayesian bootstrap)",
               tuple((label, flips, float(np.mean([g - l for g, l in flips]))) for label, flips in PAIRED.items()),
               paired_change, minimum=MIN_N_RESAMPLED),
        Family("privacy leak rate (3 runs)", "Wilson at the design effect's n of the runs' resampled answers",
               rates_truths((LOW, MID, HIGH), mean), leak_rate, minimum=MIN_N_RESAMPLED),
    ]


def measure(family: Family, label: str, parameters: Any, truth: float, n: int, runs: int) -> Cell:
    rng = np.random.default_rng([SEED, zlib.crc32(f"{family.name}|{label}".encode()), n])
    if n < family.minimum:
        return Cell(None, None, 1.0, 0, 0)
    covered, widths, without, zero, outside = 0, [], 0, 0, 0
    for _ in range(runs):
        metric = family.simulate(rng, n, parameters)
        if metric.low is None or metric.high is None:
            without += 1
            continue
        covered += metric.low <= truth <= metric.high
        widths.append(metric.high - metric.low)
        zero += metric.high == metric.low
        outside += not metric.low <= metric.value <= metric.high
    held = runs - without
    return Cell(covered / held if held else None, float(np.mean(widths)) if widths else None, without / runs, zero,
                outside)


def fmt(cell: Cell | None, minimum: int) -> str:
    if cell is None:
        return "-"
    if cell.coverage is None:
        return f"n<{minimum}" if cell.without == 1.0 else "no interval"
    mark = "" if BAND[0] <= cell.coverage <= BAND[1] else "+" if cell.coverage > BAND[1] else "!"
    text = f"{cell.coverage:.1%}{mark} ({cell.width:.3f})"
    return text + (f" {cell.without:.0%} none" if cell.without >= 0.005 else "")


def table(runs: int, sizes: tuple[int, ...], names: list[str] | None = None) -> tuple[list[str], bool, dict]:
    """The rows of the table, whether every cell at or above MIN_N covers at least BAND's low end, and the
    cells by (family, truth label, n)."""
    lines = [f"| family | method | min n | truth | {' | '.join(f'n={n}' for n in sizes)} |",
             "| --- | --- | --- | --- |" + " --- |" * len(sizes)]
    holds, cells = True, {}
    for family in families():
        if names and family.name not in names:
            continue
        for label, parameters, truth in family.truths:
            row = []
            for n in sizes:
                cell = measure(family, label, parameters, truth, n, runs) if n <= family.largest else None
                cells[family.name, label, n] = cell
                holds &= cell is None or cell.coverage is None or (
                    cell.coverage >= BAND[0] - 2 * (0.95 * 0.05 / runs) ** 0.5 and not cell.zero_width
                    and not cell.outside)
                row.append(fmt(cell, family.minimum))
            lines.append(f"| {family.name} | {family.method} | {family.minimum} | {label} | {' | '.join(row)} |")
    return lines, holds, cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs a cell, sizes {QUICK_SIZES}")
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    args = parser.parse_args(argv)
    runs, sizes = (QUICK_RUNS, QUICK_SIZES) if args.quick else (RUNS, SIZES)
    lines, holds, _ = table(runs, sizes, args.family)
    print(f"coverage of the 95% intervals over {runs:,} seeded runs a cell ({RESAMPLES:,} draws each); "
          f"in brackets the mean width; n = units per stratum; + above {BAND[1]:.0%}, ! below {BAND[0]:.0%}")
    print("\n".join(lines))
    print(f"every cell at or above its family's minimum n covers at least {BAND[0]:.0%} (less twice the Monte Carlo "
          f"error), with no zero-width interval and no point outside: {'yes' if holds else 'NO'}")
    return 0 if holds else 1


if __name__ == "__main__":
    sys.exit(main())
