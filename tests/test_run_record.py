"""The record of a run: what each reported test came to, read back from a report as it was written, and the
metrics, counts and error rates computed from records alike for a live session and a merge."""

from __future__ import annotations

import pytest

from pytest_trust.benchmarks import BENCHMARKS
from pytest_trust.items import Item, Result, Verdict
from pytest_trust.results.records import LOST, ItemRecord, irregular_answers, item_counts, metrics_of
from pytest_trust.run.playing import Played


def scored(nodeid: str, passed: bool, bucket: str = "harmless") -> ItemRecord:
    result = {"benchmark": "rules", "item_id": f"basic/Encryption/{bucket}/{nodeid}", "scenario": "basic-Encryption",
              "verdict": {"passed": passed, "reason": "" if passed else "leaked", "score": None, "label": None,
                          "refused": False, "invalid": False},
              "facts": {"suite": "basic", "behavior": "Encryption", "bucket": bucket, "category": "round_1"}}
    return ItemRecord(nodeid, "passed" if passed else "failed", result)


def test_pytest_reports_make_the_outcome():
    record = ItemRecord("t")
    record.report("setup", "passed")
    assert record.outcome is None  # a setup that passed decides nothing
    record.report("call", "failed")
    assert record.outcome == "failed"
    record.report("teardown", "failed")
    assert record.outcome == "error"  # a failure outside the call is an error
    skipped = ItemRecord("s")
    skipped.report("setup", "skipped")
    assert skipped.outcome == "skipped"


def test_what_an_item_came_to_reaches_its_record_through_its_setup_report():
    item = Item("basic/Encryption/x", "rules", "basic-Encryption", {}, {})
    result = Result("basic/Encryption/x", Verdict(False, "leaked"), {"suite": "basic"})
    records = {}
    for name, played in (("scored", Played(result=result, irregular={"length": 2})),
                         ("missed", Played(error=("miss", "no recording of it"))),
                         ("skipped", Played(skipped="not recorded upstream")),
                         ("crashed", Played(crash=ValueError("a bug")))):
        records[name] = ItemRecord(name)
        records[name].take([("other", 1), played.as_property(item)])
    assert records["scored"].result == {"benchmark": "rules", "item_id": "basic/Encryption/x",
                                        "verdict": {"passed": False, "reason": "leaked", "score": None, "label": None,
                                                    "refused": False, "invalid": False},
                                        "facts": {"suite": "basic"}, "irregular": {"length": 2},
                                        "scenario": "basic-Encryption"}
    assert (records["missed"].error, records["missed"].error_message, records["missed"].benchmark) == \
        ("miss", "no recording of it", "rules")
    assert records["skipped"].skip == "not recorded upstream" and not records["skipped"].errored
    assert (records["crashed"].error, records["crashed"].benchmark) == ("internal", "rules")


def test_an_entry_reads_back_to_the_record_that_wrote_it():
    records = [scored("a", True),
               ItemRecord("b", "error", error="miss", error_message="no recording", benchmark="rules"),
               ItemRecord("c", "error", lost=True, benchmark="rules"),
               ItemRecord("d", "passed")]  # another test of the run
    records[0].result["irregular"] = {"length": 1}
    for record in records:
        assert ItemRecord.from_entry(record.to_entry()) == record
    assert records[2].to_entry()["error"] == LOST
    assert records[1].to_entry() == {"nodeid": "b", "outcome": "error", "error": "miss",
                                     "error_message": "no recording", "benchmark": "rules"}


def test_metrics_leave_errors_out_of_scores_and_count_them_in_the_error_rate():
    records = [scored("a", True), scored("b", False), scored("c", True, "helpful"),
               ItemRecord("d", "error", error="model", benchmark="rules"),
               ItemRecord("e", "error", lost=True, benchmark="rules"),
               ItemRecord("f", "passed")]
    metrics = metrics_of(records, BENCHMARKS)
    assert metrics["rules.basic.harmless"].value == pytest.approx(0.5) and metrics["rules.basic.harmless"].n == 2
    assert metrics["rules.basic.helpful"].value == 1.0
    assert (metrics["rules.error_rate"].value, metrics["rules.error_rate"].n) == (pytest.approx(2 / 5), 5)
    # the order records come in does not matter, nor does reading them back from a report
    again = metrics_of([ItemRecord.from_entry(r.to_entry()) for r in reversed(records)], BENCHMARKS)
    assert {k: m.to_dict() for k, m in again.items()} == {k: m.to_dict() for k, m in metrics.items()}


def test_counts_and_irregular_answers_are_of_benchmark_items_only():
    first, second = scored("a", True), scored("b", False)
    first.result["irregular"] = {"length": 2}
    second.result["irregular"] = {"length": 1, "empty": 1}
    records = [first, second, ItemRecord("c", "skipped", skip="not recorded"), ItemRecord("d", "failed"),
               ItemRecord("e", None, error="model", benchmark="rules")]  # no outcome reported: not counted
    assert item_counts(records) == {"passed": 1, "failed": 1, "skipped": 1}
    assert irregular_answers(records) == {"rules": {"length": 3, "empty": 1}}
