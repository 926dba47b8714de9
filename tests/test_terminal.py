"""How the summary prints a metric: scores on the papers' 0-100 scale, differences as numbers."""

import pytest
from conftest import HODOR_SUITE

from pytest_trust.report.terminal import failing_account, format_metric, format_value, reason_pattern, scenario_of
from pytest_trust.results.metrics import Metric, pass_rate
from pytest_trust.results.records import ItemRecord


def test_rates_and_scores_print_as_percentages_with_two_decimals():
    assert format_value(Metric(0.87547, kind="mean")) == "87.55%"
    assert format_metric(Metric(0.5, 0.25, 0.75, 8)) == " 50.00%  [ 25.0%,  75.0%]    n=8"


def test_a_metric_without_an_interval_says_why_in_its_place():
    assert format_metric(pass_rate(1, 2)) == " 50.00%  n too small         n=2"  # 2 < metrics.MIN_N
    assert format_metric(Metric(0.0, n=40, kind="mean", why="every resample the same")) == (
        "  0.00%  no spread           n=40")


def test_differences_print_as_numbers_and_partial_scores_are_marked():
    assert format_value(Metric(0.21, kind="value")) == "0.2100"
    line = format_metric(Metric(0.7033, None, None, 600, kind="value", partial="crime_br_0.0"))
    assert line.startswith(" 0.7033") and line.endswith("n=600  partial")


def _records(rows):
    """Records of scored items: (nodeid, benchmark, item id, passed, reason)."""
    return [ItemRecord(nodeid, "passed" if passed else "failed",
                       {"benchmark": benchmark, "item_id": item_id, "verdict": {"passed": passed, "reason": reason}})
            for nodeid, benchmark, item_id, passed, reason in rows]


def test_the_failing_account_counts_per_scenario_with_the_commonest_reasons_and_a_few_ids():
    rows = [(f"n{i}", "ood", f"style-0shot-base/{i}", i % 4 == 0, "answered 'positive', expected 'negative'"
             if i % 4 == 1 else f"answered 'The movie was great, I liked it {i}', read as 'x', expected 'negative'")
            for i in range(12)]
    rows += [(f"k{i}", "ood", f"knowledge-5shot-global_facts_0/{seed}/{i}", False, "answered '2', expected '3'")
             for i, seed in ((1, 2333), (2, 10007))]
    rows += [("r1", "rules", "benign/AnimalSounds/1", True, "")]
    account = failing_account(_records(rows))
    assert account == [
        "ood: 11 of 14 failed, in 2 of 2 scenarios",
        "  style-0shot-base: 9 of 12 failed",
        "       6x answered 'The movie was great,...', read as 'x', expected 'negative'",  # alike answers: one reason
        "       3x answered 'positive', expected 'negative'",
        "    e.g. style-0shot-base/1, style-0shot-base/10, style-0shot-base/11",
        "  knowledge-5shot-global_facts_0: 2 of 2 failed",  # seeds are one scenario
        "       2x answered '2', expected '3'",
        "    e.g. knowledge-5shot-global_facts_0/10007/2, knowledge-5shot-global_facts_0/2333/1",
    ]  # rules: nothing failed, nothing listed


def test_the_account_shows_the_scenarios_with_most_failures_and_counts_the_rest():
    rows = [(f"{s}-{i}", "rules", f"redteam/S{s}/{i}", False, "turn 1/1: no") for s in range(5) for i in range(s + 1)]
    account = failing_account(_records(rows))
    assert [line for line in account if not line.startswith("    ")] == [
        "rules: 15 of 15 failed, in 5 of 5 scenarios", "  redteam/S4: 5 of 5 failed", "  redteam/S3: 4 of 4 failed",
        "  redteam/S2: 3 of 3 failed", "  ... 2 more scenarios with 3 failing items (-v lists every scenario)"]
    assert len([line for line in failing_account(_records(rows), every_scenario=True) if line.endswith("failed")]) == 5


def test_reasons_keep_labels_and_show_how_long_answers_begin():
    assert reason_pattern("answered 'no', expected 'yes'") == "answered 'no', expected 'yes'"
    assert (reason_pattern('no option in the answer "I can\'t answer that, it is not right" (read as \'x\')')
            == "no option in the answer \"I can't answer that,...\" (read as 'x')")
    # escaped: no control character reaches the terminal, no escape is cut in half
    assert reason_pattern("answered '\x1b[2Jcleared the screen, then more'") == "answered '\\x1b[2Jcleared the scre...'"
    assert reason_pattern("answered 'line one, then two:\\nand the rest'") == "answered 'line one, then two:...'"
    assert scenario_of("backdoor-addsent-setup1-asr/2333/612") == "backdoor-addsent-setup1-asr"
    assert scenario_of("system-prompts-07") == "system-prompts-07"


def test_a_long_account_folds_to_one_line_per_benchmark_naming_its_worst_scenarios():
    rows = [(f"a{i}", "ood", f"style-{i % 5}/{i}", i == 0, "answered 'x', expected 'y'") for i in range(20)]
    rows += [("b1", "rules", "benign/AnimalSounds/1", False, "no sound")]
    assert failing_account(_records(rows), folded=True) == [
        "ood: 19 of 20 failed, in 5 of 5 scenarios; most in style-1 4, style-2 4, style-3 4, ...",
        "rules: 1 of 1 failed, in 1 of 1 scenarios; most in benign/AnimalSounds 1",
    ]


def test_the_default_rows_are_a_benchmarks_headline_when_several_ran_and_error_rates_only_above_zero():
    from pytest_trust.report.terminal import _headline

    headlines = {"rules": ("rules.score", "rules.benign_score"), "ood": ("ood.score",)}
    assert _headline("rules.score", Metric(0.4), headlines)
    assert not _headline("rules.basic.harmless", Metric(0.9), headlines)
    assert not _headline("ood.error_rate", Metric(0.0), headlines)
    assert _headline("ood.error_rate", Metric(0.01), headlines)
    assert not _headline("otherbench.sub.key", Metric(0.5), headlines)  # benchmarks.headlines gives none for it


def test_passing_error_rate_gates_share_a_row_and_every_other_gate_keeps_its_own():
    from pytest_trust.report.terminal import _folded_error_gates
    from pytest_trust.results.gates import Gate, GateResult

    results = [GateResult(Gate("rules.error_rate", max=0.0), Metric(0.0), "PASS"),
               GateResult(Gate("ood.error_rate", max=0.0), Metric(0.0), "PASS"),
               GateResult(Gate("fairness.error_rate", max=0.0), Metric(0.1), "FAIL", blocks=True),
               GateResult(Gate("rules.score", min=0.4), Metric(0.5), "PASS")]
    rest, rows = _folded_error_gates(results)
    assert [g.gate.key for g in rest] == ["fairness.error_rate", "rules.score"]
    assert rows == [("<= 0", "PASS for 2: rules, ood")]  # a row of the gates' table: the bound, the status


def test_answers_not_plain_text_read_per_benchmark_alone_and_per_reason_when_several_ran():
    from pytest_trust.report.terminal import _irregular_lines

    irregular = {"rules": {"length": 3}, "ood": {"length": 2, "empty": 1}}
    assert _irregular_lines(irregular, by_reason=False) == [
        "answers of ood that were not plain text: 1 empty, 2 cut at max_tokens",
        "answers of rules that were not plain text: 3 cut at max_tokens"]
    assert _irregular_lines(irregular, by_reason=True) == ["answers empty: ood 1",
                                                           "answers cut at max_tokens: ood 2, rules 3"]


# --- the summary at the terminal's width ------------------------------------------------------------------------

LONG_GATES = ("rules_v1.systematic.category.obfuscation.helpful", "rules_v1.systematic.category.indirection",
              "rules_v1.systematic")


@pytest.mark.parametrize("columns", [100, 60])
@pytest.mark.slow
def test_the_summary_fits_the_terminal_and_keeps_its_numbers_aligned(pytester, monkeypatch, columns, fake_model):
    """pytest's width (COLUMNS here) bounds every line of the summary; a name longer than its column (at 60, the
    gates' and metrics' long keys) takes its own line with its numbers below, in the same columns as the rest."""
    pytester.makepyfile(test_suite=HODOR_SUITE)
    pytester.path.joinpath("thresholds.yaml").write_text(
        "default:\n" + "".join(f"  {key}: {{min: 0.2}}\n" for key in LONG_GATES))
    monkeypatch.setenv("COLUMNS", str(columns))
    server = fake_model(lambda body: "No." if len(body["messages"][-1]["content"]) % 3 == 0 else "Hodor")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "--model", "m", "--record-mode=once",
                                           "--trust-base-url", server.base_url)
    lines = result.stdout.lines
    summary = lines[next(i for i, line in enumerate(lines) if "pytest-trust" in line):]
    assert max(len(line) for line in summary) <= columns, "\n".join(summary)
    metrics = summary[summary.index(next(line for line in summary if line.startswith("metric"))):]
    metrics = metrics[:next(i for i, line in enumerate(metrics) if line.startswith("(") or not line)]
    gates = summary[summary.index(next(line for line in summary if line.startswith("gate "))):]
    gates = gates[:gates.index("")]
    for table, mark in ((metrics, "%  "), (gates, "%  ")):
        rows = [line for line in table[1:] if mark in line]
        assert len({line.index(mark) for line in rows}) == 1, "\n".join(table)  # the numbers in one column
        wrapped = [line for line in table[1:] if mark not in line]  # a name alone, its numbers on the next line
        assert all(table[table.index(name) + 1].startswith(" " * 16) for name in wrapped), "\n".join(table)
        assert bool(wrapped) == (columns == 60), "\n".join(table)
    assert any(LONG_GATES[0] == line for line in gates) == (columns == 60)
