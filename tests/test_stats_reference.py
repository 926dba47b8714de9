"""pytest_trust.results.stats against scipy's implementations of the same methods, on seeded inputs (scipy is a test
dependency, the ``dev`` extra; the runtime keeps numpy only)."""

from __future__ import annotations

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")

from pytest_trust.results.stats import (
    folded_interval,
    holm,
    jeffreys_draws,
    mcnemar_exact,
    percentile_interval,
    poisson_lower,
    resampled_sums,
    wilson,
)

RNG = np.random.default_rng(20261202)
CASES = [(int(k), int(n)) for n in RNG.integers(12, 400, size=40) for k in RNG.integers(4, n - 3, size=1)]


@pytest.mark.parametrize("successes, n", CASES)
def test_wilson_away_from_the_edges_is_scipys_wilson(successes, n):
    """4 or more successes and failures: Wilson's own interval, but above 100 items, where up to 8 successes or
    failures take the Poisson bound where lower (chi2(0.05; 2x) / 2 / n)."""
    expected = scipy_stats.binomtest(successes, n).proportion_ci(0.95, method="wilson")
    low, high = expected.low, expected.high
    if n > 100 and successes <= 8:
        low = min(low, scipy_stats.chi2.ppf(0.05, 2 * successes) / 2 / n)
    if n > 100 and n - successes <= 8:
        high = max(high, 1 - scipy_stats.chi2.ppf(0.05, 2 * (n - successes)) / 2 / n)
    assert wilson(successes, n) == pytest.approx((low, high), abs=1e-9)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_edge_bound_is_half_the_chi_square_quantile(count):
    """Brown, Cai and DasGupta's lower bound for x = 1 to 3: chi2(0.05; 2x) / 2 / n, where lower than Wilson's."""
    assert poisson_lower(count, 0.05) == pytest.approx(scipy_stats.chi2.ppf(0.05, 2 * count) / 2, abs=1e-9)
    n = 40
    assert wilson(count, n)[0] == pytest.approx(min(scipy_stats.binomtest(count, n).proportion_ci(
        0.95, method="wilson").low, scipy_stats.chi2.ppf(0.05, 2 * count) / 2 / n), abs=1e-9)


@pytest.mark.parametrize("failing, passing", [(int(a), int(b)) for a, b in RNG.integers(0, 40, size=(25, 2))])
def test_mcnemar_exact_is_scipys_exact_binomial_test_at_one_half(failing, passing):
    expected = 1.0 if failing + passing == 0 else scipy_stats.binomtest(failing, failing + passing, 0.5).pvalue
    assert mcnemar_exact(failing, passing) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("successes, n, prior", [(0, 10, 0.5), (3, 10, 0.5), (20, 20, 0.5), (7, 50, 0.25)])
def test_posterior_draws_follow_scipys_beta(successes, n, prior):
    draws = jeffreys_draws(successes, n, 200_000, np.random.default_rng(1), prior)
    expected = scipy_stats.beta.ppf([0.025, 0.5, 0.975], successes + prior, n - successes + prior)
    assert np.percentile(draws, [2.5, 50, 97.5]) == pytest.approx(expected, abs=4e-3)


def test_item_bootstrap_matches_scipys_percentile_bootstrap():
    """The mean of 60 skewed values: resampled_sums' percentile interval and scipy.stats.bootstrap's agree to
    within the Monte Carlo error of 10,000 resamples."""
    values = np.random.default_rng(3).exponential(size=60)
    ours = percentile_interval(resampled_sums(values, "reference")[:, 0] / len(values))
    theirs = scipy_stats.bootstrap((values,), np.mean, method="percentile", n_resamples=10_000,
                                   random_state=np.random.default_rng(4)).confidence_interval
    assert ours == pytest.approx((theirs.low, theirs.high), abs=0.02)


def test_folded_difference_interval_holds_a_zero_difference_and_newcombes_ends():
    """Two rates of 30/100 and 45/100: the Jeffreys difference's interval is close to Newcombe's hybrid score
    interval (from the two Wilson intervals), and folded it is that interval's absolute value."""
    rng = np.random.default_rng(5)
    draws = jeffreys_draws(30, 100, 200_000, rng) - jeffreys_draws(45, 100, 200_000, rng)
    (l1, u1), (l2, u2) = wilson(30, 100), wilson(45, 100)
    delta = 0.30 - 0.45
    newcombe = (delta - np.hypot(0.30 - l1, u2 - 0.45), delta + np.hypot(u1 - 0.30, 0.45 - l2))
    assert percentile_interval(draws) == pytest.approx(newcombe, abs=0.01)
    assert folded_interval([draws]) == pytest.approx((-newcombe[1], -newcombe[0]), abs=0.01)
    same = jeffreys_draws(30, 100, 200_000, rng) - jeffreys_draws(30, 100, 200_000, rng)
    assert folded_interval([same])[0] == 0.0


def test_holm_by_hand():
    """p 0.01, 0.04, 0.03, 0.2 over m = 4: sorted 0.01 x 4 = 0.04, 0.03 x 3 = 0.09, 0.04 x 2 = 0.08 -> 0.09 (kept
    monotone), 0.2 x 1 = 0.2."""
    assert holm([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert holm([0.5, 0.9]) == [1.0, 1.0] and holm([]) == []
