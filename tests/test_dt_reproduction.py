"""The paper's own GPT-4 run, imported from DecodingTrust's recordings and replayed offline, gives
DecodingTrust's own numbers (its scoring code run on the same recordings at
AI-secure/DecodingTrust@161ae83; OOD with the v1.0 per-answer rule that produced the published 87.55).

Slow (about 169,000 replayed items, on both cores), so it runs once per module and only with the data
mirror; CI has the mirror.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, mirror

from pytest_trust.data import DataStore
from pytest_trust.importers.decodingtrust import PERSPECTIVES, import_model

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
    n_imported = sum(s.imported for s in imported.scenarios.values())
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
