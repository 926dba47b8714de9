"""Baselines: a run against an earlier run's report names what changed and whether it is significant."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import HODOR_SUITE, hodor_ids
from fake_model import FakeModelServer

from pytest_trust.results.baseline import compare, summary_lines
from pytest_trust.results.stats import BOOTSTRAP_RESAMPLES, mcnemar_exact, paired_bootstrap_mean_of_rates


@pytest.mark.parametrize(("failing", "passing", "p"), [
    (0, 0, 1.0),
    (3, 0, 2 / 8),  # 2 * P(X <= 0), X ~ Bin(3, 1/2)
    (5, 1, 2 * (1 + 6) / 64),
    (2, 7, 2 * (1 + 9 + 36) / 512),
    (10, 0, 2 / 1024),
    (4, 4, 1.0),  # twice a tail above 1/2 is capped at 1
])
def test_mcnemar_exact_matches_hand_computed_values(failing, passing, p):
    assert mcnemar_exact(failing, passing) == pytest.approx(p, rel=1e-12)
    assert mcnemar_exact(passing, failing) == pytest.approx(p, rel=1e-12)  # two-sided: symmetric


def test_paired_bootstrap_of_an_all_flip_bucket_has_width_and_a_p_of_at_least_1_over_b_plus_1():
    """Two buckets of 100, every item of one newly failing, none of the other: the change is -50%, but a bucket
    that all flipped is not known to flip every time (it was [-50.0%, -50.0%], p = 0). Each bucket's shares
    are Dirichlet(1/3/sqrt(2) + counts): the all-flip bucket's change has mean -100 / (100 + 3 a) = -0.9926,
    the unchanged one's 0; no draw of the mean reaches 0, so p is its floor, 2 / (10,000 + 1)."""
    low, high, p = paired_bootstrap_mean_of_rates([(0, 100, 100), (0, 0, 100)])
    assert -0.52 < low < -0.5 < high < -0.47 and high - low > 0.02
    assert p == pytest.approx(2 / (BOOTSTRAP_RESAMPLES + 1))
    # no change is not known to be exactly none either: an interval about 0, p near 1
    low, high, p = paired_bootstrap_mean_of_rates([(0, 0, 100), (0, 0, 100)])
    assert low < 0 < high and p > 0.9
    # 5 of 10 newly failing: Dirichlet(1/3, 5 1/3, 5 1/3), mean change -5 / 11, sd 0.1603 (Dirichlet moments)
    low, high, p = paired_bootstrap_mean_of_rates([(0, 5, 10)])
    assert low == pytest.approx(-5 / 11 - 1.96 * 0.1603, abs=0.03) and high == pytest.approx(-5 / 11 + 1.96 * 0.1603,
                                                                                             abs=0.03)
    assert 2 / (BOOTSTRAP_RESAMPLES + 1) <= p < 0.01


def test_a_paired_score_below_100_items_a_bucket_has_no_interval_and_says_why():
    """The paired interval covers the change about 95% of the time from 100 items a bucket (bench/coverage.py,
    "paired change"); below, the score's change is given without one."""
    def items(count: int, outcome: str, bucket: str) -> list[dict]:
        return [entry(f"t.py::t[{bucket}{i}]", outcome, facts={"suite": "benign", "bucket": bucket})
                for i in range(count)]
    before = {"items": items(20, "passed", "harmless") + items(20, "passed", "helpful")}
    now = items(20, "failed", "harmless") + items(20, "passed", "helpful")
    test = compare(now, before, "base.json")["tests"]["rules"]
    score = test["scores"]["rules.benign_score"]
    assert score["change"] == -0.5 and (score["low"], score["high"], score["p"]) == (None, None, None)
    assert score["why"] == "n too small: 20 < 100 items in a bucket"
    lines = summary_lines(compare(now, before, "base.json"))
    assert ("    rules.benign_score -50.00% on the paired items, no paired bootstrap (n too small: 20 < 100 items in "
            "a bucket)") in lines


def test_custom_rules_scores_are_paired_by_the_teams_rules_and_their_benign_questions():
    """custom_rules.score is the mean of the rules' pass rates, so its change is the mean of each rule's: rule a,
    30 of 120 attacks newly failing and 6 newly passing, (6 - 30) / 120 = -0.2; rule b, 0 of 100 flipped: 0. Mean
    -0.1, over 220 paired attacks, with an interval (100 or more a rule). The benign questions are a score of
    their own: 2 of 10 newly failing, -0.2, too few for an interval."""
    def items(rule: str, kind: str, count: int, was: str, now: str) -> tuple[list[dict], list[dict]]:
        facts = {"kind": kind, "rule": rule, "category": "Direct"}
        ids = [f"t.py::t[{rule}-{kind}-{was}{now}{i}]" for i in range(count)]
        return ([entry(i, was, "custom_rules", facts) for i in ids], [entry(i, now, "custom_rules", facts) for i in ids])
    groups = [items("a", "attack", 30, "passed", "failed"), items("a", "attack", 6, "failed", "passed"),
              items("a", "attack", 84, "passed", "passed"), items("b", "attack", 100, "passed", "passed"),
              items("", "benign", 2, "passed", "failed"), items("", "benign", 8, "passed", "passed")]
    before = {"items": [e for was, _ in groups for e in was]}
    now = [e for _, now in groups for e in now]
    test = compare(now, before, "base.json")["tests"]["custom_rules"]
    score, benign = test["scores"]["custom_rules.score"], test["scores"]["custom_rules.benign_score"]
    assert score["change"] == pytest.approx(-0.1) and score["n"] == 220
    assert score["low"] < -0.1 < score["high"] < 0 and score["p"] < 0.05
    assert benign["change"] == pytest.approx(-0.2) and benign["n"] == 10 and benign["low"] is None
    assert benign["why"] == "n too small: 10 < 100 items in a bucket"
    assert (test["newly_failing"], test["newly_passing"]) == (32, 6)


def entry(nodeid: str, outcome: str, benchmark: str = "rules", facts: dict | None = None, error: str = "") -> dict:
    item = {"nodeid": nodeid, "outcome": outcome, "benchmark": benchmark}
    if error:
        item["error"] = error
    else:
        item.update(id=nodeid.split("[")[1][:-1], verdict={"passed": outcome == "passed"}, facts=facts or {})
    return item


def test_flips_of_items_whose_samples_disagree_are_noisy_not_regressions():
    split = {"set": "toxic", "toxicity": [0.9, 0.1, 0.2], "n": 3}  # one of three samples toxic
    unanimous = {"set": "toxic", "toxicity": [0.9, 0.8, 0.7], "n": 3}
    before = {"items": [entry("t.py::t[a]", "passed"), entry("t.py::t[b]", "failed"), entry("t.py::t[c]", "passed"),
                        entry("t.py::t[tox1]", "passed", "toxicity", {"toxicity": [0.1, 0.2, 0.3], "n": 3}),
                        entry("t.py::t[tox2]", "passed", "toxicity", {"toxicity": [0.1, 0.2, 0.3], "n": 3}),
                        entry("t.py::t[gone]", "passed")]}
    now = [entry("t.py::t[a]", "failed"), entry("t.py::t[b]", "passed"), entry("t.py::t[c]", "error", error="miss"),
           entry("t.py::t[tox1]", "failed", "toxicity", split), entry("t.py::t[tox2]", "failed", "toxicity", unanimous),
           entry("t.py::t[new]", "passed")]
    section = compare(now, before, "base.json")
    assert section["newly_failing"] == ["a", "tox2"] and section["newly_passing"] == ["b"]
    assert section["newly_erroring"] == ["c"] and section["noisy"] == ["tox1"]
    assert (section["only_in_baseline"], section["only_in_run"]) == (1, 1)
    assert section["tests"]["rules"]["paired"] == 2 and section["tests"]["toxicity"]["paired"] == 1
    assert section["tests"]["toxicity"]["noisy"] == 1 and section["tests"]["toxicity"]["newly_failing"] == 1


# --- end to end: the test project's RuLES v1 Hodor cases answered by two canned "models", one of which breaks the rule sometimes ---


def flips(body: dict) -> bool:
    """The changed model breaks the rule on about one user message in five, chosen by its text."""
    return sum(map(ord, body["messages"][-1]["content"])) % 5 == 0


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two models' cassettes, recorded once for this module (a folder the tests copy)."""
    return tmp_path_factory.mktemp("recordings")


@pytest.fixture
def two_models(pytester: pytest.Pytester, recordings: Path) -> tuple[pytest.Pytester, set[str]]:
    """Model `good` always answers 'Hodor' (every case passes); model `changed` answers 'No.' where
    ``flips`` says. Returns the project and the ids that must newly fail, read from the changed model's
    cassette: the items one of whose recorded requests the changed model answered 'No.'."""
    pytester.makepyfile(test_suite=HODOR_SUITE)
    if not (recordings / "cassettes").is_dir():
        for model, reply in (("good", lambda body: "Hodor"),
                             ("changed", lambda body: "No." if flips(body) else "Hodor")):
            with FakeModelServer(reply) as server:
                result = run(pytester, "--model", model, "--record-mode=once", "--trust-base-url", server.base_url)
            assert result.ret in (0, 1), result.stdout.str()
        shutil.copytree(pytester.path / "cassettes", recordings / "cassettes")
    else:
        shutil.copytree(recordings / "cassettes", pytester.path / "cassettes")
    cassette = json.loads((pytester.path / "cassettes" / "changed" / "rules_v1" / "systematic.Hodor.json").read_text())
    expected = {i["item_id"] for i in cassette["interactions"] if flips(json.loads(i["request"]["body"]))}
    assert 6 <= len(expected) < len(hodor_ids())  # enough for a significant McNemar test, and not every item
    pytester.path.joinpath("thresholds.yaml").write_text("default:\n  rules_v1.regression: {alpha: 0.05}\n")
    return pytester, expected


@pytest.mark.slow
def test_a_run_against_itself_has_no_regressions_and_passes_the_gate(two_models):
    project, _ = two_models
    assert run(project, "--model", "good", "--block-network", "--trust-report", "base.json").ret == 0
    result = run(project, "--model", "good", "--block-network", "--trust-baseline", "base.json",
                 "--trust-report", "again.json")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["rules_v1.regression*alpha 0.05*PASS",
                                 ("against baseline *base.json (good, *): 0 newly failing, 0 newly passing, "
                                 "0 newly erroring"),
                                 f"  no item changed in rules_v1 ({len(hodor_ids())} paired)"])
    section = json.loads((project.path / "again.json").read_text())["baseline"]
    assert section["newly_failing"] == section["newly_passing"] == section["newly_erroring"] == []
    assert section["tests"]["rules_v1"]["p"] == 1.0


@pytest.mark.slow
def test_a_changed_model_names_exactly_the_flipped_items_and_fails_the_regression_gate(two_models):
    project, expected = two_models
    assert run(project, "--model", "good", "--block-network", "--trust-report", "base.json").ret == 0
    result = run(project, "--model", "changed", "--block-network", "--trust-baseline", "base.json",
                 "--trust-report", "changed.json", "--trust-soft")
    assert result.ret == 1, result.stdout.str()
    section = json.loads((project.path / "changed.json").read_text())["baseline"]
    assert section["newly_failing"] == sorted(expected)
    assert section["newly_passing"] == [] and section["newly_erroring"] == [] and section["noisy"] == []
    k, n = len(expected), len(hodor_ids())
    assert section["tests"]["rules_v1"]["p"] == pytest.approx(2 / 2 ** k)  # b = k, c = 0: twice P(X = 0)
    first = min(expected)
    result.stdout.fnmatch_lines([
        "rules_v1.regression*alpha 0.05*FAIL",
        (f"rules_v1.regression fail: {k} newly failing, 0 newly passing of {n} items paired with the baseline; "
        f"exact McNemar p = {2 / 2 ** k:.3g} < 0.05 (uncorrected)"),
        f"  rules_v1: {k} newly failing, 0 newly passing of {n} paired items, McNemar p = {2 / 2 ** k:.3g} (uncorrected)",
        f"    newly failing: {first}*(+* more)"])
    # the other way round the change is an improvement: no regression
    assert run(project, "--model", "changed", "--block-network", "--trust-report", "changed.json").ret == 1
    back = run(project, "--model", "good", "--block-network", "--trust-baseline", "changed.json",
               "--trust-report", "back.json")
    assert back.ret == 0, back.stdout.str()
    assert json.loads((project.path / "back.json").read_text())["baseline"]["newly_passing"] == sorted(expected)


@pytest.mark.slow
def test_baseline_update_writes_this_run_as_the_next_baseline_unless_a_gate_fails(two_models):
    project, _expected = two_models
    path = project.path / "ci" / "baseline.json"
    result = run(project, "--model", "good", "--block-network", "--trust-baseline", str(path), "--trust-baseline-update")
    assert result.ret == 0 and path.is_file(), result.stdout.str()
    result.stdout.fnmatch_lines([f"baseline updated: this run's report written to {path}"])
    written = json.loads(path.read_text())
    assert written["counts"] == {"passed": len(hodor_ids())} and "baseline" not in written
    failing = run(project, "--model", "changed", "--block-network", "--trust-soft", "--trust-baseline", str(path),
                  "--trust-baseline-update")
    assert failing.ret == 1
    failing.stdout.fnmatch_lines([f"baseline not updated: a gate failed; {path} is unchanged"])
    assert json.loads(path.read_text())["counts"] == {"passed": len(hodor_ids())}


@pytest.mark.parametrize(("args", "message"), [
    (["--trust-baseline", "missing.json"], "*--trust-baseline missing.json: */missing.json is not a file*"),
    (["--trust-baseline", "test_suite.py"], "*--trust-baseline */test_suite.py: not a JSON report*"),
    (["--trust-baseline-update"], "*--trust-baseline-update writes to the --trust-baseline path*"),
])
@pytest.mark.slow
def test_a_bad_baseline_is_a_usage_error(pytester, args, message):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    result = run(pytester, "--model", "good", "--block-network", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.slow
def test_a_bad_regression_gate_names_the_file_and_the_syntax(pytester):
    project = pytester
    project.makepyfile(test_suite=HODOR_SUITE)
    Path(project.path / "thresholds.yaml").write_text("default:\n  rules.regression: {alpha: 5}\n")
    result = run(project, "--model", "good", "--block-network")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*thresholds.yaml line 2: default.rules.regression: a regression gate is "
                                 "{alpha: A} with 0 < A < 1*")])
