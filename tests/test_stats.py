from __future__ import annotations

import itertools

import numpy as np
import pytest

from pytest_trust.benchmarks.rules import aggregate, metric_keys
from pytest_trust.gates import Gate, evaluate
from pytest_trust.items import Result, Verdict
from pytest_trust.stats import (
    BOOTSTRAP_RESAMPLES,
    Z95,
    bootstrap_mean_of_rates,
    bootstrap_weighted_rates,
    percentile_interval,
    resampled_max,
    resampled_sums,
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
    # 1 - the rate of a 0/10 group: 1 - a draw of Beta(0.5, 10.5), Jeffreys' posterior; its 2.5 and 97.5
    # percentiles are 4.8e-5 and 0.2172 (beta.ppf), so the interval is about [0.7828, 1.0]
    low, high = bootstrap_weighted_rates([(-1.0, 0, 10)], offset=1.0)
    assert low == pytest.approx(1 - 0.2172, abs=0.01) and high == pytest.approx(1.0, abs=1e-3)
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


def test_resampled_max_of_two_values():
    draws = resampled_max([0.2, 0.6], "prompt")  # misses 0.6 with probability 1/4
    assert set(np.unique(draws)) == {0.2, 0.6} and np.mean(draws == 0.2) == pytest.approx(0.25, abs=0.02)


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
