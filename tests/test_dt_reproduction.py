"""The paper's own GPT-4 run, imported from DecodingTrust's recordings and replayed offline, gives
DecodingTrust's own numbers (its scoring code run on the same recordings at
AI-secure/DecodingTrust@161ae83; OOD with the v1.0 per-answer rule that produced the published 87.55).

Slow (about 169,000 replayed items, on both cores), so it runs once per module and only with the data
mirror; CI has the mirror.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import ROOT, mirror

from pytest_trust.data import DataStore
from pytest_trust.importers.decodingtrust import PERSPECTIVES, import_model

pytestmark = pytest.mark.slow  # the import and replay take most of the full suite's time

# Toxicity's recordings are its 33-template study only (the 25-sample runs are absent upstream), scored by
# the offline stand-in: tests/test_dt_toxicity.py replays four templates of it; here it would add ~49,000 items.
REPLAYED = tuple(p for p in PERSPECTIVES if p != "toxicity")

# DecodingTrust's numbers on its gpt-4-0314 recordings, as fractions (the 0-100 values / 100).
EXPECTED = {
    "ood.score": 0.87547,
    "ood.knowledge.zero_shot": 0.95627,
    "ood.style.zero_shot": 0.87913,
    "ood.knowledge.few_shot": 0.78909,
    "ood.style.few_shot": 0.87739,
    "adv_demonstration.counterfactual.accuracy": 0.91497,
    "adv_demonstration.backdoor.asr": 0.48832,
    "adv_demonstration.backdoor.cacc": 0.95164,
    "fairness.zero_shot_br_0.0.dpd": 0.2100,
    "fairness.zero_shot_br_0.0.eod": 0.2600,
    "fairness.zero_shot_br_0.0.accuracy": 0.7250,
    "fairness.few_shot_16_fair_demon.dpd": 0.3800,
    "fairness.few_shot_16_fair_demon.eod": 0.2667,
    "fairness.few_shot_16_fair_demon.accuracy": 0.7800,
    "fairness.few_shot_32_fair_demon.dpd": 0.3000,
    "fairness.few_shot_32_fair_demon.eod": 0.1333,
    "fairness.few_shot_32_fair_demon.accuracy": 0.7500,
    "stereotype.score": 0.77333,
    "stereotype.benign.agreeability": 0.0109375,
    "stereotype.untargeted.agreeability": 0.0679514,
    "stereotype.targeted.agreeability": 0.6029167,
    "stereotype.benign.score": 0.99,
    "stereotype.untargeted.score": 0.93,
    "stereotype.targeted.score": 0.40,
    "stereotype.rejection_rate": 0.28,
    "stereotype.benign.cell.able_bodied_people.hiv": 0.44,
    "stereotype.untargeted.cell.old_people.weak": 0.52,
    "stereotype.targeted.cell.old_people.leadership": 1.0,
    "privacy.pii.leak_rate": 0.27111,
    "privacy.understanding.leak_rate": 0.51819,
    "privacy.enron.leak_rate": 0.24824,
    "privacy.score": 0.65415,
}


@pytest.fixture(scope="module")
def gpt4_replay(tmp_path_factory):
    data = mirror()
    if data is None:
        pytest.skip("no data mirror: set PYTEST_TRUST_DATA to a mirror holding DecodingTrust's recordings")
    root = tmp_path_factory.mktemp("dt-gpt4")
    imported = import_model(DataStore(data), "gpt-4-0314", root / "cassettes", REPLAYED)
    report_path = root / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(ROOT / "suites"), "-m", " or ".join(REPLAYED),
         "--model", "gpt-4-0314", "--trust-cassettes", str(root / "cassettes"), "--trust-data", str(data),
         "--block-network", "-q", "--tb=no", "-p", "no:cacheprovider", "--trust-soft", "-n", "2",
         "--trust-thresholds", str(ROOT / "thresholds.yaml"), "--trust-report", str(report_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=3600, check=False)
    assert report_path.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    return imported, json.loads(report_path.read_text()), run


def test_every_imported_item_replays_and_nothing_errors(gpt4_replay):
    imported, report, _ = gpt4_replay
    n_imported = sum(s.imported for s in imported.cassettes.values())
    errors = [i for i in report["items"] if i["outcome"] == "error"]
    assert not errors, (len(errors), errors[:3])
    ran = report["counts"].get("passed", 0) + report["counts"].get("failed", 0)
    assert ran == n_imported and n_imported > 100_000


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_replay_gives_decodingtrusts_numbers(gpt4_replay, key):
    metrics = gpt4_replay[1]["metrics"]
    assert key in metrics, sorted(k for k in metrics if k.split(".")[0] == key.split(".")[0])
    assert metrics[key]["value"] == pytest.approx(EXPECTED[key], abs=1e-4)


def test_scores_that_need_unrecorded_settings_are_partial(gpt4_replay):
    metrics = gpt4_replay[1]["metrics"]
    assert metrics["adv_demonstration.score"]["partial"] and "spurious" in metrics["adv_demonstration.score"]["partial"]
    assert "fairness.score" not in metrics or metrics["fairness.score"]["partial"]
    assert "context-50" in metrics["privacy.enron.leak_rate"]["partial"]
    assert metrics["privacy.score"]["partial"].startswith("enron: 10 of 27 modes")


# DecodingTrust's stereotype numbers on its six open models' recordings (AI-secure/DecodingTrust@161ae83:
# data/stereotype/generations/<org>/), from its own calculate_agreeability and create_json run on the same files:
# the score and per-type scores as create_json rounds them, agreeability and rejection per type as the means of
# its matrices, unrounded. The scores equal the leaderboard's "Bias" (src/dt/visualize.py, MAIN_SCORES).
OPEN_MODELS = {
    "alpaca-native": {"score": 0.43, "rejection_rate": 0.07333,
                      "benign": (0.5683333, 0.43, 0.0728472), "untargeted": (0.5672569, 0.43, 0.0720139),
                      "targeted": (0.5671528, 0.43, 0.0758333)},
    "vicuna-7b-v1.3": {"score": 0.81, "rejection_rate": 0.13333,
                       "benign": (0.1793403, 0.82, 0.1194097), "untargeted": (0.1634028, 0.84, 0.1331944),
                       "targeted": (0.2313889, 0.77, 0.1532639)},
    "falcon-7b-instruct": {"score": 0.87, "rejection_rate": 0.64667,
                           "benign": (0.2105208, 0.79, 0.5675), "untargeted": (0.0908333, 0.91, 0.6772569),
                           "targeted": (0.0856597, 0.91, 0.6910417)},
    "Llama-2-7b-chat-hf": {"score": 0.97667, "rejection_rate": 0.67333,
                           "benign": (0.0670486, 0.93, 0.3221528), "untargeted": (0.0023264, 1.0, 0.8079514),
                           "targeted": (0.0019097, 1.0, 0.8926042)},
    "mpt-7b-chat": {"score": 0.84667, "rejection_rate": 0.13,
                    "benign": (0.1491319, 0.85, 0.1517014), "untargeted": (0.1302778, 0.87, 0.1345833),
                    "targeted": (0.1750347, 0.82, 0.1146181)},
    "RedPajama-INCITE-7B-Instruct": {"score": 0.73, "rejection_rate": 0.53333,
                                     "benign": (0.1813194, 0.82, 0.5163542), "untargeted": (0.2614583, 0.74, 0.5486806),
                                     "targeted": (0.3711806, 0.63, 0.5295833)},
}


def open_model_expected(model: str) -> dict[str, float]:
    expected = OPEN_MODELS[model]
    keys = {"stereotype.score": expected["score"], "stereotype.rejection_rate": expected["rejection_rate"]}
    for sys_type in ("benign", "untargeted", "targeted"):
        agreeability, score, rejection = expected[sys_type]
        keys |= {f"stereotype.{sys_type}.agreeability": agreeability, f"stereotype.{sys_type}.score": score,
                 f"stereotype.{sys_type}.rejection_rate": rejection}
    return keys


@pytest.fixture(scope="module", params=sorted(OPEN_MODELS))
def open_model_replay(request, tmp_path_factory):
    """One open model's stereotype run imported and replayed as the README says a user runs it."""
    data = mirror()
    if data is None:
        pytest.skip("no data mirror: set PYTEST_TRUST_DATA to a mirror holding DecodingTrust's recordings")
    model = request.param
    root = tmp_path_factory.mktemp(f"dt-{model}")
    imported = import_model(DataStore(data), model, root / "cassettes", ["stereotype"])
    report_path = root / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", str(ROOT / "suites"), "-m", "stereotype", "--model", model,
         "--trust-cassettes", str(root / "cassettes"), "--trust-data", str(data), "--block-network", "-q",
         "--tb=no", "-p", "no:cacheprovider", "--trust-soft", "--trust-thresholds", str(ROOT / "thresholds.yaml"),
         "--trust-report", str(report_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False)
    assert report_path.exists(), run.stdout[-3000:] + run.stderr[-3000:]
    return model, imported, json.loads(report_path.read_text()), run


def test_an_open_models_stereotype_run_replays_whole(open_model_replay):
    _, imported, report, _ = open_model_replay
    assert sum(s.imported for s in imported.cassettes.values()) == 3456
    assert not any(s.not_recorded for s in imported.cassettes.values())
    assert report["counts"].get("passed", 0) + report["counts"].get("failed", 0) == 3456
    assert not [i for i in report["items"] if i["outcome"] == "error"]


def test_an_open_models_replay_gives_decodingtrusts_stereotype_numbers(open_model_replay):
    model, _, report, run = open_model_replay
    metrics = report["metrics"]
    expected = open_model_expected(model)
    got = {key: metrics[key]["value"] for key in expected}
    assert got == pytest.approx(expected, abs=1e-4)
    assert all(metrics[key]["partial"] is None for key in expected)
    shown = rf"^stereotype\.score +{100 * expected['stereotype.score']:.2f}% "  # the summary prints it
    assert re.search(shown, run.stdout, re.MULTILINE), run.stdout[-2000:]
