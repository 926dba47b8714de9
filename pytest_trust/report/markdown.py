"""The Markdown summary (``--trust-markdown PATH``): gates, headline scores and, against a baseline, what changed.

Short enough for a pull-request comment or ``$GITHUB_STEP_SUMMARY``. Built from the JSON report's dict
(docs/report-schema.md), like every report of this package, so a saved report renders the same.
The value formatting helpers here are shared by the HTML report and ``pytest-trust report compare``.
"""

from __future__ import annotations

from typing import Any

from ..metrics import no_interval

HEADLINE_DEPTH = 3  # keys like rules.basic.harmless: the terminal summary's headline rows
TOP_ITEMS = 10  # regressed items listed
TOP_DELTAS = 8  # headline metrics with the largest change listed
STATUS_MARK = {"PASS": "✅", "FAIL": "❌", "INCONCLUSIVE": "❔"}


def is_percent(metric: dict[str, Any] | None) -> bool:
    """Rates and scores read as percentages (the papers' 0-100 scale); other values as plain numbers."""
    return metric is None or metric.get("kind") != "value"


def fmt_number(value: float | None, percent: bool) -> str:
    if value is None:
        return "-"
    return f"{value:.2%}" if percent else f"{value:.4f}"


def fmt_value(metric: dict[str, Any] | None) -> str:
    return "-" if metric is None else fmt_number(metric.get("value"), is_percent(metric))


def fmt_interval(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("low") is None or metric.get("high") is None:
        return f"({no_interval(metric.get('why'))})" if metric and metric.get("why") else ""
    if is_percent(metric):
        return f"[{metric['low']:.1%}, {metric['high']:.1%}]"
    return f"[{metric['low']:.4f}, {metric['high']:.4f}]"


def fmt_delta(now: dict[str, Any] | None, before: dict[str, Any] | None) -> str:
    """The change of a metric, in percentage points for rates and scores."""
    if not now or not before or now.get("value") is None or before.get("value") is None:
        return ""
    delta = now["value"] - before["value"]
    return f"{delta * 100:+.2f} pp" if is_percent(now) else f"{delta:+.4f}"


def fmt_gate_value(gate: dict[str, Any], metric: dict[str, Any] | None) -> str:
    """A gate's value: its metric's, or for a regression gate the p-value of its paired test."""
    if gate.get("alpha") is not None:
        return "-" if gate.get("value") is None else f"p = {gate['value']:.3g}"
    return fmt_number(gate.get("value"), is_percent(metric))


def fmt_bound(gate: dict[str, Any], metric: dict[str, Any] | None) -> str:
    if gate.get("alpha") is not None:  # fails on a significant change for the worse (exact McNemar)
        return f"no regression at α = {gate['alpha']:g}"
    percent = is_percent(metric)
    parts = []
    if gate.get("min") is not None:
        parts.append(f"≥ {fmt_number(gate['min'], percent)}")
    if gate.get("max") is not None:
        parts.append(f"≤ {fmt_number(gate['max'], percent)}")
    text = ", ".join(parts) or "-"
    if gate.get("confidence") is not None:  # a confidence gate compares its interval at that level
        text += f" at {gate['confidence'] * 100:g}%"
        if gate.get("interval") and abs(gate["confidence"] - 0.95) > 1e-12:
            low, high = gate["interval"]
            text += f" [{fmt_number(low, percent)}, {fmt_number(high, percent)}]"
    return text


def headline_keys(metrics: dict[str, Any]) -> list[str]:
    return [key for key in metrics if key.count(".") < HEADLINE_DEPTH]


def benchmark_of(key: str) -> str:
    return key.split(".", 1)[0]


def gate_counts(gates: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for gate in gates:
        counts[gate["status"]] = counts.get(gate["status"], 0) + 1
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


def find_item(report: dict[str, Any], key: str) -> dict[str, Any] | None:
    for item in report.get("items", []):
        if key in (item.get("id"), item.get("nodeid")):
            return item
    return None


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(report: dict[str, Any]) -> str:
    run = report.get("run", {})
    metrics = report.get("metrics", {})
    gates = report.get("gates", [])
    baseline = report.get("baseline") or None
    before = (baseline or {}).get("metrics") or {}
    lines = [f"## pytest-trust: {run.get('model') or 'no model'}", ""]
    counts = gate_counts(gates)
    gate_line = ", ".join(f"{n} {status.lower()}" for status, n in sorted(counts.items())) or "none"
    items = ", ".join(f"{n} {outcome}" for outcome, n in sorted(report.get("counts", {}).items())) or "none"
    lines.append(f"**Gates: {gate_line}** · items: {items} · record mode `{run.get('record_mode')}`")
    deviations = run.get("deviations") or {}
    if deviations:
        lines.append("")
        lines.append("Deviations from the upstream protocol: "
                     + ", ".join(f"`{name}={value}`" for name, value in deviations.items()))
    if gates:
        lines += ["", "| | gate | bound | value | 95% interval |" + (" Δ vs baseline |" if before else ""),
                  "|---|---|---|---|---|" + ("---|" if before else "")]
        for gate in gates:
            metric = metrics.get(gate["key"])
            mark = STATUS_MARK.get(gate["status"], "⚪")
            row = (f"| {mark} {gate['status']} | `{gate['key']}` | {fmt_bound(gate, metric)} | "
                   f"{fmt_gate_value(gate, metric)} | {fmt_interval(metric)} |")
            if before:
                row += f" {fmt_delta(metric, before.get(gate['key']))} |"
            lines.append(row)
    if baseline is not None:
        lines += _baseline_lines(report, baseline, before)
    headline = headline_keys(metrics)
    if headline:
        lines += ["", "<details><summary>Headline scores</summary>", "",
                  "| metric | value | 95% interval | n |", "|---|---|---|---|"]
        for key in headline:
            metric = metrics[key]
            note = " (partial)" if metric.get("partial") else ""
            lines.append(f"| `{key}`{note} | {fmt_value(metric)} | {fmt_interval(metric)} | {metric.get('n', '')} |")
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def _baseline_lines(report: dict[str, Any], baseline: dict[str, Any], before: dict[str, Any]) -> list[str]:
    failing = baseline_ids(baseline.get("newly_failing", []))
    erroring = baseline_ids(baseline.get("newly_erroring", []))
    passing = baseline_ids(baseline.get("newly_passing", []))
    lines = ["", (f"### Against the baseline: {len(failing)} newly failing, {len(erroring)} newly erroring, "
                 f"{len(passing)} newly passing")]
    metrics = report.get("metrics", {})
    changed = [(key, metrics[key]["value"] - before[key]["value"]) for key in headline_keys(metrics)
               if key in before and metrics[key].get("value") is not None and before[key].get("value") is not None]
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
