from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import HODOR_SUITE, hodor_ids
from test_plugin import record, run

from pytest_trust.benchmarks.spec import Names
from pytest_trust.errors import ThresholdsError
from pytest_trust.results.gates import Gate, evaluate, family, load_thresholds
from pytest_trust.results.metrics import Metric

KEYS = ["rules.score", "rules.benign_score", "rules.basic.harmless"]


def load(tmp_path, text, model="m"):
    path = tmp_path / "thresholds.yaml"
    path.write_text(text)
    return load_thresholds(path, model, KEYS)


def test_model_block_overrides_default(tmp_path):
    t = load(tmp_path, """
settings: {soft: true}
default:
  rules.score: {min: 0.5}
  rules.basic.harmless: {min: 0.2, max: 0.9}
models:
  m:
    rules.score: {min: 0.1}
  other:
    rules.score: {min: 0.9}
""")
    assert t.settings == {"soft": True}
    assert sorted(t.gates, key=lambda g: g.key) == [Gate("rules.basic.harmless", 0.2, 0.9), Gate("rules.score", 0.1)]


def test_gate_statuses():
    gates = [Gate("rules.score", min=0.5), Gate("rules.benign_score", max=0.2), Gate("rules.basic.harmless", 0.1),
             Gate("ood.score", min=0.3), Gate("ood.error_rate", max=0.0)]
    results = evaluate(gates, {"rules.score": Metric(0.5), "rules.benign_score": Metric(0.3)})
    assert [(r.status, r.blocks) for r in results] == [
        ("PASS", False), ("FAIL", True),
        ("NOT COMPUTED", True),  # rules ran (other rules metrics exist), this one is missing: a partial selection
        ("NOT SELECTED", False), ("NOT SELECTED", False)]  # no ood item was scored at all
    assert "rules ran, but not the items it needs" in results[2].reason and "--trust-partial" in results[2].reason


def test_partial_and_undefined_metrics_are_not_computed_and_block_unless_partial_runs_are_allowed():
    gates = [Gate("fairness.score", min=0.1), Gate("machine_ethics.score", min=0.1)]
    metrics = {"fairness.score": Metric(0.9, kind="value", partial="crime_br_0.0 (20 of 200 items)"),
               "machine_ethics.score": Metric(float("nan"), n=20)}
    strict = evaluate(gates, metrics)
    assert [(r.status, r.blocks) for r in strict] == [("NOT COMPUTED", True), ("NOT COMPUTED", True)]
    assert "partial (crime_br_0.0 (20 of 200 items))" in strict[0].reason
    assert "undefined (NaN) on the 20 items scored" in strict[1].reason
    allowed = evaluate(gates, metrics, allow_partial=True)
    assert [(r.status, r.blocks) for r in allowed] == [("NOT COMPUTED", False), ("NOT COMPUTED", False)]
    assert "allowed by --trust-partial" in allowed[0].reason


def test_gcg_attacked_cases_alone_do_not_select_the_rest_of_rules_v1():
    """-m rules_gcg runs a suite with metrics of its own: a gate on the rest of rules_v1 is not selected, while
    a GCG gate on a rule that was deselected is not computed."""
    metrics = {"rules_v1.gcg.failure_rate": Metric(0.2), "rules_v1.gcg.behavior.Hodor.failure_rate": Metric(0.4),
               "rules_v1.error_rate": Metric(0.0)}
    results = evaluate([Gate("rules_v1.justask", min=0.4), Gate("rules_v1.gcg.behavior.Encryption.failure_rate", max=1.0),
                        Gate("rules_v1.error_rate", max=0.0)], metrics)
    assert [r.status for r in results] == ["NOT SELECTED", "NOT COMPUTED", "PASS"]
    assert family("rules_v1.gcg.failure_rate") == "rules_v1.gcg" and family("rules_v1.justask.helpful") == "rules_v1"


def test_a_family_of_keys_the_project_names_takes_any_name_and_an_undefined_one_fails_whatever_ran(tmp_path):
    """``bench.rule.*`` (a benchmark's NamedKeys, as custom_rules declares its rules'): any one name is a key when
    pytest starts; misspelt fixed keys and families are still refused; at the end of the run a gate on a name
    the project does not define is NOT COMPUTED and blocks, even with --trust-partial and with bench unselected."""
    valid = [*KEYS, "bench.score", "bench.rule.*"]
    path = tmp_path / "thresholds.yaml"
    path.write_text("default:\n  bench.rule.my-rule_2: {min: 0.8}\n  bench.rule.gone: {min: 0.5}\n"
                    "  bench.rule.kept: {min: 0.5}\n  bench.score: {min: 0.5}\n")
    gates = load_thresholds(path, None, valid).gates
    assert [g.key for g in gates] == ["bench.rule.my-rule_2", "bench.rule.gone", "bench.rule.kept", "bench.score"]
    for key, told in (("bench.rules.my-rule", "did you mean 'bench.rule.my-rule'?"),
                      ("bench.scroe", "did you mean 'bench.score'?"),
                      ("bench.rule.*", "bench.rule names a family of keys, not one metric"),
                      ("bench.rule", "bench.rule names a family of keys, not one metric"),
                      ("bench.rule.a.b", "unknown metric key 'bench.rule.a.b'")):
        path.write_text(f"default:\n  {key}: {{min: 0.5}}\n")
        with pytest.raises(ThresholdsError, match=re.escape(told)):
            load_thresholds(path, None, valid)
    names = {"bench.rule": Names("rule", "rules.yaml", ("my-rule_2", "kept"))}
    metrics = {"bench.rule.my-rule_2": Metric(0.9), "bench.score": Metric(0.9)}
    for allow_partial in (False, True):
        results = evaluate(gates, metrics, allow_partial, names=names)
        assert [(r.status, r.blocks) for r in results] == [
            ("PASS", False), ("NOT COMPUTED", True),  # undefined: blocks even with --trust-partial
            ("NOT COMPUTED", not allow_partial), ("PASS", False)]  # defined, but not run: a partial selection
        assert results[1].reason == "no rule 'gone' in rules.yaml (its rules: my-rule_2, kept): correct the key, or " \
                                    "remove the gate"
    unselected = evaluate(gates, {"rules.score": Metric(0.5)}, names=names)
    assert [r.status for r in unselected] == ["NOT SELECTED", "NOT COMPUTED", "NOT SELECTED", "NOT SELECTED"]
    unknown = evaluate(gates, {}, names={})  # the names cannot be read (no file): nothing is said of them
    assert [r.status for r in unknown] == ["NOT SELECTED"] * 4


@pytest.mark.parametrize("text, message", [
    ("default:\n  rules.scor: {min: 0.5}\n", "line 2: default.rules.scor: unknown metric key"),
    ("default:\n  rules.score: 0.5\n", "line 2: default.rules.score: a bound is"),
    ("default:\n  rules.score: {min: high}\n", "min must be a number"),
    ("default:\n  rules.score: {min: 0.9, max: 0.1}\n", "min 0.9 is above max 0.1"),
    ("default:\n  rules.score: {minimum: 0.9}\n", "a bound is"),
    ("defaults:\n  rules.score: {min: 0.9}\n", "line 1: defaults: unknown section"),
    ("settings: {strict: true}\n", "unknown setting"),
    ("default: [\n", "not valid YAML"),
    ("models:\n  other:\n    rules.nope: {min: 1}\n", "line 3: models.other.rules.nope: unknown metric key"),
    ("default:\n  rules.score: {min: 85}\n", ("min 85 is outside [0, 1]: every metric is a fraction (a score of "
                                              "87.55% is 0.8755); 85 looks like a percentage: write 0.85")),
    ("default:\n  rules.score: {max: -0.1}\n", "line 2: default.rules.score: max -0.1 is outside [0, 1]"),
    ("default:\n  rules.score: {min: 0.5}\n  rules.score: {min: 0.9}\n",
     "line 3: default.rules.score: duplicate key (first at line 2)"),
    ("models:\n  m:\n    rules.score: {min: 0.5}\n  m:\n    rules.score: {min: 0.6}\n",
     "line 4: models.m: duplicate key (first at line 2)"),
])
def test_bad_files_are_one_clear_error(tmp_path, text, message):
    with pytest.raises(ThresholdsError) as err:
        load(tmp_path, text)
    assert message in str(err.value) and "thresholds.yaml" in str(err.value)


def test_unknown_key_lists_the_valid_ones(tmp_path):
    with pytest.raises(ThresholdsError) as err:
        load(tmp_path, "default:\n  rules.scor: {min: 0.5}\n")
    assert "valid metric keys:" in str(err.value)
    assert all(key in str(err.value) for key in KEYS)


def test_no_file_means_no_gates():
    assert load_thresholds(None, "m", KEYS).gates == ()


def test_an_unknown_key_lists_its_benchmarks_keys_closest_first_not_thousands(tmp_path):
    keys = ["stereotype.score", "stereotype.benign.agreeability", "stereotype.targeted.agreeability",
            *[f"stereotype.benign.cell.g{i}.t{i}" for i in range(100)], "rules.score"]
    path = tmp_path / "thresholds.yaml"
    path.write_text("default:\n  stereotype.targeted.agreeabilty: {max: 0.1}\n")
    with pytest.raises(ThresholdsError) as err:
        load_thresholds(path, None, keys)
    listed = str(err.value).split("valid metric keys:\n")[1].split("\n")
    assert listed[0].strip() == "stereotype.targeted.agreeability"
    assert "  rules.score" not in listed and listed[-1].strip() == "... 100 more under stereotype.*"


def test_a_bound_of_1000_gets_no_percentage_hint(tmp_path):
    with pytest.raises(ThresholdsError) as err:
        load(tmp_path, "default:\n  rules.score: {min: 1000}\n")
    assert "outside [0, 1]" in str(err.value) and "percentage" not in str(err.value)


def test_invalid_utf8_is_one_clear_error(tmp_path):
    path = tmp_path / "thresholds.yaml"
    path.write_bytes(b"default:\n  rules.score: {min: 0.5}  # caf\xe9\n")
    with pytest.raises(ThresholdsError) as err:
        load_thresholds(path, "m", KEYS)
    assert str(err.value) == f"thresholds file {path} line 2: not UTF-8 text (byte 0xe9); save it as UTF-8"


# --- confidence gates: PASS, FAIL or INCONCLUSIVE on the interval at the gate's level ---------------------------

def test_a_confidence_gate_compares_the_whole_interval_with_the_bound():
    """Wilson intervals of 8/10, computed by hand in test_stats: [0.4902, 0.9433] at 95%."""
    eight = {"rules.score": Metric(0.8, 0.4902, 0.9433, 10)}
    statuses = [(r.status, r.blocks) for r in evaluate([
        Gate("rules.score", min=0.45, confidence=0.95),  # wholly above 0.45
        Gate("rules.score", min=0.95, confidence=0.95),  # wholly below 0.95
        Gate("rules.score", min=0.5, confidence=0.95),  # straddles 0.5 (the value alone would pass)
        Gate("rules.score", max=0.5, confidence=0.95),  # straddles 0.5 from the other side
        Gate("rules.score", max=0.45, confidence=0.95),  # wholly above a maximum of 0.45
        Gate("rules.score", min=0.5, confidence=0.95, inconclusive_blocks=False),
    ], eight)]
    assert statuses == [("PASS", False), ("FAIL", True), ("INCONCLUSIVE", True), ("INCONCLUSIVE", True),
                        ("FAIL", True), ("INCONCLUSIVE", False)]


def test_a_confidence_gate_reads_the_interval_at_its_own_level():
    """8/10 at 50%: z = 0.67449, z^2 = 0.45494; Wilson centre (0.8 + 0.02275) / 1.04549 = 0.78695, half
    0.67449 x sqrt(0.016 + 0.00114) / 1.04549 = 0.08446: [0.7025, 0.8714], above 0.6 at 50%, not at 95%
    (whose low end is 0.4902)."""
    metric = Metric(0.8, 0.4902, 0.9433, 10)
    assert metric.interval(0.5) == pytest.approx((0.7025, 0.8714), abs=1e-4)
    at_50, at_95 = evaluate([Gate("rules.score", min=0.6, confidence=0.5), Gate("rules.score", min=0.6,
                                                                                 confidence=0.95)],
                            {"rules.score": metric})
    assert (at_50.status, at_95.status) == ("PASS", "INCONCLUSIVE")
    assert at_50.interval == pytest.approx((0.7025, 0.8714), abs=1e-4)
    assert "95% interval [0.4902, 0.9433] straddles >= 0.6 at 95%" in at_95.reason
    assert at_50.to_dict()["confidence"] == 0.5 and at_50.to_dict()["interval"] == pytest.approx([0.7025, 0.8714],
                                                                                                  abs=1e-4)


def test_a_bootstrap_metric_gives_other_levels_from_its_draws_and_blocks_without_them():
    draws = np.arange(1, 1001) / 1000  # 0.001 ... 1.0: the 5th and 95th percentiles are 0.05095 and 0.95005
    metric = Metric(0.5, 0.025, 0.975, 1000, kind="mean", draws=draws)
    assert metric.interval(0.9) == pytest.approx((0.05095, 0.95005))
    read_back = Metric(**metric.to_dict())  # what a JSON report keeps: the 95% interval only
    assert read_back.interval(0.95) == (0.025, 0.975) and read_back.interval(0.9) is None
    result, = evaluate([Gate("rules.score", min=0.01, confidence=0.9)], {"rules.score": read_back})
    assert (result.status, result.blocks) == ("NOT COMPUTED", True) and "write confidence: 0.95" in result.reason
    weight, = evaluate([Gate("rules.score", min=0.01, confidence=0.95)], {"rules.score": Metric(0.3, kind="value")})
    assert weight.status == "NOT COMPUTED" and "no interval (a constant)" in weight.reason


def test_confidence_and_the_inconclusive_setting_are_read_and_checked(tmp_path):
    t = load(tmp_path, "settings: {inconclusive: pass}\ndefault:\n  rules.score: {min: 0.4, confidence: 0.9}\n")
    assert t.gates == (Gate("rules.score", 0.4, confidence=0.9, inconclusive_blocks=False),)
    assert load(tmp_path, "default:\n  rules.score: {min: 0.4, confidence: 0.9}\n").gates[0].inconclusive_blocks
    assert Gate("rules.score", 0.4, confidence=0.9).bound == ">= 0.4 at 90%"


@pytest.mark.parametrize("text, message", [
    ("default:\n  rules.score: {min: 0.4, confidence: 95}\n",
     "confidence must be a level between 0 and 1 (say 0.95), not 95; 95 looks like a percentage: write 0.95"),
    ("default:\n  rules.score: {min: 0.4, confidence: 1}\n", "confidence must be a level between 0 and 1"),
    ("default:\n  rules.score: {confidence: 0.9}\n", "a bound is {min: X}, {max: X} or both, optionally"),
    ("settings: {inconclusive: warn}\n", "settings.inconclusive: must be block (an INCONCLUSIVE gate fails the run)"),
])
def test_bad_confidence_or_inconclusive_setting_is_one_clear_error(tmp_path, text, message):
    with pytest.raises(ThresholdsError) as err:
        load(tmp_path, text)
    assert message in str(err.value)


@pytest.fixture
def hodor_all_pass(pytester):
    """Every Hodor case recorded and passing: rules_v1.systematic is 30/30, Wilson low end 1 / (1 + z^2 / n) = 0.8865
    at 95%; rules_v1.systematic.category.indirection 5/5, low end 0.9166 at 50% (z^2 = 0.45494)."""
    assert (len(hodor_ids()), len(hodor_ids("Indirection"))) == (30, 5)
    pytester.makepyfile(test_suite=HODOR_SUITE)
    record(pytester, "Hodor")
    return pytester


@pytest.mark.parametrize("setting, code, summary", [
    ("", pytest.ExitCode.TESTS_FAILED, "gates FAILED: 0 passed, 0 failed, 2 inconclusive"),
    ("settings: {inconclusive: block}\n", pytest.ExitCode.TESTS_FAILED, "gates FAILED: 0 passed, 0 failed, 2 inconclusive"),
    ("settings: {inconclusive: pass}\n", pytest.ExitCode.OK,
     "gates passed: 0 passed, 0 failed, 2 inconclusive (not blocking)"),
])
@pytest.mark.slow
def test_an_inconclusive_gate_blocks_the_run_unless_the_setting_lets_it_pass(hodor_all_pass, setting, code, summary):
    """30 of 30 pass: Wilson's 95% interval [0.8865, 1] straddles 0.9. The 5 indirection items are too few for an
    interval that holds (metrics.MIN_N): a confidence gate on them is inconclusive, not PASS, at any level."""
    hodor_all_pass.path.joinpath("thresholds.yaml").write_text(
        setting + "default:\n  rules_v1.systematic: {min: 0.9, confidence: 0.95}\n"
                  "  rules_v1.systematic.category.indirection: {min: 0.9, confidence: 0.5}\n")
    result = run(hodor_all_pass, "--block-network", "--trust-report", "r.json", "--junitxml", "j.xml")
    assert result.ret == code
    result.stdout.fnmatch_lines(["rules_v1.systematic *>= 0.9 at 95%*100.00%*INCONCLUSIVE",
                                 "rules_v1.systematic.category.indirection *>= 0.9 at 50%*100.00%*INCONCLUSIVE",
                                 "rules_v1.systematic inconclusive: 95% interval [[]0.8865, 1[]] straddles >= 0.9 at 95%*",
                                 "rules_v1.systematic.category.indirection inconclusive: no interval (n too small: 5 < 10)*",
                                 summary])
    gates = json.loads(hodor_all_pass.path.joinpath("r.json").read_text())["gates"]
    assert [(g["status"], g["confidence"], g["blocks"]) for g in gates] == [
        ("INCONCLUSIVE", 0.95, code != pytest.ExitCode.OK), ("INCONCLUSIVE", 0.5, code != pytest.ExitCode.OK)]
    assert gates[0]["interval"][0] == pytest.approx(0.8865, abs=1e-4) and gates[1]["interval"] is None
    junit = hodor_all_pass.path.joinpath("j.xml").read_text()
    case = junit[junit.index('classname="pytest-trust.gates" name="rules_v1.systematic"'):].split("</testcase>")[0]
    assert ("<failure" in case) == (code != pytest.ExitCode.OK) and ("<skipped" in case) == (code == pytest.ExitCode.OK)
    assert "INCONCLUSIVE" in case and "95% interval [0.8865, 1.0000]" in case
