"""``pytest-trust report compare A.json B.json [more...] [--html PATH]``: runs side by side.

Every metric of the JSON reports (docs/report-schema.md), each run's value with its 95% interval, and
for every run after the first its difference from the first with a two-sided p-value:
- a rate over n items (``kind: rate``): the two-proportion z test with a pooled proportion, on the
  counts the report gives (value x n);
- any other metric with an interval in both runs: a Wald z test on the difference, its standard error
  taken from the two 95% intervals (half width / 1.96 each, combined as independent);
- no test where a run gives no interval (a value, a rounded score, a metric with "n too small"), where
  either run has fewer than metrics.MIN_N items, or where both intervals are zero wide (an old report's):
  a difference measured on 2 items is not evidence of anything.
The p-values shown are adjusted by Holm's method over all the tests of the table (stats.holm), so that the
chance of calling any difference significant by chance alone stays at 5%, however many metrics are compared.
These treat the runs as independent samples. Where two runs scored the same items (two models or two
prompts on one suite), the items are also paired, per benchmark: items newly failing and newly passing
against run 1 and McNemar's exact p on them (the sharper test for paired verdicts), as --trust-baseline,
Holm-adjusted over the benchmarks of each pair of runs; none on fewer than MIN_N paired items.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..benchmarks import summary_keys
from ..errors import UsageProblem
from ..results import baseline
from ..results.metrics import MIN_N, Metric
from ..results.stats import holm
from .file import read
from .formatting import fmt_interval, fmt_value, is_percent
from .run_report import RunReport

Z95 = 1.959963984540054
TESTS = ("two-proportion z test (pooled) for rates over n items; Wald z test from the two 95% intervals for "
         f"other metrics with intervals; no test where a run gives no interval or has fewer than {MIN_N} items")
CORRECTION = "Holm's method over every test of the table (family-wise error 5%)"
SIGNIFICANT = 0.05


@dataclass(frozen=True)
class Run:
    label: str
    path: Path
    report: RunReport


@dataclass(frozen=True)
class Difference:
    delta: float
    p: float | None  # two-sided; None when no test applies; Holm-adjusted once ``tested`` has run
    test: str  # "2-prop z", "Wald z", "n too small" or ""


def load(paths: list[Path]) -> list[Run]:
    """The reports, or one UsageProblem naming the file and what to do."""
    if len(paths) < 2:
        raise UsageProblem("report compare: pass two or more JSON reports (written with --trust-report PATH)")
    runs = []
    for path in paths:
        report = read(path, "report compare:", with_items=False)
        if not isinstance(report.get("items"), list):
            report["items"] = []  # a report without items still compares by its metrics
        if not isinstance(report.get("metrics"), dict):
            raise UsageProblem(f"report compare: {path}: the report has no metrics; was it cut short?")
        runs.append(Run("", path, RunReport.read(report)))
    models = [str(run.report.model) for run in runs]
    labels = [model if models.count(model) == 1 else f"{model} ({run.path.name})" for model, run in zip(models, runs)]
    if len(set(labels)) < len(labels):  # the same model and file name: number them
        labels = [f"{label} #{index}" for index, label in enumerate(labels, 1)]
    return [Run(label, run.path, run.report) for label, run in zip(labels, runs)]


def metric_keys(runs: list[Run]) -> list[str]:
    keys: dict[str, None] = {}
    for run in runs:
        keys.update(dict.fromkeys(run.report.metrics))
    return list(keys)


def difference(a: Metric | None, b: Metric | None) -> Difference | None:
    """B minus A, and the p-value of the difference under the test that fits the metric."""
    if a is None or b is None or a.value is None or b.value is None:
        return None
    delta = b.value - a.value
    if "value" in (a.kind, b.kind):  # a constant, or a p-value: nothing to test
        return Difference(delta, None, "")
    if min(a.n or 0, b.n or 0) < MIN_N or a.why or b.why:
        return Difference(delta, None, "n too small")
    if a.kind == b.kind == "rate":
        return Difference(delta, two_proportion_p(round(a.value * a.n), a.n, round(b.value * b.n), b.n), "2-prop z")
    if a.low is not None and a.high is not None and b.low is not None and b.high is not None:
        se = math.hypot((a.high - a.low) / (2 * Z95), (b.high - b.low) / (2 * Z95))
        if se > 0:
            return Difference(delta, _p_of_z(delta / se), "Wald z")
        return Difference(delta, None, "no spread")  # zero-wide intervals: nothing to test against
    return Difference(delta, None, "")


def tested(runs: list[Run]) -> dict[tuple[str, int], Difference]:
    """Every metric's difference of each later run from run 1, by (key, run number), p-values Holm-adjusted
    over all of them."""
    found = {}
    for key in metric_keys(runs):
        for number, run in enumerate(runs[1:], 2):
            diff = difference(runs[0].report.metrics.get(key), run.report.metrics.get(key))
            if diff is not None:
                found[key, number] = diff
    with_p = [where for where, diff in found.items() if diff.p is not None]
    for where, p in zip(with_p, holm([found[where].p for where in with_p])):
        found[where] = Difference(found[where].delta, p, found[where].test)
    return found


def paired(runs: list[Run]) -> list[tuple[int, dict[str, Any]]]:
    """For each later run sharing scored items with run 1: (its number, benchmark -> McNemar test on the pairs,
    its p Holm-adjusted over the benchmarks, None below MIN_N paired items)."""
    first = runs[0]
    found = []
    for number, run in enumerate(runs[1:], 2):
        if first.report.entries and run.report.entries:
            tests = baseline.compare(run.report.entries, first.report.to_dict(), first.path)["tests"]
            tests = {name: dict(test) for name, test in tests.items() if test["paired"]}
            enough = [name for name, test in tests.items() if test["paired"] >= MIN_N]
            adjusted = dict(zip(enough, holm([tests[name]["p"] for name in enough])))
            for name, test in tests.items():
                test["p"] = adjusted.get(name)
            if tests:
                found.append((number, tests))
    return found


def paired_lines(runs: list[Run]) -> list[str]:
    lines = []
    for number, tests in paired(runs):
        lines += ["", (f"paired items, [{number}] against [1] (McNemar's exact test on the items scored in both, "
                      f"Holm-adjusted over the benchmarks; none below {MIN_N} paired items):")]
        width = max(len(name) for name in tests)
        for name, test in tests.items():
            lines.append(f"  {name:{width}}  {test['paired']:>6} paired  {test['newly_failing']:>5} newly failing  "
                         f"{test['newly_passing']:>5} newly passing  p {fmt_paired_p(test['p'])}")
    return lines


def fmt_paired_p(p: float | None) -> str:
    if p is None:
        return "- (n too small)"
    return ("<0.001" if p < 0.001 else f"{p:.3f}") + (" *" if p < SIGNIFICANT else "")


def two_proportion_p(x1: int, n1: int, x2: int, n2: int) -> float:
    """Two-sided p of the pooled two-proportion z test (1.0 when both rates are 0 or both 1)."""
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return _p_of_z((x2 / n2 - x1 / n1) / se)


def _p_of_z(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def fmt_delta(delta: float, metric: Metric | None) -> str:
    return f"{delta * 100:+.2f} pp" if is_percent(metric) else f"{delta:+.4f}"


def fmt_p(diff: Difference | None) -> str:
    if diff is not None and diff.test == "n too small":
        return "n<" + str(MIN_N)
    if diff is None or diff.p is None:
        return "-"
    text = "<0.001" if diff.p < 0.001 else f"{diff.p:.3f}"
    return text + (" *" if diff.p < SIGNIFICANT else "")


def text(runs: list[Run]) -> str:
    """The terminal table: one row per metric, per run its value and interval, then each difference from run 1."""
    keys = metric_keys(runs)
    diffs = tested(runs)
    lines = ["pytest-trust report compare: " + "  vs  ".join(f"[{i}] {run.label}" for i, run in enumerate(runs, 1)),
             (f"significance of each run's difference from [1]: {TESTS}; p adjusted by {CORRECTION}; "
             f"* adjusted p < {SIGNIFICANT}"),
             "metrics are compared as independent samples; items both runs scored are paired below", ""]
    width = max(len(key) for key in keys) if keys else 10
    header = f"{'metric':{width}}" + "".join(f"  {f'[{i}] value  95% interval':32}" for i in range(1, len(runs) + 1))
    header += "".join(f"  {f'[{i}]-[1]':>12} {'p':>8}" for i in range(2, len(runs) + 1))
    lines.append(header)
    for key in keys:
        metrics = [run.report.metrics.get(key) for run in runs]
        row = f"{key:{width}}"
        for metric in metrics:
            row += f"  {(fmt_value(metric) + ' ' + fmt_interval(metric)) if metric else 'not in this run':32}"
        for number, metric in enumerate(metrics[1:], 2):
            diff = diffs.get((key, number))
            row += (f"  {fmt_delta(diff.delta, metric):>12} {fmt_p(diff):>8}" if diff else f"  {'-':>12} {'-':>8}")
        lines.append(row.rstrip())
    count = sum(1 for d in diffs.values() if d.p is not None)
    significant = sum(1 for d in diffs.values() if d.p is not None and d.p < SIGNIFICANT)
    lines += ["", (f"{len(keys)} metrics; {significant} differences from [1] with Holm-adjusted p < {SIGNIFICANT} "
                  f"of {count} tested (the chance of any of them by chance alone is at most {SIGNIFICANT:.0%})")]
    lines += paired_lines(runs)
    return "\n".join(lines) + "\n"


def render_html(runs: list[Run]) -> str:
    """The comparison as one self-contained HTML file: the summary-level rates every run has as a figure (those
    some run lacks named under it), then every metric."""
    from . import plotly_bundle

    e = html.escape
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pytest-trust compare</title>"
            "<style>body{font:14px system-ui,sans-serif;margin:20px 28px;color:#1d2330}table{border-collapse:collapse}"
            "td,th{padding:3px 10px;border-bottom:1px solid #eceef2;text-align:left}th{background:#f2f4f7}"
            ".i{color:#78818f;font-size:12px}.sig{background:#fde2e1;font-weight:600}</style>"
            f"{plotly_bundle.head()}</head><body><h1>pytest-trust: runs compared</h1><ul>{_run_list(runs)}</ul>"
            f"<p>Significance of each run's difference from [1]: {e(TESTS)}; p adjusted by {e(CORRECTION)}; "
            f"highlighted: adjusted p &lt; {SIGNIFICANT}. "
            "Metrics are compared as independent samples; items both runs scored are paired below the table.</p>"
            f"<section id=\"figure\">{_headline_figure(runs)}</section><section id=\"metrics\">{_metric_table(runs)}"
            f"{_paired_tables(runs)}</section></body></html>\n")


def _run_list(runs: list[Run]) -> str:
    """The runs compared, numbered: each one's label, file and start."""
    e = html.escape
    return "".join(f"<li>[{i}] {e(run.label)}: {e(str(run.path))}, {e(str(run.report.run.get('started') or ''))}"
                   f"</li>" for i, run in enumerate(runs, 1))


def _charted(runs: list[Run]) -> tuple[list[str], dict[str, list[int]]]:
    """The summary-level rates (``benchmarks.summary_keys``) every run has (charted side by side), and those only
    some runs have, with the runs that have each (named, not charted: a lone bar would read as a difference
    between the runs)."""
    candidates = [k for k in summary_keys(dict.fromkeys(metric_keys(runs))) if is_percent(_any_metric(runs, k))
                  and not k.endswith("error_rate")]
    charted = [k for k in candidates if all(_value(run, k) is not None for run in runs)]
    apart = {k: [i for i, run in enumerate(runs, 1) if _value(run, k) is not None] for k in candidates
             if k not in charted}
    return charted, apart


def _headline_figure(runs: list[Run]) -> str:
    """The figure's section: the summary-level rates every run has as grouped bars with their intervals, or why
    there is no chart; then the rates left out, not being in every run."""
    e = html.escape
    headline, apart = _charted(runs)
    figure = (_bars(runs, headline) if headline
              else "<p class=i>No headline metric is in every run: nothing to chart side by side.</p>")
    if apart:
        figure += ("<p class=i>Not charted, not in every run (see the table): " + ", ".join(
            f"<code>{e(k)}</code> ({' '.join(f'[{i}]' for i in has)} only)" for k, has in apart.items()) + "</p>")
    return figure


def _bars(runs: list[Run], headline: list[str]) -> str:
    """The headline rates as horizontal bars, a group per metric, a bar per run, with their 95% intervals."""
    import plotly.graph_objects as go

    from .html_parts import figure as drawn

    fig = go.Figure()
    for run in runs:
        metrics = [run.report.metrics.get(k) for k in headline]
        fig.add_bar(name=run.label, y=headline, x=[m.value if m else None for m in metrics], orientation="h",
                    error_x={"type": "data", "visible": True,
                             "array": [m.high - m.value if m and m.high is not None else 0 for m in metrics],
                             "arrayminus": [m.value - m.low if m and m.low is not None else 0 for m in metrics]})
    fig.update_layout(barmode="group", xaxis={"tickformat": ".0%"}, yaxis={"autorange": "reversed"},
                      title="Headline metrics in every run, 95% intervals")
    return drawn(fig, 140 + 18 * len(headline) * len(runs))


def _metric_table(runs: list[Run]) -> str:
    """Every metric: per run its value and interval, then each later run's difference from run 1 and its p."""
    e = html.escape
    head = "".join(f"<th>[{i}] {e(run.label)}</th>" for i, run in enumerate(runs, 1))
    head += "".join(f"<th>[{i}]-[1]</th><th>p</th>" for i in range(2, len(runs) + 1))
    diffs = tested(runs)
    rows = "".join(_metric_row(key, [run.report.metrics.get(key) for run in runs], diffs) for key in metric_keys(runs))
    return f"<table><thead><tr><th>metric</th>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _metric_row(key: str, metrics: list[Metric | None], diffs: dict[tuple[str, int], Difference]) -> str:
    """One metric's row: each run's value and interval, then each later run's difference and its p, highlighted
    when significant, with the test that gave it."""
    e = html.escape
    cells = "".join(f"<td>{e(fmt_value(m))} <span class=i>{e(fmt_interval(m))}</span></td>" if m
                    else "<td class=i>not in this run</td>" for m in metrics)
    for number, metric in enumerate(metrics[1:], 2):
        diff = diffs.get((key, number))
        if diff is None:
            cells += "<td>-</td><td>-</td>"
            continue
        significant = diff.p is not None and diff.p < SIGNIFICANT
        cells += (f"<td>{e(fmt_delta(diff.delta, metric))}</td><td{' class=sig' if significant else ''}>"
                  f"{e(fmt_p(diff))}{' (' + e(diff.test) + ')' if diff.test else ''}</td>")
    return f"<tr><td><code>{e(key)}</code></td>{cells}</tr>"


def _paired_tables(runs: list[Run]) -> str:
    """Per later run sharing items with run 1, a table of the benchmarks' paired items and McNemar p."""
    e = html.escape
    return "".join(
        f"<h2>Paired items, [{number}] against [1]</h2><table><thead><tr><th>benchmark</th><th>paired</th>"
        "<th>newly failing</th><th>newly passing</th><th>McNemar p (Holm)</th></tr></thead><tbody>"
        + "".join(f"<tr><td>{e(name)}</td><td>{t['paired']}</td><td>{t['newly_failing']}</td><td>{t['newly_passing']}"
                  f"</td><td{' class=sig' if t['p'] is not None and t['p'] < SIGNIFICANT else ''}>"
                  f"{'n too small' if t['p'] is None else format(t['p'], '.3g')}</td></tr>"
                  for name, t in tests.items()) + "</tbody></table>" for number, tests in paired(runs))


def _value(run: Run, key: str) -> float | None:
    metric = run.report.metrics.get(key)
    return metric.value if metric is not None else None


def _any_metric(runs: list[Run], key: str) -> Metric | None:
    return next((run.report.metrics[key] for run in runs if key in run.report.metrics), None)
