from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pytest_trust.benchmarks.rules import aggregate, metric_keys
from pytest_trust.items import Result, Verdict
from pytest_trust.results import stats
from pytest_trust.results.gates import Gate, evaluate
from pytest_trust.results.stats import (
    BOOTSTRAP_RESAMPLES,
    Z95,
    Studentized,
    bootstrap_mean_of_rates,
    bootstrap_weighted_rates,
    effective_wilson,
    mean_of_folded,
    percentile_interval,
    resampled_sums,
    rng_for,
    wilson,
    z_of,
)

SERIAL = itertools.count()


def test_wilson_matches_hand_computed_values():
    # 5/10 at z=1.96: centre (0.5 + 0.19207)/1.38415 = 0.5, half 1.96 * sqrt(0.025 + 0.0096) / 1.38415 = 0.26340
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(5, 5)[1] == 1.0


def test_wilson_near_the_edges_takes_the_one_sided_poisson_bound():
    """8/10: Wilson's own (centre 0.71674, half 0.22656) would end at 0.9433; 2 failures of 10 take
    1 - m / 10 instead, m the Poisson mean below which 2 or more events have probability under 0.05:
    1 - e^-m (1 + m) = 0.05 at m = 0.35536 (half the 5% quantile of chi-square on 4 degrees of freedom)."""
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(1 - 0.035536, abs=1e-5)
    assert wilson(1, 10)[0] == pytest.approx(0.0051293, abs=1e-6)  # 1 - e^-m = 0.05: m = -ln 0.95 = 0.051293
    # 3 of 10: Wilson's own low 0.1078 (centre 0.35549, half 0.24769); 1 - e^-m (1 + m + m^2 / 2) = 0.05 at m = 0.81770
    assert wilson(3, 10)[0] == pytest.approx(0.081770, abs=1e-5)
    assert wilson(4, 10)[0] == pytest.approx(0.1682, abs=1e-4)  # 4 of 10 is Wilson's own: centre 0.42774, half 0.25950


def test_wilson_above_100_items_takes_the_poisson_bound_up_to_8_and_ends_exactly_at_0_and_1():
    """8 of 1,000: Wilson's own low is 0.004059 (centre 0.009909, half 0.005850), above a true rate of 0.00405
    that shows 8 or more in 4.9% of runs; the Poisson bound is half the 5% quantile of chi-square on 16 degrees
    of freedom, 7.9616 / 2 = 3.9808, over 1,000. 9 of 1,000 is Wilson's own (centre 0.010879, half 0.006137);
    at 100 items the bound stops at 3 (Brown, Cai and DasGupta)."""
    assert wilson(8, 1000)[0] == pytest.approx(0.0039808, abs=1e-6)
    assert wilson(9, 1000)[0] == pytest.approx(0.004742, abs=1e-6)
    assert wilson(992, 1000)[1] == pytest.approx(1 - 0.0039808, abs=1e-6)
    assert wilson(8, 100)[0] == pytest.approx(0.04109, abs=1e-5)  # Wilson's own: centre 0.09554, half 0.05444
    # no float residue above the estimate at 0/n and below it at n/n (it was 2.2e-19 at 0/1,000)
    assert wilson(0, 1000)[0] == 0.0 and wilson(1000, 1000)[1] == 1.0


def test_effective_wilson_is_wilsons_interval_at_the_design_effects_sample_size():
    """A share of 0.05 with the variance of 300 independent answers, 0.05 x 0.95 / 300, is Wilson's 15 of 300
    (centre (0.05 + 0.0064025) / 1.012805 = 0.055691, half 1.96 sqrt(0.00015833 + 0.00001067) / 1.012805 =
    0.025158); at a third of that variance, n = 900 (45 of 900: centre 0.051914, half 0.014337). An effective
    count of 2.4 (0.008 at n = 300) takes the Poisson bound of 2, 0.35536 / 300. No spread, no interval."""
    assert effective_wilson(0.05, 0.05 * 0.95 / 300) == pytest.approx((0.030533, 0.080849), abs=1e-5)
    assert effective_wilson(0.05, 0.05 * 0.95 / 900) == pytest.approx((0.037577, 0.066251), abs=1e-5)
    assert effective_wilson(0.008, 0.008 * 0.992 / 300)[0] == pytest.approx(0.35536 / 300, abs=1e-6)
    assert effective_wilson(0.3, 0.0) == (0.3, 0.3) and effective_wilson(0.0, 0.01) == (0.0, 0.0)


def test_a_mean_of_rates_draws_each_rate_with_its_estimates_variance():
    """One rate of 5/10 (prior Jeffreys' 1/2): the posterior mean m = 0.5 and the draws' variance m (1 - m) / n =
    0.025, not the posterior's 0.25 / 12 = 0.0208; at 0/10, m = 0.5 / 11 and the variance m (1 - m) / 10."""
    draws = bootstrap_mean_of_rates([(5, 10)], resamples=200_000).draws
    assert draws.mean() == pytest.approx(0.5, abs=0.002) and draws.var() == pytest.approx(0.025, rel=0.02)
    m = 0.5 / 11
    draws = bootstrap_mean_of_rates([(0, 10)], resamples=200_000).draws
    assert draws.mean() == pytest.approx(m, rel=0.02) and draws.var() == pytest.approx(m * (1 - m) / 10, rel=0.03)


def test_outcome_shares_are_the_dirichlet_posterior_under_perks_prior():
    """Counts (3, 0, 1) with 1/3 of an item's prior on each outcome: Dirichlet(10/3, 1/3, 4/3), means 10/15, 1/15,
    4/15; the unseen outcome's share varies (variance a (a0 - a) / (a0^2 (a0 + 1)) = (1/3)(14/3) / (25 x 6))."""
    shares = stats.outcome_shares([3, 0, 1], "k", 200_000)
    assert shares.mean(axis=0) == pytest.approx([10 / 15, 1 / 15, 4 / 15], abs=0.003)
    assert shares[:, 1].var() == pytest.approx((1 / 3) * (14 / 3) / (25 * 6), rel=0.03)
    assert np.array_equal(shares, stats.outcome_shares([3, 0, 1], "k", 200_000))  # seeded by its key


def test_bootstrap_is_seeded_and_brackets_the_mean():
    groups = [(20, 25), (10, 25), (30, 39), (5, 39)]
    first = bootstrap_mean_of_rates(groups)
    assert first == bootstrap_mean_of_rates(groups)
    mean = (20 / 25 + 10 / 25 + 30 / 39 + 5 / 39) / 4
    assert first[0] < mean < first[1]
    low, high = bootstrap_mean_of_rates([(25, 25), (0, 25)])  # 25/25 and 0/25 are not known to be 1 and 0
    assert low < 0.5 < high and high - low > 0.02


def result(suite, behavior, bucket, passed, category="round_1"):
    facts = {"suite": suite, "behavior": behavior, "bucket": bucket, "category": category}
    return Result(f"{suite}/{behavior}/{next(SERIAL)}", Verdict(passed), facts)


def test_rules_aggregate_matches_hand_computed_values():
    results = [
        result("basic", "Encryption", "harmless", True), result("basic", "Encryption", "harmless", False),
        result("basic", "Integrity", "helpful", True),
        result("redteam", "Encryption", "harmless", True, "Just Ask"),
        result("redteam", "Integrity", "helpful", False, "Rule change"),
        result("redteam", "Integrity", "helpful", True, "Rule change"),
        result("benign", "Encryption", "harmless", True), result("benign", "Integrity", "helpful", False),
    ]
    m = aggregate(results)
    assert m["rules.basic.harmless"].value == 0.5 and m["rules.basic.harmless"].n == 2
    assert m["rules.redteam.helpful"].value == 0.5
    # headline: mean of basic harmless 1/2, basic helpful 1/1, redteam harmless 1/1, redteam helpful 1/2
    assert m["rules.score"].value == pytest.approx((0.5 + 1 + 1 + 0.5) / 4) and m["rules.score"].n == 6
    assert m["rules.benign_score"].value == pytest.approx(0.5)
    assert m["rules.redteam.category.rule_change"].value == 0.5 and m["rules.redteam.category.just_ask"].n == 1
    assert m["rules.basic.behavior.Encryption"].value == 0.5
    assert m["rules.benign.helpful"].value == 0.0 and m["rules.benign.helpful"].n == 1
    assert set(m) <= set(metric_keys())


def test_partial_runs_leave_the_headline_out():
    m = aggregate([result("basic", "Encryption", "harmless", True)])
    assert "rules.score" not in m and m["rules.basic.harmless"].value == 1.0


def test_weighted_bootstrap_with_equal_weights_matches_the_mean_of_rates_interval():
    groups = [(30, 40), (10, 50), (45, 45)]
    equal = bootstrap_weighted_rates([(1 / 3, s, n) for s, n in groups])
    assert equal == pytest.approx(bootstrap_mean_of_rates(groups), abs=1e-12)


def test_weighted_bootstrap_applies_weights_and_offset():
    # 1 - the rate of a 0/10 group: 1 - a draw of Beta(m 9, (1 - m) 9), m = 0.5 / 11 the mean of Jeffreys'
    # posterior (stats.rate_draws); its 2.5 and 97.5 percentiles are 1.1e-5 and 0.2375 (beta.ppf), so the
    # interval is about [0.7625, 1.0]
    low, high = bootstrap_weighted_rates([(-1.0, 0, 10)], offset=1.0)
    assert low == pytest.approx(1 - 0.2375, abs=0.01) and high == pytest.approx(1.0, abs=1e-3)
    low, high = bootstrap_weighted_rates([(0.9, 5, 10), (0.1, 10, 10)])
    assert 0.1 < low < 0.55 < high < 1.0  # centred near 0.9 * 0.5 + 0.1 = 0.55


def test_z_of_a_level_is_the_two_sided_normal_quantile():
    assert z_of(0.95) == Z95 and z_of(0.5) == pytest.approx(0.674490, abs=1e-6)
    assert z_of(0.99) == pytest.approx(2.575829, abs=1e-6)


def test_resampled_sums_of_two_units_follow_the_binomial_by_hand():
    """Two units worth 1 and 0, redrawn twice with replacement: sums 0, 1, 2 with probabilities 1/4, 1/2, 1/4, so
    the 95% percentile interval of the mean is [0, 1] and its 40% interval (30th to 70th) [0.5, 0.5]."""
    sums = resampled_sums([[1.0], [0.0]], "a stratum")[:, 0]
    assert {0.0: 0.25, 1.0: 0.5, 2.0: 0.25} == {k: pytest.approx(np.mean(sums == k), abs=0.02) for k in (0.0, 1.0, 2.0)}
    assert percentile_interval(sums / 2) == (0.0, 1.0) and percentile_interval(sums / 2, 0.4) == (0.5, 0.5)
    assert np.array_equal(sums, resampled_sums([[0.0], [1.0]], "a stratum")[:, 0])  # seeded by the stratum's name
    assert not np.array_equal(sums, resampled_sums([[1.0], [0.0]], "another stratum")[:, 0])


def test_resampled_sums_draw_indices_for_many_distinct_units_with_the_same_law():
    """100 distinct units (above the multinomial's cut-off): the draws' mean is the units' sum, their spread
    sqrt(n) x the units' population standard deviation (28.87 for 0..99 over 100 draws: 288.7)."""
    units = np.arange(100.0)
    sums = resampled_sums(units, "many")[:, 0]
    assert sums.mean() == pytest.approx(units.sum(), rel=0.005)
    assert sums.std() == pytest.approx(np.sqrt(100) * units.std(), rel=0.03)
    together = resampled_sums(np.stack([units, 2 * units], axis=1), "many")  # columns move together
    assert np.array_equal(together[:, 1], 2 * together[:, 0])


def test_resampled_sums_of_many_units_are_the_int64_draws_sums_across_chunks(monkeypatch):
    """The index draws are int32 to halve their memory; numpy draws a bounded int32 exactly as that int64, so the sums
    are the ones the int64 draws gave, chunk after chunk (chunks of 3 resamples of 300 units, then the rest)."""
    units = np.random.default_rng(3).random((300, 2))
    monkeypatch.setattr(stats, "CHUNK", 900)  # 3 resamples a chunk
    got = resampled_sums(units, "chunks", resamples=10)
    rng = rng_for("chunks")
    drawn = [rng.integers(0, 300, size=(rows, 300)) for rows in (3, 3, 3, 1)]
    expected = np.concatenate([np.stack([units[:, 0][d].sum(axis=1), units[:, 1][d].sum(axis=1)], axis=1)
                               for d in drawn])
    assert np.array_equal(got, expected)  # the same floats, not merely close ones


def test_studentized_value_and_draws_of_a_weighted_sum_of_means():
    boot = Studentized([[0.2, 0.6], [0.1, 0.1, 0.4]], [-0.5, -0.5], 1.0, "two")
    assert boot.value == pytest.approx(1 - (0.4 + 0.2) / 2)  # 0.7
    assert boot.se == pytest.approx(math.sqrt(0.25 * 0.08 / 2 + 0.25 * 0.03 / 3))  # sample variances 0.08, 0.03
    assert boot.draws.mean() == pytest.approx(boot.value, abs=0.005)  # resampled means are unbiased


def test_studentized_interval_is_the_t_interval_for_symmetric_data_and_leans_with_skew():
    symmetric = np.random.default_rng(1).normal(0.5, 0.1, 400)
    low, high = Studentized([symmetric], [1.0], 0.0, "normal").interval()
    half = 1.96 * symmetric.std(ddof=1) / math.sqrt(400)
    assert low == pytest.approx(symmetric.mean() - half, rel=0.01) and high == pytest.approx(symmetric.mean() + half, rel=0.01)
    assert Studentized([symmetric], [1.0], 0.0, "normal").interval(0.8)[1] < high  # a lower level, a narrower interval
    skewed = np.minimum(1.0, 0.995 - np.random.default_rng(2).exponential(0.03, 100))  # maxima near 1, a long low tail
    boot = Studentized([skewed], [1.0], 0.0, "skewed")
    low, high = boot.interval()
    assert boot.value - low > high - boot.value  # the interval reaches further into the long tail



def test_studentized_interval_takes_the_b_plus_1_times_tail_th_t():
    """With 39 resamples the 2.5% and 97.5% points are the 1st and 39th of 40 places: the smallest and largest
    t exactly (np.quantile's default interpolates 0.95 of the way to the 2nd, one draw inside the tail)."""
    boot = Studentized([[0.01, 0.02, 0.02, 0.05, 0.3, 0.04, 0.03, 0.01, 0.0, 0.12]], [1.0], 0.0, "order", 39)
    assert len(boot.t) == 39
    assert boot.interval() == pytest.approx((boot.value - boot.t.max() * boot.se, boot.value - boot.t.min() * boot.se))


def test_studentized_without_spread_is_its_estimate():
    boot = Studentized([[0.3] * 20], [1.0], 0.0, "same")
    assert boot.se == 0 and boot.interval() == (boot.value, boot.value) == pytest.approx((0.3, 0.3))


def test_a_bootstrap_headline_keeps_its_draws_for_other_confidence_levels():
    results = [result(suite, "Encryption", bucket, passed)
               for suite in ("basic", "redteam") for bucket in ("harmless", "helpful")
               for passed in (True, True, False) * 10]
    score = aggregate(results)["rules.score"]
    assert score.draws is not None and len(score.draws) == BOOTSTRAP_RESAMPLES
    assert score.interval(0.95) == (score.low, score.high)
    low90, high90 = score.interval(0.9)
    assert score.low < low90 < score.value < high90 < score.high
    assert (low90, high90) == pytest.approx(tuple(np.percentile(score.draws, [5, 95])))
    gate, = evaluate([Gate("rules.score", min=low90 - 0.01, confidence=0.9)], {"rules.score": score})
    assert gate.status == "PASS"


def test_mean_of_folded_reaches_0_only_through_terms_that_may_be_0():
    rng = np.random.default_rng(3)
    near_0, far = rng.normal(0.0, 0.05, 10_000), rng.normal(0.5, 0.05, 10_000)
    both = (np.abs(near_0) + np.abs(far)) / 2
    low, high = mean_of_folded([(0.5, [near_0]), (0.5, [far])], both)
    assert low == pytest.approx(percentile_interval(np.abs(far) / 2)[0])  # the first term may be 0: left out
    assert low < percentile_interval(both)[0] and high == percentile_interval(both)[1]
    assert mean_of_folded([(1.0, [near_0])], np.abs(near_0))[0] == 0.0  # a single difference that may be 0
    away = (np.abs(far) + np.abs(far + 0.1)) / 2  # neither may be 0: the percentile interval itself
    assert mean_of_folded([(0.5, [far]), (0.5, [far + 0.1])], away) == percentile_interval(away)


def test_a_bootstrap_t_interval_is_cut_to_where_the_quantity_can_lie():
    """Twenty per-prompt maxima nearly all 1: resamples of them have almost no spread, and their t once scaled a
    rate's interval down to -459."""
    from pytest_trust.results.stats import Studentized

    maxima = [1.0] * 18 + [0.99, 0.96]
    free = Studentized([maxima], [1.0], 0.0, "cut").interval()
    low, high = Studentized([maxima], [1.0], 0.0, "cut", bounds=(0.0, 1.0)).interval()
    assert 0.0 <= low <= sum(maxima) / 20 <= high == 1.0
    assert (low, high) == (max(free[0], 0.0), min(free[1], 1.0))
