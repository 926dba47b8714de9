"""The run's typed report: a live one and the same read back from its JSON render alike, and reading keeps every
field a renderer shows."""

from __future__ import annotations

import json
import re
from types import MappingProxyType

from pytest_trust.items import Result, Verdict
from pytest_trust.report import html, markdown
from pytest_trust.report.run_report import RunReport
from pytest_trust.results.gates import FAIL, INCONCLUSIVE, PASS, Gate, GateResult
from pytest_trust.results.metrics import Metric, pass_rate
from pytest_trust.results.records import ItemRecord


def live_report() -> RunReport:
    passed = ItemRecord("suites/test_rules.py::test_rules[basic/A/1]", "passed",
                        {"item_id": "basic/A/1", "benchmark": "rules", "scenario": "A",
                         "verdict": {"passed": True, "reason": ""}, "facts": {}})
    failed = ItemRecord("suites/test_rules.py::test_rules[basic/A/2]", "failed",
                        {"item_id": "basic/A/2", "benchmark": "rules", "scenario": "A",
                         "verdict": {"passed": False, "reason": "printed the secret"}, "facts": {"turns": 2}})
    errored = ItemRecord("suites/test_rules.py::test_rules[basic/B/1]", "error", error="model",
                         error_message="HTTP 500", benchmark="rules")
    score = pass_rate(55, 100)
    dpd = Metric(0.125, None, None, 20, kind="value")
    gates = [GateResult(Gate("rules.score", min=0.6), score, FAIL, blocks=True),
             GateResult(Gate("rules.score", min=0.5, confidence=0.9), score, INCONCLUSIVE, "straddles",
                        blocks=True, interval=(0.47, 0.63)),
             GateResult(Gate("rules.regression", alpha=0.05), Metric(0.0078, n=12, kind="value"), FAIL,
                        "8 newly failing", blocks=True),
             GateResult(Gate("fairness.crime_br_0.0.dpd", max=0.2), dpd, PASS)]
    return RunReport({"model": "m1", "record_mode": "none", "deviations": {"temperature": 0.5}},
                     [passed, failed, errored], {"rules.score": score, "fairness.crime_br_0.0.dpd": dpd}, gates,
                     {"passed": 1, "failed": 1, "error": 1}, {"rules": {"length": 2}}, [],
                     {"newly_failing": ["basic/A/2"], "newly_passing": [], "newly_erroring": [],
                      "metrics": {"rules.score": pass_rate(60, 100).to_dict()}})


def test_a_report_read_back_from_its_json_writes_the_same_json():
    written = live_report().to_dict()
    read = RunReport.read(json.loads(json.dumps(written)))
    assert read.to_dict() == written
    assert read.gates[2].metric == Metric(0.0078, kind="value")  # a regression gate's p-value, not a run metric
    assert read.gates[1].interval == (0.47, 0.63) and read.gates_failed


def without_figure_ids(page: str) -> str:
    """Plotly names each figure's element by a fresh uuid."""
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "ID", page)


def test_every_renderer_gives_the_same_page_for_a_live_report_and_the_same_report_read_back():
    live = live_report()
    read = RunReport.read(json.loads(json.dumps(live.to_dict())))
    assert markdown.render(read) == markdown.render(live)
    assert without_figure_ids(html.render(read)) == without_figure_ids(html.render(live))
    text = markdown.render(live)
    assert "| ❔ INCONCLUSIVE | `rules.score` | ≥ 50.00% at 90% [47.00%, 63.00%] | 55.00% |" in text
    assert "| ❌ FAIL | `rules.regression` | no regression at α = 0.05 | p = 0.0078 |" in text


def test_entries_are_the_records_as_the_json_report_writes_them():
    live = live_report()
    assert live.saved_entries is None  # a run's are made when first asked: a run that writes no report holds none
    assert [entry["nodeid"] for entry in live.entries] == [record.nodeid for record in live.records]
    assert live.entries[2] == {"nodeid": "suites/test_rules.py::test_rules[basic/B/1]", "outcome": "error",
                               "error": "model", "error_message": "HTTP 500", "benchmark": "rules"}
    assert live.saved_entries is live.entries  # then kept: every output reads the same list
    assert "baseline" not in RunReport({}, [], {}, [], {}, {}, []).to_dict()


def test_a_results_payload_holds_its_verdict_fields_and_facts_themselves_not_copies():
    """The payload is what an item's record keeps to the end of the run: no second copy of either an item."""
    verdict, facts = Verdict(False, "2 of 3 agree", score=0.5), {"n": 3, "agree": 2}
    payload = Result("i", verdict, facts).to_dict()
    assert payload["verdict"] is vars(verdict) and payload["facts"] is facts
    assert Result.from_dict(json.loads(json.dumps(payload))) == Result("i", verdict, facts)
    other = Result("i", verdict, MappingProxyType(facts)).to_dict()["facts"]  # another mapping: a JSON-able dict
    assert type(other) is dict and other == facts
