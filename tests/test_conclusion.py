"""A run's conclusion from its records: metrics, the baseline comparison and the gates, alike for a live session
and a merge of shards' reports."""

from __future__ import annotations

from pytest_trust.benchmarks import BENCHMARKS
from pytest_trust.results.conclusion import conclude
from pytest_trust.results.gates import Gate
from pytest_trust.results.records import ItemRecord


def scored(nodeid: str, passed: bool) -> ItemRecord:
    result = {"benchmark": "rules", "item_id": f"basic/Encryption/harmless/{nodeid}", "scenario": "basic-Encryption",
              "verdict": {"passed": passed, "reason": "", "score": None, "label": None, "refused": False,
                          "invalid": False},
              "facts": {"suite": "basic", "behavior": "Encryption", "bucket": "harmless", "category": "round_1"}}
    return ItemRecord(nodeid, "passed" if passed else "failed", result)


def test_records_and_their_entries_read_back_conclude_alike():
    records = [scored(f"t::{i}", passed=i % 4 != 0) for i in range(12)]  # 9 of 12 pass
    entries = [record.to_entry() for record in records]
    gates = [Gate("rules.basic.harmless", min=0.8), Gate("rules.error_rate", max=0.0)]
    live = conclude(records, entries, BENCHMARKS, gates)
    merged = conclude([ItemRecord.from_entry(entry) for entry in entries], entries, BENCHMARKS, gates)
    assert live == merged
    assert live.metrics["rules.basic.harmless"].value == 9 / 12
    assert [(g.gate.key, g.status) for g in live.gates] == [("rules.basic.harmless", "FAIL"), ("rules.error_rate", "PASS")]
    assert live.baseline is None


def test_a_baseline_pairs_the_entries_and_feeds_the_regression_gate():
    before = [scored(f"t::{i}", passed=True) for i in range(12)]
    now = [scored(f"t::{i}", passed=i >= 6) for i in range(12)]  # six newly failing
    report = {"items": [record.to_entry() for record in before]}
    conclusion = conclude(now, [record.to_entry() for record in now], BENCHMARKS, [Gate("rules.regression", alpha=0.05)],
                          baseline_report=report)
    assert sorted(conclusion.baseline["newly_failing"]) == sorted(f"basic/Encryption/harmless/t::{i}" for i in range(6))
    assert [g.status for g in conclusion.gates] == ["FAIL"]
