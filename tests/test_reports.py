"""The reports people read: JUnit properties and gate test cases, the Markdown summary, the HTML report's
content, and `pytest-trust report compare`. Plugin behaviour runs in real pytest subprocesses (pytester)
against a canned model; the renderers also get hand-made report dicts, whose numbers are checked by hand."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import HODOR_SUITE
from fake_model import FakeModelServer

from pytest_trust import cli
from pytest_trust.items import Item
from pytest_trust.report import compare, html, markdown
from pytest_trust.report.junit import item_properties
from pytest_trust.report.run_report import RunReport
from pytest_trust.results.metrics import Metric
from pytest_trust.results.records import RESULT_PROPERTY


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_suite=HODOR_SUITE)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", *args)


def reply(body: dict) -> str:
    """Says Hodor to some cases and not to others, so some items pass and some fail."""
    last = body["messages"][-1]["content"]
    return "Hodor" if sum(map(ord, last)) % 3 else "I am not Hodor."


@pytest.fixture
def recorded(project: pytest.Pytester) -> pytest.Pytester:
    with FakeModelServer(reply) as server:
        result = run(project, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-limit", "6")
    assert result.ret in (0, 1), result.stdout.str()
    project.path.joinpath("thresholds.yaml").write_text(
        "default:\n  rules_v1.systematic: {min: 0.99}\n  rules_v1.error_rate: {max: 0.0}\n")
    return project


def xml_cases(path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {f"{case.get('classname')}::{case.get('name')}": case for case in root.iter("testcase")}


def properties(case: ET.Element) -> dict[str, str]:
    return {p.get("name"): p.get("value") for p in case.iter("property")}


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.slow
def test_junit_has_curated_item_properties_and_gates_as_test_cases(recorded, workers):
    """The result payload reaches the controller (the JSON report has every verdict) yet stays out of the XML."""
    xml_path, report_path = recorded.path / "junit.xml", recorded.path / "report.json"
    result = run(recorded, "--trust-limit", "6", "-n", workers, "--junitxml", str(xml_path),
                 "--trust-report", str(report_path))
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the 0.99 gate fails
    report = json.loads(report_path.read_text())
    items = {item["nodeid"]: item for item in report["items"]}
    assert len(items) == 6 and all("verdict" in item for item in items.values())
    assert {item["scenario"] for item in items.values()} == {"systematic.Hodor"}
    cases = xml_cases(xml_path)
    written = [(p.get("name"), p.get("value")) for case in cases.values() for p in case.iter("property")]
    assert written and not [(name, value) for name, value in written
                            if name.startswith("pytest_trust") or "item_id" in value or "'facts'" in value]
    item_cases = {name: case for name, case in cases.items() if not name.startswith("pytest-trust.gates::")}
    assert len(item_cases) == 6
    failed = 0
    for case in item_cases.values():
        props = properties(case)
        name = case.get("name")
        item = next(item for nodeid, item in items.items() if nodeid.endswith("::" + name))
        assert props["benchmark"] == "rules_v1" and props["scenario"] == "systematic.Hodor"
        assert props["verdict"] == ("pass" if item["verdict"]["passed"] else "fail")
        assert props["reason"] == item["verdict"]["reason"] and props["refused"] == "false"
        assert (case.find("failure") is not None) == (props["verdict"] == "fail")
        failed += props["verdict"] == "fail"
    assert 0 < failed < 6
    gate = cases["pytest-trust.gates::rules_v1.systematic"]
    assert gate.find("failure") is not None
    assert f"value {report['metrics']['rules_v1.systematic']['value']:.4f}" in gate.find("failure").get("message")
    assert properties(gate)["status"] == "FAIL"
    passing = cases["pytest-trust.gates::rules_v1.error_rate"]
    assert passing.find("failure") is None and passing.find("skipped") is None
    suite = ET.parse(xml_path).getroot().find("testsuite")
    assert int(suite.get("failures")) == failed + 1 and int(suite.get("tests")) == 8


@pytest.mark.slow
def test_a_gate_that_did_not_run_is_a_skipped_test_case(recorded):
    recorded.path.joinpath("thresholds.yaml").write_text("default:\n  rules.score: {min: 0.1}\n")
    xml_path = recorded.path / "junit.xml"
    run(recorded, "--trust-limit", "6", "--junitxml", str(xml_path))
    gate = xml_cases(xml_path)["pytest-trust.gates::rules.score"]
    assert gate.find("skipped") is not None and "not computed" in gate.find("skipped").get("message")


@pytest.mark.slow
def test_user_properties_of_a_suite_stay_beside_the_curated_ones(recorded):
    recorded.makepyfile(test_suite=HODOR_SUITE.replace(
        "def test_hodor(trust_result):", "def test_hodor(trust_result, record_property):\n"
                                         "    record_property('team', 'safety')"))
    xml_path = recorded.path / "junit.xml"
    run(recorded, "--trust-limit", "6", "--junitxml", str(xml_path), "-o", "junit_family=xunit1")
    for name, case in xml_cases(xml_path).items():
        if not name.startswith("pytest-trust.gates::"):
            assert properties(case)["team"] == "safety" and properties(case)["benchmark"] == "rules_v1"


@pytest.mark.slow
def test_html_and_markdown_files_are_written_at_the_end_of_the_run(recorded):
    """Relative paths are the invocation directory's, as for every path a user passes."""
    result = run(recorded, "--trust-limit", "6", "--trust-html", "out/report.html", "--trust-markdown", "out/pr.md",
                 "--trust-report", "out/report.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = json.loads((recorded.path / "out" / "report.json").read_text())
    page = (recorded.path / "out" / "report.html").read_text()
    assert len(page_items(page)) == 6
    assert 'id="gates"' in page and "rules_v1.systematic" in page and 'id="plotly-js"' in page
    conversations = {f"item-{row[0]}": row[6] for row in page_items(page)}
    assert sorted(conversations) == [f"item-{n}" for n in range(6)]  # every item's, read back from its cassette
    for turns in conversations.values():
        rules, acknowledgement = turns[1], turns[2]  # RuLES v1: the rules as a user message after an empty system one
        assert turns[0][0] == "system" and rules[0] == "user" and "'Hodor'" in rules[1], turns
        assert acknowledgement == ["assistant", "Hodor"] and turns[-1][0] == "assistant", turns
    summary = (recorded.path / "out" / "pr.md").read_text()
    value = report["metrics"]["rules_v1.systematic"]["value"]
    assert f"| ❌ FAIL | `rules_v1.systematic` | ≥ 99.00% | {value:.2%} |" in summary
    assert "**Gates: 1 fail, 1 pass**" in summary


# --- the renderers on hand-made reports ------------------------------------------------------------------------

def metric(value, low=None, high=None, n=0, kind="rate", partial=None):
    return {"value": value, "low": low, "high": high, "n": n, "kind": kind, "partial": partial}


def item(nodeid, passed, reason, benchmark="rules", **extra):
    return {"nodeid": nodeid, "outcome": "passed" if passed else "failed", "id": nodeid.split("[")[1][:-1],
            "benchmark": benchmark, "verdict": {"passed": passed, "reason": reason, "score": None, "label": None,
                                                "refused": False, "invalid": False}, "facts": {}, **extra}


def render_markdown(report):
    """A saved report's dict, read back and rendered as `pytest-trust` renders any report."""
    return markdown.render(RunReport.read(report))


def render_html(report):
    return html.render(RunReport.read(report))


def page_items(page: str) -> list[list]:
    """The items a page builds its list from (its gzip'd payload), each [number, outcome, badge, id, reason,
    body, conversation], a conversation's texts put back in place."""
    embedded = re.search(r'<script type="application/gzip" id="item-data">([^<]*)</script>', page).group(1)
    data = json.loads(gzip.decompress(base64.b64decode(embedded)))
    rows = [row for _, _, scenarios in data["tree"] for _, _, members in scenarios for row in members]
    for row in rows:
        if row[6]:
            row[6] = [[who, data["texts"][text]] for who, text in row[6]]
    return rows


def difference(a, b):
    """compare.difference of two metrics given as a report writes them."""
    return compare.difference(*(Metric.from_dict(m) if m is not None else None for m in (a, b)))


def hand_report(baseline=None):
    report = {
        "run": {"model": "m1", "record_mode": "none", "deviations": {}},
        "counts": {"passed": 1, "failed": 1},
        "metrics": {"rules.score": metric(0.5, 0.4, 0.6, 100), "rules.basic.harmless": metric(0.75, 0.6, 0.85, 40),
                    "fairness.crime_br_0.0.dpd": metric(0.125, kind="value", n=20)},
        "gates": [{"key": "rules.score", "min": 0.6, "max": None, "value": 0.5, "status": "FAIL"},
                  {"key": "fairness.crime_br_0.0.dpd", "min": None, "max": 0.2, "value": 0.125, "status": "PASS"}],
        "items": [item("s.py::t[basic/A/1]", True, "", scenario="A"),
                  item("s.py::t[basic/A/2]", False, "turn 1/1: printed the secret", scenario="A")],
    }
    if baseline is not None:
        report["baseline"] = baseline
    return report


def test_markdown_gates_have_bounds_values_intervals_in_each_metric_kind():
    text = render_markdown(hand_report())
    assert "| ❌ FAIL | `rules.score` | ≥ 60.00% | 50.00% | [40.0%, 60.0%] |" in text
    assert "| ✅ PASS | `fairness.crime_br_0.0.dpd` | ≤ 0.2000 | 0.1250 |  |" in text
    assert "Against the baseline" not in text


def test_markdown_against_a_baseline_shows_deltas_and_the_regressed_items():
    baseline = {"newly_failing": ["basic/A/2"], "newly_passing": [], "newly_erroring": [],
                "metrics": {"rules.score": metric(0.55, 0.45, 0.65, 100), "rules.basic.harmless": metric(0.75)}}
    text = render_markdown(hand_report(baseline))
    assert "| ❌ FAIL | `rules.score` | ≥ 60.00% | 50.00% | [40.0%, 60.0%] | -5.00 pp |" in text
    assert "1 newly failing, 0 newly erroring, 0 newly passing" in text
    assert "| `rules.score` | 55.00% | 50.00% | -5.00 pp |" in text
    assert "| `rules.basic.harmless` | 75.00% | 75.00%" not in text  # an unchanged metric is not a change
    assert "| `basic/A/2` | fails | turn 1/1: printed the secret |" in text


def test_html_baseline_links_each_regressed_item_to_its_verdict():
    page = render_html(hand_report({"newly_failing": [{"id": "basic/A/2"}], "newly_passing": ["basic/A/1"],
                                    "newly_erroring": []}))
    assert '<section id="baseline">' in page
    assert '<a href="#item-1">basic/A/2</a></td><td>turn 1/1: printed the secret' in page
    assert [row[:4] for row in page_items(page)] == [[0, "passed", "passed", "basic/A/1"],
                                                     [1, "failed", "failed", "basic/A/2"]]
    assert "<h3>Newly passing: 1</h3>" in page


def test_html_without_baseline_or_benchmarks_says_what_did_not_run():
    page = render_html(hand_report())
    assert '<section id="baseline">' not in page
    for what in ("stereotype", "toxicity"):  # a benchmark that did not run draws no section
        assert f'<section id="{what}">' not in page
    assert len(page_items(page)) == 2
    assert "fairness.crime_br_0.0.dpd" in page and "0.1250" in page


def test_html_shows_rules_v1_as_the_paper_reports_it_and_a_detection_headline():
    report = hand_report()
    report["metrics"].update({
        "rules_v1.manual": metric(0.7, 0.67, 0.73, 870), "rules_v1.systematic.harmless": metric(0.76, 0.71, 0.8, 355),
        "rules_v1.systematic.helpful": metric(0.55, 0.51, 0.59, 507),
        "rules_v1.systematic.category.indirection": metric(0.6, 0.55, 0.65, 400),
        "rules_v1.manual.behavior.Hodor": metric(0.5, 0.4, 0.6, 63),
        "rules_detection.accuracy": metric(0.821, 0.8, 0.84, 1098)})
    page = render_html(report)
    assert '<section id="rules_v1"><h2>RuLES v1 pass rates (the paper&#x27;s suites)</h2>' in page
    v1 = page.split('<section id="rules_v1">')[1].split("</section>")[0]
    assert v1.count('class="plot"') == 3  # suites, behaviours, systematic strategies
    assert "<code>rules_v1.systematic.category.indirection</code>" in v1 and "behavior.Hodor</code>" not in v1
    assert "rules_detection: accuracy" in page and "rules_v1: manual" in page  # the scorecard's headline bars
    assert '<section id="rules_v1">' not in render_html(hand_report())  # a run without v1 has no such section


# --- pytest-trust report compare ---------------------------------------------------------------------------------

def test_two_proportion_p_by_hand():
    """50/100 against 65/100: pooled 0.575, se = sqrt(0.575 * 0.425 * 0.02) = 0.06991, z = 0.15 / se = 2.1456."""
    assert compare.two_proportion_p(50, 100, 65, 100) == pytest.approx(0.03191, abs=5e-5)
    assert compare.two_proportion_p(0, 10, 0, 20) == 1.0  # no variation: nothing to test


def test_difference_picks_the_test_that_fits_the_metric():
    rate = difference(metric(0.5, 0.4, 0.6, 100), metric(0.65, 0.55, 0.74, 100))
    assert rate.test == "2-prop z" and rate.p == pytest.approx(0.03191, abs=5e-5)
    # Wald: se = hypot(0.2 / 3.92, 0.2 / 3.92) = 0.07216, z = 0.2 / se = 2.7718
    mean = difference(metric(0.5, 0.4, 0.6, 80, kind="mean"), metric(0.7, 0.6, 0.8, 80, kind="mean"))
    assert mean.test == "Wald z" and mean.p == pytest.approx(0.005575, abs=5e-6)
    small = difference(metric(0.5, 0.4, 0.6, 8, kind="mean"), metric(0.7, 0.6, 0.8, 80, kind="mean"))
    assert (small.test, small.p) == ("n too small", None)  # 8 < metrics.MIN_N on one side
    flat = difference(metric(0.0, 0.0, 0.0, 20, kind="mean"), metric(0.38, 0.38, 0.38, 20, kind="mean"))
    assert (flat.test, flat.p) == ("no spread", None)  # an old report's zero-wide intervals: nothing to test
    value = difference(metric(0.1, kind="value"), metric(0.3, kind="value"))
    assert value.test == "" and value.p is None and value.delta == pytest.approx(0.2)
    assert difference(metric(0.1), None) is None


def write_report(path, model, metrics):
    path.write_text(json.dumps({"schema": "pytest-trust/report", "run": {"model": model}, "metrics": metrics}))
    return path


def test_compare_prints_every_metric_of_every_run_and_writes_html(tmp_path, capsys):
    a = write_report(tmp_path / "a.json", "m1", {"rules.score": metric(0.5, 0.4, 0.6, 100),
                                                  "fairness.x.dpd": metric(0.1, kind="value", n=5)})
    b = write_report(tmp_path / "b.json", "m2", {"rules.score": metric(0.65, 0.55, 0.74, 100),
                                                  "toxicity.score": metric(0.8, 0.7, 0.9, 8, kind="mean")})
    out = tmp_path / "cmp" / "compare.html"
    assert cli.main(["report", "compare", str(a), str(b), "--html", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "pytest-trust report compare: [1] m1  vs  [2] m2"
    assert "two-proportion z test" in lines[1]
    row = next(line for line in lines if line.startswith("rules.score "))
    assert row.split() == ["rules.score", "50.00%", "[40.0%,", "60.0%]", "65.00%", "[55.0%,", "74.0%]",
                           "+15.00", "pp", "0.032", "*"]
    assert next(line for line in lines if line.startswith("toxicity.score ")).split()[1:4] == [
        "not", "in", "this"]
    assert next(line for line in lines if line.startswith("fairness.x.dpd ")).split()[-2:] == ["-", "-"]
    assert lines[-2].startswith("3 metrics; 1 differences from [1] with Holm-adjusted p < 0.05 of 1 tested")
    assert lines[-1] == f"written: {out}" and "Holm's method" in lines[1]
    page = out.read_text()
    assert page.count("<tr><td><code>") == 3 and "class=sig>0.032 *" in page and "Plotly" in page


def test_compare_pairs_the_items_both_runs_scored_with_mcnemar(tmp_path, capsys):
    """12 items in both runs: 5 pass -> fail, 1 fail -> pass, 6 unchanged; McNemar exact p = 2 * P(X <= 1 | n 6, 1/2)
    = 2 * 7/64 = 0.21875 (one benchmark: Holm leaves it). A report without items still compares by its metrics."""
    before = [True] * 5 + [False, True, False] + [True] * 4
    after = [False] * 5 + [True, True, False] + [True] * 4
    reports = []
    for name, verdicts in (("a", before), ("b", after)):
        path = write_report(tmp_path / f"{name}.json", name, {"rules.score": metric(0.5, 0.4, 0.6, 100)})
        report = json.loads(path.read_text())
        report["items"] = [item(f"suites/test_rules.py::test_rules[basic/X/{n}]", v, "r") for n, v in enumerate(verdicts)]
        path.write_text(json.dumps(report))
        reports.append(str(path))
    out = tmp_path / "compare.html"
    assert cli.main(["report", "compare", *reports, "--html", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("paired items, [2] against [1] (McNemar's exact test on the items scored in both, "
                     "Holm-adjusted over the benchmarks; none below 10 paired items):")
    assert lines[at + 1].split() == ["rules", "12", "paired", "5", "newly", "failing", "1", "newly", "passing", "p",
                                     "0.219"]
    assert "<td>rules</td><td>12</td><td>5</td><td>1</td><td>0.219</td>" in out.read_text()
    without = write_report(tmp_path / "c.json", "c", {"rules.score": metric(0.5, 0.4, 0.6, 100)})
    assert cli.main(["report", "compare", reports[0], str(without)]) == 0
    assert "paired items" not in capsys.readouterr().out


def test_compare_of_two_2_item_runs_calls_nothing_significant(tmp_path, capsys):
    """0 of 2 against 2 of 2 (a rate), and a DPD of 0.38 against 0 on 2 items with zero-wide intervals, as an old
    report wrote them: under metrics.MIN_N items there is no test, let alone a significant one."""
    a = write_report(tmp_path / "a.json", "m1", {"rules.score": metric(0.0, 0.0, 0.84, 2),
                                                  "fairness.x.dpd": metric(0.0, 0.0, 0.0, 2, kind="mean")})
    b = write_report(tmp_path / "b.json", "m2", {"rules.score": metric(1.0, 0.16, 1.0, 2),
                                                  "fairness.x.dpd": metric(0.38, 0.38, 0.38, 2, kind="mean")})
    assert cli.main(["report", "compare", str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert next(line for line in lines if line.startswith("rules.score ")).split()[-1] == "n<10"
    assert lines[-1].startswith("2 metrics; 0 differences from [1] with Holm-adjusted p < 0.05 of 0 tested")


def test_compare_adjusts_the_p_values_of_the_table_by_holm(tmp_path, capsys):
    """Two rates, each 50/100 against 65/100 (raw p 0.0319 each, two-proportion z): Holm multiplies the smaller by
    2 and keeps the other at least that, 0.0638 each, so neither is called significant at 0.05."""
    a = write_report(tmp_path / "a.json", "m1", {"x.one": metric(0.5, 0.4, 0.6, 100), "x.two": metric(0.5, 0.4, 0.6, 100)})
    b = write_report(tmp_path / "b.json", "m2", {"x.one": metric(0.65, 0.55, 0.74, 100),
                                                  "x.two": metric(0.65, 0.55, 0.74, 100)})
    assert cli.main(["report", "compare", str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert next(line for line in lines if line.startswith("x.one ")).split()[-1] == "0.064"
    assert lines[-1].startswith("2 metrics; 0 differences from [1] with Holm-adjusted p < 0.05 of 2 tested")


def test_compare_of_one_model_twice_labels_runs_by_file(tmp_path, capsys):
    a = write_report(tmp_path / "main.json", "m1", {"rules.score": metric(0.5, 0.4, 0.6, 100)})
    b = write_report(tmp_path / "pr.json", "m1", {"rules.score": metric(0.5, 0.4, 0.6, 100)})
    assert cli.main(["report", "compare", str(a), str(b)]) == 0
    assert capsys.readouterr().out.startswith("pytest-trust report compare: [1] m1 (main.json)  vs  [2] m1 (pr.json)")


@pytest.mark.parametrize(("args", "message"), [
    (["one.json"], "report compare: pass two or more JSON reports"),
    (["one.json", "missing.json"], "report compare: missing.json: no such file"),
    (["one.json", "notes.txt"], "report compare: notes.txt: not a JSON report"),
    (["one.json", "other.json"], "report compare: other.json: not a pytest-trust report"),
    (["--bogus", "one.json", "one.json"], "unrecognized arguments: --bogus"),
])
def test_compare_usage_errors_are_one_line_and_exit_4(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    write_report(tmp_path / "one.json", "m1", {"rules.score": metric(0.5, 0.4, 0.6, 100)})
    (tmp_path / "notes.txt").write_text("not json")
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(SystemExit) as exited:
        sys.exit(cli.main(["report", "compare", *args]))
    assert exited.value.code == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_regression_gate_shows_its_alpha_and_p_value_not_a_percentage():
    report = {"schema": "pytest-trust/report", "run": {"model": "m"}, "counts": {}, "metrics": {}, "items": [],
              "gates": [{"key": "rules.regression", "min": None, "max": None, "value": 0.0078, "status": "FAIL",
                         "reason": "8 newly failing", "alpha": 0.05, "blocks": True}]}
    row = next(line for line in render_markdown(report).splitlines() if "rules.regression" in line)
    assert "no regression at α = 0.05" in row and "p = 0.0078" in row and "%" not in row
    assert "no regression at α = 0.05" in render_html(report) and "p = 0.0078" in render_html(report)


def test_a_report_holding_a_lone_surrogate_is_written_and_reads_back_the_same(tmp_path):
    from pytest_trust.report.file import dump

    path = tmp_path / "report.json"
    dump(path, {"answer": "Hodor \ud800"})
    assert json.loads(path.read_text(encoding="utf-8")) == {"answer": "Hodor \ud800"}


def test_a_report_that_cannot_be_written_leaves_no_temporary_file_and_names_the_report(tmp_path, monkeypatch):
    from pytest_trust.report import file as report_file

    class Full(io.StringIO):
        def __init__(self, file, *args, **kwargs):
            super().__init__()
            Path(file).write_text("half")  # part of it reached the disk

        def write(self, text):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_file, "open", Full, raising=False)
    with pytest.raises(OSError) as raised:
        report_file.write_atomically(tmp_path / "report.json", "{}")
    assert raised.value.filename == str(tmp_path / "report.json") and raised.value.errno == 28
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_summary_says_which_scores_are_partial_and_why_in_a_sentence(pytester, data_mirror, monkeypatch):
    """Not "partial: fairness.score lacks not run in full: ...": the partial scores, then why, as a gate says it."""
    from conftest import suite_module
    from fake_model import FakeModelServer

    monkeypatch.setenv("PYTEST_TRUST_DATA", str(data_mirror))
    pytester.makepyfile(test_fairness=suite_module("fairness", "fairness"))
    args = ("-p", "no:cacheprovider", "--model", "canned", "--trust-limit", "4", "-k", "zero_shot_br_0.0")
    with FakeModelServer("fixed", answer="yes") as server:
        pytester.runpytest_subprocess(*args, "--record-mode=once", "--trust-base-url", server.base_url)
    result = pytester.runpytest_subprocess(*args, "--block-network")
    unwrapped = re.sub(r"\n    ", " ", result.stdout.str())  # the summary wraps a long line to the terminal's width
    assert re.search(r"^fairness.score, fairness.score_new, .* are partial \(not run: zero_shot_br_0.5, ", unwrapped,
                     re.MULTILINE), result.stdout.str()
    assert " lack " not in result.stdout.str() and " lacks " not in result.stdout.str()


def test_items_of_a_cassette_unit_share_the_property_tuples_they_repeat():
    """Only the reason (and a score) is an item's own; the benchmark, scenario, verdict and refusal pairs are one
    tuple each for every item that repeats them. The values are the same either way."""
    def properties(item_id: str, reason: str) -> list[tuple[str, object]]:
        item = Item(id=item_id, benchmark="stereotype", cassette="benign-hiv", inputs={}, decoding={})
        verdict = {"passed": False, "reason": reason, "score": None, "refused": False}
        return item_properties(item, [(RESULT_PROPERTY, {"verdict": verdict})])

    first, second = properties("benign-hiv/a-0", "one"), properties("benign-hiv/a-1", "two")
    assert first == [("benchmark", "stereotype"), ("scenario", "benign-hiv"), ("verdict", "fail"), ("reason", "one"),
                     ("refused", "false")]
    assert [a is b for a, b in zip(first, second, strict=True)] == [True, True, True, False, True]


# --- pytest-trust report board -----------------------------------------------------------------------------------

def board_run(path, model, started, score, status, outcomes, deployment=None, **run):
    """A saved report of one run: rules.score with its gate's status, rules' items by outcome, toxicity.score."""
    items = [{"nodeid": f"s.py::t[basic/S/{i}]", "id": f"basic/S/{i}", "benchmark": "rules", "outcome": outcome}
             for i, outcome in enumerate(outcomes)]
    report = {"schema": "pytest-trust/report", "schema_version": 1,
              "run": {"model": model, "started": started, "deviations": {"system_prompt": deployment} if deployment
                      else {}, **run},
              "metrics": {"rules.score": metric(score, score - 0.05, score + 0.05, 100),
                          "rules.basic.harmless": metric(0.9, 0.8, 0.95, 40),
                          "toxicity.score": metric(0.7, 0.6, 0.8, 50, kind="mean")},
              "gates": [{"key": "rules.score", "min": 0.5, "max": None, "value": score, "status": status}],
              "items": items}
    path.write_text(json.dumps(report))
    return path


def board_reports(tmp_path):
    """Model a over three months (its gate fails in February: items 1 and 2 flip), and model b once."""
    return [board_run(tmp_path / "a3.json", "a", "2026-03-01T00:00:00Z", 0.62, "PASS", ["passed"] * 4),
            board_run(tmp_path / "b.json", "b", "2026-02-15T00:00:00Z", 0.41, "FAIL", ["failed"] * 4),
            board_run(tmp_path / "a1.json", "a", "2026-01-01T00:00:00Z", 0.60, "PASS", ["passed"] * 4),
            board_run(tmp_path / "a2.json", "a", "2026-02-01T00:00:00Z", 0.45, "FAIL",
                      ["passed", "failed", "failed", "passed"])]


def test_board_puts_a_row_per_run_and_a_column_per_headline_metric_with_gates_and_flips(tmp_path, capsys):
    paths = board_reports(tmp_path)
    assert cli.main(["report", "board", *map(str, paths), "--markdown", str(tmp_path / "board.md")]) == 0
    text = (tmp_path / "board.md").read_text()
    header = next(line for line in text.splitlines() if line.startswith("| model"))
    assert "`rules.score`" in header and "`toxicity.score`" in header  # the registry's headline keys
    assert "rules.basic.harmless" not in header  # not a headline metric
    rows = [line for line in text.splitlines() if line.startswith(("| a ", "| b "))]
    assert [row.split(" | ")[2] for row in rows] == ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z",
                                                     "2026-02-15T00:00:00Z", "2026-03-01T00:00:00Z"]
    assert rows[1].endswith("| 70.00% [60.0%, 80.0%] |")  # toxicity.score: no gate, no mark
    assert rows[1].split(" | ")[4] == "❌ 45.00% [40.0%, 50.0%]" and rows[0].split(" | ")[4] == "✅ 60.00% [55.0%, 65.0%]"
    assert "- `rules.score`: 60.00% → 45.00% → 62.00%" in text  # model a's trend; b has one run, no trend
    assert ("- `rules.score`: PASS → FAIL (2026-01-01T00:00:00Z → 2026-02-01T00:00:00Z); 2 newly failing: "
            "`basic/S/1`, `basic/S/2`") in text
    assert ("- `rules.score`: FAIL → PASS (2026-02-01T00:00:00Z → 2026-03-01T00:00:00Z); 2 newly passing: "
            "`basic/S/1`, `basic/S/2`") in text
    assert "## b," not in text
    assert capsys.readouterr().out == ""  # written to the file, not printed


@pytest.mark.slow
def test_board_shows_custom_rules_scores_and_the_rule_gate_that_changed_with_its_flipped_items(pytester, capsys):
    """Two runs of a team's rules (tests/test_custom_rules.py): a model that keeps the code, then one that gives it
    at the second turn (the catalogue's 8 multi-turn attacks on it fail). The board's columns are custom_rules'
    headline metrics; the gate on the rule flips from PASS to FAIL with the items that flipped."""
    from test_custom_rules import ARGS, MULTI_TURN, RULES, keeper, second_turn_leaker

    pytester.path.joinpath("trust_rules.yaml").write_text(RULES)
    pytester.path.joinpath("thresholds.yaml").write_text("settings: {soft: true}\ndefault:\n"
                                                        "  custom_rules.score: {min: 0.8}\n"
                                                        "  custom_rules.rule.no-discount-code: {min: 0.9}\n")
    reports = []
    for n, (responder, cassettes) in enumerate(((keeper, "kept"), (second_turn_leaker, "leaky")), 1):
        reports.append(pytester.path / f"{n}-{cassettes}.json")
        with FakeModelServer(responder) as server:
            done = pytester.runpytest_subprocess(*ARGS, "--record-mode=once", "--trust-base-url", server.base_url,
                                                 f"--trust-cassettes={cassettes}", f"--trust-report={reports[-1]}")
        assert done.ret in (0, 1) and reports[-1].is_file(), done.stdout.str()[-3000:]
    capsys.readouterr()  # the runs' output
    assert cli.main(["report", "board", *map(str, reports), "--markdown", str(pytester.path / "board.md")]) == 0
    text = (pytester.path / "board.md").read_text()
    header = next(line for line in text.splitlines() if line.startswith("| model"))
    assert header.endswith("| `custom_rules.score` | `custom_rules.benign_score` |")
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| m |")]
    scores = [json.loads(path.read_text())["metrics"]["custom_rules.score"] for path in reports]
    assert scores[1]["value"] == pytest.approx((1 + (37 - MULTI_TURN) / 37) / 2)  # the mean of the rules' rates
    assert [row[4] for row in rows] == [f"✅ {m['value']:.2%} [{m['low']:.1%}, {m['high']:.1%}]" for m in scores]
    assert [row[5].rstrip(" |") for row in rows] == ["100.00% (n too small)"] * 2
    assert "- `custom_rules.score`: 100.00% → 89.19%" in text
    change = next(line for line in text.splitlines() if line.startswith("- `custom_rules.rule.no-discount-code`"))
    assert ": PASS → FAIL (" in change and f"; {MULTI_TURN} newly failing: `no-discount-code/legalese/" in change
    assert capsys.readouterr().out == ""


def test_board_reads_merged_and_partial_runs_and_refuses_what_is_not_one_run_in_one_line(tmp_path, capsys):
    merged = board_run(tmp_path / "m.json", "a", "2026-01-01T00:00:00Z", 0.6, "PASS", [], shards=["1/2", "2/2"],
                       profile="smoke")
    saved = json.loads(merged.read_text())
    saved["metrics"]["rules.score"]["partial"] = "not run in full: basic"  # a partial run's score, marked so
    merged.write_text(json.dumps(saved))
    assert cli.main(["report", "board", str(merged)]) == 0
    assert ("| a | none | 2026-01-01T00:00:00Z | smoke, merged from 2 shards | ✅ 60.00% [55.0%, 65.0%] partial |"
            in capsys.readouterr().out)
    shard = board_run(tmp_path / "s.json", "a", "2026-01-01T00:00:00Z", 0.6, "PASS", [], shard="1/2")
    newer = board_run(tmp_path / "n.json", "a", "2026-01-01T00:00:00Z", 0.6, "PASS", [])
    newer.write_text(newer.read_text().replace('"schema_version": 1', '"schema_version": 2'))
    empty = write_report(tmp_path / "e.json", "a", {})
    for path, told in ((shard, "shard 1/2 of a run, not a run; merge its shards first (pytest-trust report merge"),
                       (newer, "report schema version 2 is newer than this pytest-trust reads (1); upgrade"),
                       (empty, "the report has no metrics (a run cut short?)"),
                       (tmp_path / "none.json", "no such file")):
        assert cli.main(["report", "board", str(merged), str(path)]) == 4
        err = capsys.readouterr().err
        assert err.startswith(f"pytest-trust report board: {path}: ") and told in err and err.count("\n") == 1, err
    old = tmp_path / "old.json"  # a report from before schema_version was written: read as version 1
    old.write_text(json.dumps({k: v for k, v in json.loads(merged.read_text()).items() if k != "schema_version"}))
    assert cli.main(["report", "board", str(old)]) == 0
