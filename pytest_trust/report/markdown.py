"""The Markdown summary (``--trust-markdown PATH``): gates, headline scores and, against a baseline, what changed.

Short enough for a pull-request comment or ``$GITHUB_STEP_SUMMARY``. Built from the run's report (``RunReport``),
like every report of this package, so a saved report read back renders the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..benchmarks import summary_keys
from ..results.gates import GateResult
from ..results.metrics import Metric
from .formatting import fmt_interval, fmt_number, fmt_value, is_percent
from .run_report import RunReport

TOP_ITEMS = 10  # regressed items listed
TOP_DELTAS = 8  # summary-level metrics with the largest change listed
STATUS_MARK = {"PASS": "✅", "FAIL": "❌", "INCONCLUSIVE": "❔"}


def fmt_delta(now: Metric | None, before: Metric | None) -> str:
    """The change of a metric, in percentage points for rates and scores."""
    if now is None or before is None or now.value is None or before.value is None:
        return ""
    delta = now.value - before.value
    return f"{delta * 100:+.2f} pp" if is_percent(now) else f"{delta:+.4f}"


def fmt_gate_value(result: GateResult) -> str:
    """A gate's value: its metric's, or for a regression gate the p-value of its paired test."""
    if result.gate.alpha is not None:
        return "-" if result.metric is None else f"p = {result.metric.value:.3g}"
    return fmt_value(result.metric)


def fmt_bound(result: GateResult) -> str:
    gate, metric = result.gate, result.metric
    if gate.alpha is not None:  # fails on a significant change for the worse (exact McNemar)
        return f"no regression at α = {gate.alpha:g}"
    percent = is_percent(metric)
    parts = []
    if gate.min is not None:
        parts.append(f"≥ {fmt_number(gate.min, percent)}")
    if gate.max is not None:
        parts.append(f"≤ {fmt_number(gate.max, percent)}")
    text = ", ".join(parts) or "-"
    if gate.confidence is not None:  # a confidence gate compares its interval at that level
        text += f" at {gate.confidence * 100:g}%"
        if result.interval and abs(gate.confidence - 0.95) > 1e-12:
            low, high = result.interval
            text += f" [{fmt_number(low, percent)}, {fmt_number(high, percent)}]"
    return text


def benchmark_of(key: str) -> str:
    return key.split(".", 1)[0]


def gate_counts(gates: list[GateResult]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for result in gates:
        counts[result.status] = counts.get(result.status, 0) + 1
    return counts


def baseline_ids(entries: list[Any]) -> list[str]:
    """Item ids or node ids of a baseline list, whether its entries are strings or dicts."""
    out = []
    for entry in entries or []:
        if isinstance(entry, dict):
            out.append(str(entry.get("id") or entry.get("nodeid") or entry))
        else:
            out.append(str(entry))
    return out


def find_item(report: RunReport, key: str) -> dict[str, Any] | None:
    for item in report.entries:
        if key in (item.get("id"), item.get("nodeid")):
            return item
    return None


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def baseline_metrics(baseline: Mapping[str, Any] | None) -> dict[str, Metric]:
    """The baseline run's metrics, as its section of the report keeps them."""
    return {key: Metric.from_dict(entry) for key, entry in ((baseline or {}).get("metrics") or {}).items()}


def render(report: RunReport) -> str:
    run, metrics, gates, baseline = report.run, report.metrics, report.gates, report.baseline
    before = baseline_metrics(baseline)
    lines = [f"## pytest-trust: {run.get('model') or 'no model'}", ""]
    counts = gate_counts(gates)
    gate_line = ", ".join(f"{n} {status.lower()}" for status, n in sorted(counts.items())) or "none"
    items = ", ".join(f"{n} {outcome}" for outcome, n in sorted(report.counts.items())) or "none"
    lines.append(f"**Gates: {gate_line}** · items: {items} · record mode `{run.get('record_mode')}`")
    deviations = run.get("deviations") or {}
    if deviations:
        lines.append("")
        lines.append("Deviations from the upstream protocol: "
                     + ", ".join(f"`{name}={value}`" for name, value in deviations.items()))
    if gates:
        lines += ["", "| | gate | bound | value | 95% interval |" + (" Δ vs baseline |" if before else ""),
                  "|---|---|---|---|---|" + ("---|" if before else "")]
        for result in gates:
            key = result.gate.key
            metric = metrics.get(key)
            mark = STATUS_MARK.get(result.status, "⚪")
            row = (f"| {mark} {result.status} | `{key}` | {fmt_bound(result)} | "
                   f"{fmt_gate_value(result)} | {fmt_interval(metric)} |")
            if before:
                row += f" {fmt_delta(metric, before.get(key))} |"
            lines.append(row)
    if baseline is not None:
        lines += _baseline_lines(report, baseline, before)
    summary = summary_keys(metrics)
    if summary:
        lines += ["", "<details><summary>Headline scores</summary>", "",
                  "| metric | value | 95% interval | n |", "|---|---|---|---|"]
        for key in summary:
            metric = metrics[key]
            note = " (partial)" if metric.partial else ""
            lines.append(f"| `{key}`{note} | {fmt_value(metric)} | {fmt_interval(metric)} | {metric.n} |")
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def _baseline_lines(report: RunReport, baseline: Mapping[str, Any], before: dict[str, Metric]) -> list[str]:
    failing = baseline_ids(baseline.get("newly_failing", []))
    erroring = baseline_ids(baseline.get("newly_erroring", []))
    passing = baseline_ids(baseline.get("newly_passing", []))
    lines = ["", (f"### Against the baseline: {len(failing)} newly failing, {len(erroring)} newly erroring, "
                 f"{len(passing)} newly passing")]
    metrics = report.metrics
    changed = [(key, metrics[key].value - before[key].value) for key in summary_keys(metrics)
               if key in before and metrics[key].value is not None and before[key].value is not None]
    changed = sorted((c for c in changed if c[1]), key=lambda c: -abs(c[1]))[:TOP_DELTAS]
    if changed:
        lines += ["", "| metric | baseline | now | Δ |", "|---|---|---|---|"]
        for key, _ in changed:
            lines.append(f"| `{key}` | {fmt_value(before[key])} | {fmt_value(metrics[key])} | "
                         f"{fmt_delta(metrics[key], before[key])} |")
    regressed = [(kind, key) for kind, keys in (("fails", failing), ("errors", erroring)) for key in keys]
    if regressed:
        lines += ["", "| item | now | why |", "|---|---|---|"]
        for kind, key in regressed[:TOP_ITEMS]:
            item = find_item(report, key) or {}
            why = (item.get("verdict") or {}).get("reason") or item.get("error_message") or item.get("error") or ""
            lines.append(f"| `{_cell(key)}` | {kind} | {_cell(why[:200])} |")
        if len(regressed) > TOP_ITEMS:
            lines.append(f"| ... | | {len(regressed) - TOP_ITEMS} more in the HTML or JSON report |")
    return lines
