from __future__ import annotations

import pytest

from pytest_trust.errors import ThresholdsError
from pytest_trust.gates import Gate, evaluate, load_thresholds
from pytest_trust.metrics import Metric

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
    gates = [Gate("rules.score", min=0.5), Gate("rules.benign_score", max=0.2), Gate("rules.basic.harmless", 0.1)]
    results = evaluate(gates, {"rules.score": Metric(0.5), "rules.benign_score": Metric(0.3)})
    assert [r.status for r in results] == ["PASS", "FAIL", "NOT RUN"]


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
