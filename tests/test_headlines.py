"""The headline rule (docs/glossary.md, "headline") is one function, ``benchmarks.headlines``: the terminal
summary, the HTML scorecard and the board show the same metrics, also on a partial run where a benchmark's
declared headline was not computed."""

from pathlib import Path

from pytest_trust.benchmarks import headlines, is_score_level, is_summary_level, summary_keys
from pytest_trust.report import board, html
from pytest_trust.report.run_report import RunReport
from pytest_trust.report.terminal import _shown_metrics
from pytest_trust.results.metrics import Metric

# rules ran in full; advglue in part (its declared advglue.score not computed); ood errored only; otherbench is
# a benchmark not installed here
METRICS = {
    "rules.basic.harmless": Metric(0.9, 0.8, 0.95, n=100),
    "rules.score": Metric(0.4, 0.35, 0.45, n=100),
    "rules.benign_score": Metric(0.5, 0.45, 0.55, n=100),
    "rules.error_rate": Metric(0.0, 0.0, 0.03, n=100),
    "advglue.sst2.robust_accuracy": Metric(0.4, 0.2, 0.6, n=20),
    "advglue.robust_accuracy": Metric(0.2, 0.1, 0.3, n=100, partial="sst2 only"),
    "advglue.rr_ne": Metric(0.6, 0.5, 0.7, n=100),
    "ood.error_rate": Metric(1.0, 0.9, 1.0, n=10),
    "otherbench.a.b.c": Metric(0.7, 0.6, 0.8, n=50),
    "otherbench.sub.key": Metric(0.6, 0.5, 0.7, n=50),
    "otherbench.score": Metric(0.5, 0.4, 0.6, n=50),
}


def test_a_benchmarks_headline_is_what_it_declares_else_its_first_score_level_key_computed():
    assert headlines(METRICS) == {
        "rules": ("rules.score", "rules.benign_score"),  # declared (Benchmark.headline), registry order
        "advglue": ("advglue.robust_accuracy",),  # advglue.score not computed: the first score-level key that was
        "otherbench": ("otherbench.score",),  # not installed here: the default rule
    }
    assert is_score_level("rules.score") and not is_score_level("rules.error_rate")
    assert not is_score_level("rules.basic.harmless")
    assert is_summary_level("rules.basic.harmless") and not is_summary_level("otherbench.a.b.c")
    assert "otherbench.a.b.c" not in summary_keys(METRICS) and "rules.basic.harmless" in summary_keys(METRICS)


def test_the_terminal_the_scorecard_and_the_board_show_the_same_headlines(tmp_path: Path):
    report = RunReport({"model": "m"}, [], METRICS, [], {}, {}, [])
    rows = _shown_metrics(METRICS, set(), several=True, verbose=False)
    assert rows == ["rules.score", "rules.benign_score", "advglue.robust_accuracy", "ood.error_rate",
                    "otherbench.score"]

    scorecard = html._scorecard(report)
    for bar in ("rules: score", "advglue: robust_accuracy", "otherbench: score"):  # each benchmark's first
        assert bar in scorecard

    columns = board.headline_columns([board.BoardRun(tmp_path / "run.json", report)])
    assert columns == ["rules.score", "rules.benign_score", "advglue.robust_accuracy", "otherbench.score"]
