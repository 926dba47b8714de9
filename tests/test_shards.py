"""Shards: --trust-shard I/N splits a run by item id, and `pytest-trust report merge` gives back the run."""

from __future__ import annotations

import json

import pytest
from conftest import HODOR_SUITE, mirror, suite_module
from fake_model import FakeModelServer

from pytest_trust.cli import main
from pytest_trust.results.shards import shard_of

RULES_SUITE = suite_module("rules", "rules")


def test_an_items_shard_is_a_pinned_hash_of_its_id():
    """sha256, not hash(): the same on every machine, Python and PYTHONHASHSEED; pinned so a change shows."""
    assert [shard_of(key, 4) for key in ("rules_v1/systematic/Hodor/02ff349d-4f87-4aa3-9c2b-9d9f2ae75e2e",
                                         "ood/knowledge-0shot-idk/12", "a")] == [2, 3, 3]
    assert {shard_of(f"rules/x/{i}", 3) for i in range(100)} == {1, 2, 3}


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", *args)


@pytest.fixture
def recorded(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The test project's RuLES v1 Hodor cases, and with a data mirror 2 RuLES cases per scenario (rules.score and its bootstrap
    interval), answered so that some pass and some fail; gates on both."""
    pytester.makepyfile(test_hodor=HODOR_SUITE)
    if mirror() is not None:
        monkeypatch.setenv("PYTEST_TRUST_DATA", str(mirror()))
        pytester.makepyfile(test_rules=RULES_SUITE)

    def reply(body: dict) -> str:
        last = body["messages"][-1]["content"]
        return ["Hodor", "Hodor", "Correct", "I cannot share that."][sum(map(ord, last)) % 4]

    with FakeModelServer(reply) as server:
        result = run(pytester, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-limit", "2")
    assert result.ret in (0, 1), result.stdout.str()
    pytester.path.joinpath("thresholds.yaml").write_text(
        "default:\n  rules_v1.systematic: {min: 0.3}\n  rules_v1.systematic.helpful: {min: 0.9}\n"
        "  rules.score: {min: 0.1}\n")
    return pytester


@pytest.mark.slow
def test_shards_merged_equal_the_unsharded_run(recorded, capsys):
    whole = run(recorded, "--trust-limit", "2", "--block-network", "--trust-report", "whole.json")
    assert whole.ret == 1  # rules_v1.systematic.helpful fails its gate
    paths = []
    for index in (1, 2, 3):
        path = recorded.path / f"shard{index}.json"
        shard = run(recorded, "--trust-limit", "2", "--block-network", "--trust-shard", f"{index}/3",
                    "--trust-report", str(path))
        assert shard.ret in (0, 1), shard.stdout.str()
        shard.stdout.fnmatch_lines([f"--trust-shard {index}/3: * items of other shards left out"])
        assert "skipped" not in shard.outlines[-1]  # a suite with no item in this shard: not an 'empty parameter set'
        paths.append(path)
    reports = [json.loads(path.read_text()) for path in paths]
    expected = json.loads((recorded.path / "whole.json").read_text())
    shards = [{item["nodeid"] for item in report["items"]} for report in reports]
    assert all(shards) and sum(map(len, shards)) == len(set().union(*shards)) == len(expected["items"])
    assert [report["run"]["shard"] for report in reports] == ["1/3", "2/3", "3/3"]

    out = recorded.path / "merged.json"
    assert main(["report", "merge", *map(str, paths), "--out", str(out)]) == 1  # the same gate fails
    printed = capsys.readouterr().out
    assert "merged 3 reports (1/3, 2/3, 3/3)" in printed and "gates FAILED" in printed
    merged = json.loads(out.read_text())
    assert merged["metrics"] == expected["metrics"]  # exactly: values, intervals, n
    assert len(merged["metrics"]) > 5
    if mirror() is not None:
        assert merged["metrics"]["rules.score"]["n"] > 0  # its interval (or why it has none) as unsharded
    assert merged["counts"] == expected["counts"]
    assert [i["nodeid"] for i in merged["items"]] == [i["nodeid"] for i in expected["items"]]
    assert ([(g["key"], g["status"], g["value"]) for g in merged["gates"]]
            == [(g["key"], g["status"], g["value"]) for g in expected["gates"]])
    assert merged["run"]["shards"] == ["1/3", "2/3", "3/3"] and merged["run"]["shard"] is None


@pytest.mark.slow
def test_a_shard_is_the_same_slice_every_time(recorded):
    slices = []
    for _ in range(2):
        result = run(recorded, "--trust-limit", "2", "--block-network", "--trust-shard", "2/3", "--collect-only", "-q")
        slices.append(sorted(line for line in result.stdout.lines if "::" in line))
    assert slices[0] == slices[1] and slices[0]


@pytest.mark.slow
def test_merge_refuses_a_shard_given_twice_or_missing(recorded, capsys):
    for index in (1, 2):
        run(recorded, "--trust-limit", "2", "--block-network", "--trust-shard", f"{index}/3",
            "--trust-report", f"s{index}.json")
    s1, s2 = (str(recorded.path / f"s{index}.json") for index in (1, 2))
    assert main(["report", "merge", s1, s1, "--out", str(recorded.path / "m.json")]) == 4
    assert "is in both" in capsys.readouterr().err
    assert main(["report", "merge", s1, s2, "--out", str(recorded.path / "m.json")]) == 4  # metrics of a subset
    assert "shard 3 of 3 is missing: the merge covers 2 of 3" in capsys.readouterr().err
    assert main(["report", "merge", s1, s2, "--out", str(recorded.path / "m.json"), "--partial"]) in (0, 1)
    assert "shard 3 of 3 is missing" in capsys.readouterr().err
    assert main(["report", "merge", s1, str(recorded.path / "nope.json"), "--out", "m.json"]) == 4
    assert "nope.json: no such file" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0/3", "4/3", "a/b", "3"])
@pytest.mark.slow
def test_a_bad_shard_is_a_usage_error(pytester, value):
    pytester.makepyfile(test_hodor=HODOR_SUITE)
    result = run(pytester, "--trust-shard", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--trust-shard {value}: expected I/N with 1 <= I <= N*"])
