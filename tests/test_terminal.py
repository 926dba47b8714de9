"""How the summary prints a metric: scores on the papers' 0-100 scale, differences as numbers."""

from pytest_trust.metrics import Metric
from pytest_trust.report.terminal import format_metric, format_value


def test_rates_and_scores_print_as_percentages_with_two_decimals():
    assert format_value(Metric(0.87547, kind="mean")) == "87.55%"
    assert format_metric(Metric(0.5, 0.25, 0.75, 8)) == " 50.00%  [ 25.0%,  75.0%]    n=8"


def test_differences_print_as_numbers_and_partial_scores_are_marked():
    assert format_value(Metric(0.21, kind="value")) == "0.2100"
    line = format_metric(Metric(0.7033, None, None, 600, kind="value", partial="crime_br_0.0"))
    assert line.startswith(" 0.7033") and line.endswith("n=600  partial")
