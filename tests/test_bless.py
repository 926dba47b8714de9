"""`pytest-trust thresholds bless`: gates at a recorded run's level, written with the file's comments kept."""

import difflib
import json
import shutil

import pytest
import yaml
from conftest import ROOT

from pytest_trust.benchmarks import BENCHMARKS
from pytest_trust.cli import main
from pytest_trust.cli.bless import HIGHER, LOWER, direction
from pytest_trust.results.gates import load_thresholds

VALID = [k for name, b in BENCHMARKS.items() for k in [*b.metric_keys(), f"{name}.error_rate"]]


def _key(dots, side, exclude=()):
    """A registered metric key with so many dots whose better side is ``side`` (from the registry)."""
    return next(k for k in VALID if k.count(".") == dots and direction(k) == side and k not in exclude)


HI = _key(1, HIGHER)
HI2 = _key(2, HIGHER, {HI})
LO = _key(2, LOWER) if any(k.count(".") == 2 and direction(k) == LOWER for k in VALID) else _key(1, LOWER)
DEEP = next(k for k in VALID if k.count(".") >= 3)
PARTIAL = _key(1, HIGHER, {HI}) if sum(k.count(".") == 1 and direction(k) == HIGHER for k in VALID) > 1 else None


def _metric(value, low, high, kind="mean", n=100, partial=None):
    return {"value": value, "low": low, "high": high, "n": n, "kind": kind, "partial": partial}


def _report(tmp_path, metrics, model="m1"):
    ran = {key.split(".", 1)[0] for key in metrics}
    report = {"schema": "pytest-trust/report", "schema_version": 1, "run": {"model": model}, "items": [],
              "metrics": {**metrics, **{f"{b}.error_rate": _metric(0.0, 0.0, 0.04, "rate") for b in ran}},
              "gates": []}
    path = tmp_path / "trust.json"
    path.write_text(json.dumps(report))
    return path


@pytest.fixture
def report(tmp_path):
    metrics = {HI: _metric(0.8, 0.75, 0.85), HI2: _metric(0.5, 0.4, 0.6, "rate", 100),
               LO: _metric(0.2, 0.1, 0.3, "rate"), DEEP: _metric(0.9, 0.8, 0.95)}
    if PARTIAL:
        metrics[PARTIAL] = _metric(0.7, 0.6, 0.8, partial="lacks part of its settings")
    return _report(tmp_path, metrics)


def test_bless_updates_a_gate_in_place_appends_the_others_and_keeps_every_comment(tmp_path, report, capsys):
    bench = HI.split(".", 1)[0]
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text(
        "# top comment\n"
        "settings: {soft: true}\n"
        "default:\n"
        f"  {bench}.error_rate: {{max: 0.0}}  # keep me\n"
        "models:\n"
        "  m1:\n"
        "    # about this gate\n"
        f"    {HI}: {{min: 0.1, confidence: 0.95}}   # old gate\n"
        "# the end\n")
    assert main(["thresholds", "bless", str(report), "--thresholds", str(thresholds)]) == 0
    assert thresholds.read_text() == (
        "# top comment\n"
        "settings: {soft: true}\n"
        "default:\n"
        f"  {bench}.error_rate: {{max: 0.0}}  # keep me\n"
        "models:\n"
        "  m1:\n"
        "    # about this gate\n"
        f"    {HI}: {{min: 0.75, confidence: 0.95}}  # old gate\n"  # the comment keeps its column
        f"    {HI2}: {{min: 0.4}}\n"
        f"    {LO}: {{max: 0.3}}\n"
        "# the end\n")
    out = capsys.readouterr().out
    assert out.splitlines() == [f"{HI}: min 0.1 -> 0.75", f"{HI2}: min 0.4 (new)", f"{LO}: max 0.3 (new)",
                                f"written: {thresholds} (3 gates under models: m1)"]  # one line a gate
    gates = {g.key: g for g in load_thresholds(thresholds, "m1", VALID).gates}
    assert gates[HI].min == 0.75 and gates[LO].max == 0.3 and DEEP not in gates
    assert PARTIAL is None or PARTIAL not in gates
    assert main(["thresholds", "bless", str(report), "--thresholds", str(thresholds)]) == 0  # again: nothing new
    out = capsys.readouterr().out
    assert f"{HI}: min 0.75 (unchanged)" in out and out.endswith(f"unchanged: {thresholds} (3 gates under models: m1)\n")
    assert "written" not in out


def test_a_new_file_with_margin_and_model(tmp_path, report, capsys):
    thresholds = tmp_path / "new" / "thresholds.yaml"
    assert main(["thresholds", "bless", str(report), "--thresholds", str(thresholds), "--margin", "0.02",
                 "--model", "other"]) == 0
    gates = {g.key: g for g in load_thresholds(thresholds, "other", VALID).gates}
    assert gates[HI].min == 0.78 and gates[HI2].min == 0.48 and gates[LO].max == 0.22
    assert load_thresholds(thresholds, "other", VALID).settings == {"soft": True}
    assert "models:\n  other:\n" in thresholds.read_text()
    assert f"{HI}: min 0.78 (new)" in capsys.readouterr().out


def test_a_new_section_goes_after_the_comments_that_end_the_file(tmp_path, report):
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text("default:\n  # gates for every model\n# models:\n#   m1: {}\n")
    assert main(["thresholds", "bless", str(report), "--thresholds", str(thresholds)]) == 0
    assert thresholds.read_text().startswith("default:\n  # gates for every model\n# models:\n#   m1: {}\nmodels:\n  m1:\n")
    load_thresholds(thresholds, "m1", VALID)


def test_other_confidence_levels(tmp_path, report):
    thresholds = tmp_path / "thresholds.yaml"
    assert main(["thresholds", "bless", str(report), "--thresholds", str(thresholds), "--confidence", "0.8"]) == 0
    gates = {g.key: g for g in load_thresholds(thresholds, "m1", VALID).gates}
    assert 0.4 < gates[HI2].min < 0.5  # Wilson at 80% from n: narrower than the 95% interval
    assert 0.75 < gates[HI].min < 0.8  # a mean's 95% interval, scaled by the normal quantiles


def test_the_repository_thresholds_file_keeps_every_other_line(tmp_path, report):
    thresholds = tmp_path / "thresholds.yaml"
    shutil.copy(ROOT / "thresholds.yaml", thresholds)
    before = thresholds.read_text().splitlines()
    model = next(iter(yaml.safe_load(thresholds.read_text())["models"]))  # the first model: others follow it
    assert main(["thresholds", "bless", str(report), "--thresholds", str(thresholds), "--model", model]) == 0
    after = thresholds.read_text().splitlines()
    changes = [op for op in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes() if op[0] != "equal"]
    assert len(changes) == 1 and changes[0][0] == "insert"  # one block of new gates, nothing else touched
    _, _, _, j1, j2 = changes[0]
    assert [line.split(":")[0].strip() for line in after[j1:j2]] == [HI, HI2, LO]
    assert after[j1 - 1].startswith("    ") and after[j2].startswith("  #")  # in its section, before the next one
    load_thresholds(thresholds, model, VALID)


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("{]", "not a JSON report"),
    ('{"metrics": {}}', "not a pytest-trust report"),
])
def test_a_bad_report_is_one_line_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "trust.json"
    if content is not None:
        path.write_text(content)
    assert main(["thresholds", "bless", str(path), "--thresholds", str(tmp_path / "t.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and str(path) in err
    assert not (tmp_path / "t.yaml").exists()


def test_confidence_and_margin_together_is_one_line_exit_2(tmp_path, report, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["thresholds", "bless", str(report), "--confidence", "0.9", "--margin", "0.1"])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not allowed with argument" in err


def test_a_thresholds_file_that_does_not_load_is_not_edited(tmp_path, report, capsys):
    thresholds = tmp_path / "thresholds.yaml"
    thresholds.write_text("default:\n  no.such.metric: {min: 0.5}\n")
    assert main(["thresholds", "bless", str(report), "--thresholds", str(thresholds)]) == 2
    assert "unknown metric key" in capsys.readouterr().err
    assert thresholds.read_text() == "default:\n  no.such.metric: {min: 0.5}\n"


def test_a_run_too_small_for_any_interval_writes_nothing_and_says_to_pass_a_margin(tmp_path, capsys):
    small = {HI: {**_metric(0.5, None, None, n=4), "why": "n too small: 4 < 10"}}
    path = _report(tmp_path, small)
    thresholds = tmp_path / "t.yaml"
    assert main(["thresholds", "bless", str(path), "--thresholds", str(thresholds)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{HI}: n too small: 4 < 10" in err and "pass --margin M" in err
    assert not thresholds.exists()
    assert main(["thresholds", "bless", str(path), "--thresholds", str(thresholds), "--margin", "0.1"]) == 0
    assert {g.key: g.min for g in load_thresholds(thresholds, "m1", VALID).gates}[HI] == 0.4


def test_bless_writes_no_gate_a_run_cannot_fail_nor_one_of_a_single_item_and_says_why(tmp_path, capsys):
    metrics = {HI: _metric(0.01, 0.0, 0.05), HI2: _metric(0.9, 0.85, 0.95, "rate", 100),
               LO: _metric(0.98, 0.95, 1.0, "rate")}
    thresholds = tmp_path / "t.yaml"
    assert main(["thresholds", "bless", str(_report(tmp_path, metrics)), "--thresholds", str(thresholds)]) == 0
    out = capsys.readouterr().out
    assert {g.key for g in load_thresholds(thresholds, "m1", VALID).gates} == {HI2}
    assert f"{HI}: not gated: its bound would be min 0, which no run can fail" in out
    assert f"{LO}: not gated: its bound would be max 1, which no run can fail" in out
    single = {HI: _metric(1.0, None, None, n=1), HI2: _metric(0.9, 0.85, 0.95, "rate", 100)}
    path = _report(tmp_path, single)
    assert main(["thresholds", "bless", str(path), "--thresholds", str(thresholds), "--margin", "0.02"]) == 0
    out = capsys.readouterr().out
    assert f"{HI}: not gated: n = 1: one item's pass or fail is no level to gate at" in out
    assert HI not in {g.key for g in load_thresholds(thresholds, "m1", VALID).gates}
