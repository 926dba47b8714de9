"""What --junitxml shows of a run: each trust item's curated properties, and each gate as a test case."""

from __future__ import annotations

import pytest

from ..items import Item
from ..results.records import ERROR_PROPERTY, RESULT_PROPERTY, SKIP_PROPERTY
from .run_report import RunReport


def item_properties(trust_item: Item, properties: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """What a JUnit reader shows for a trust item: where it is from and what was decided, not the payload."""
    out: list[tuple[str, object]] = [_shared("benchmark", trust_item.benchmark), _shared("scenario", trust_item.cassette)]
    for name, value in properties:
        if name == RESULT_PROPERTY and isinstance(value, dict):
            verdict = value["verdict"]
            out.append(_shared("verdict", "pass" if verdict["passed"] else "fail"))
            if verdict.get("score") is not None:
                out.append(("score", verdict["score"]))
            out += [("reason", verdict["reason"]), _shared("refused", str(bool(verdict["refused"])).lower())]
        elif name == ERROR_PROPERTY and isinstance(value, dict):
            out += [("error", value["kind"]), ("reason", value.get("message", value["kind"]))]
        elif name == SKIP_PROPERTY:
            out += [_shared("skipped", "true"), ("reason", value)]
    return out


_PAIRS: dict[tuple[str, str], tuple[str, str]] = {}


def _shared(name: str, value: str) -> tuple[str, str]:
    """One tuple for a property every item of a cassette unit (or of the run) repeats, not one per item: 0.7 MB over the
    gpt-4-0314 stereotype run's 3,456 items."""
    return _PAIRS.setdefault((name, value), (name, value))


def gate_cases(config: pytest.Config, report: RunReport, where: str) -> None:
    """Each gate is a test case of --junitxml's file (pytest-trust.gates, named by its key): a failed gate is a
    failed test case there, a gate that did not run a skipped one."""
    from _pytest.junitxml import xml_key  # pytest's own LogXML, which writes its file after this hook

    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    for result in report.gates:
        gate, metric = result.gate, result.metric
        nodeid = f"pytest-trust::gates::{gate.key}"
        bound = " and ".join(text for text in (f">= {gate.min}" if gate.min is not None else "",
                                               f"<= {gate.max}" if gate.max is not None else "") if text)
        value = "not computed" if metric is None else f"{metric.value:.4f}"
        interval = (f", 95% interval [{metric.low:.4f}, {metric.high:.4f}]"
                    if metric is not None and metric.low is not None and metric.high is not None else "")
        if gate.confidence is not None:  # a confidence gate: its interval at its level decided the status
            bound += f" at {gate.confidence * 100:g}%"
            interval = (f", {gate.confidence * 100:g}% interval [{result.interval[0]:.4f}, {result.interval[1]:.4f}]"
                        if result.interval else interval)
        message = f"gate {gate.key} {result.status}: value {value}{interval}, bound {bound} ({where})"
        if result.reason:  # NOT COMPUTED, NOT SELECTED or INCONCLUSIVE: why (a partial metric's reason names what it lacks)
            message += f"; {result.reason}"
        outcome, longrepr = (("failed", message) if result.blocks else ("passed", None) if result.status == "PASS"
                             else ("skipped", (where, 0, message)))  # NOT COMPUTED blocks unless --trust-partial,
        # INCONCLUSIVE unless settings inconclusive: pass (then a skipped test case, as a gate that did not decide)
        properties = [("gate", gate.key), ("status", result.status), ("value", value), ("bound", bound)]
        for when, status, text in (("call", outcome, longrepr), ("teardown", "passed", None)):
            xml.pytest_runtest_logreport(pytest.TestReport(
                nodeid, (where, None, f"gates::{gate.key}"), {}, status, text, when, user_properties=properties))
