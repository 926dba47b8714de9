"""The terminal summary: per benchmark a compact metric table, then the gates, then the counts.

Only the headline rows are shown by default (score, buckets); ``-v`` adds every metric. Lines stay
within 100 columns.
"""

from __future__ import annotations

from typing import Any

from ..metrics import Metric

HEADLINE_DEPTH = 3  # keys like rules.basic.harmless; deeper keys (behaviours, categories) need -v
PARTIAL_WIDTH = 160  # the whole text of what a partial score lacks is in the JSON report


IRREGULAR = {  # an answer's finish reason as the summary names it
    "length": "cut at max_tokens",
    "content_filter": "withheld by a content filter",
    "tool_calls": "tool calls",
    "no content": "with no content",
}


def format_value(metric: Metric) -> str:
    """Rates and scores as percentages with two decimals (the papers' 0-100 scale); other values
    (differences such as demographic parity) as plain numbers."""
    return f"{metric.value:.4f}" if metric.kind == "value" else f"{metric.value:.2%}"


def format_metric(metric: Metric) -> str:
    interval = ""
    if metric.low is not None and metric.high is not None:
        low, high = ((f"{metric.low:6.4f}", f"{metric.high:6.4f}") if metric.kind == "value"
                     else (f"{metric.low:6.1%}", f"{metric.high:6.1%}"))
        interval = f"[{low}, {high}]"
    text = f"{format_value(metric):>7}  {interval:18}  n={metric.n}"
    return text + ("  partial" if metric.partial else "")


def write_summary(tr: Any, trust: Any) -> None:
    verbose = tr.config.getoption("verbose") > 0
    gated = {g.gate.key: g for g in trust.gate_results}
    tr.write_sep("=", "pytest-trust")
    cfg = trust.config
    tr.write_line(f"model {cfg.model}   record mode {cfg.record_mode.value}   "
                  f"cassettes {cfg.cassettes}" + ("   soft" if trust.soft else ""))
    deviations = cfg.deviations()
    if deviations:
        tr.write_line("deviations from the upstream protocol: "
                      + ", ".join(f"{name}={value}" for name, value in deviations.items()))
    shown = [k for k in trust.metrics if verbose or k.count(".") < HEADLINE_DEPTH or k in gated]
    if shown:
        tr.write_line("")
        tr.write_line(f"{'metric':42} {'value':>7}  {'95% interval':18}  n")
        for key in shown:
            tr.write_line(f"{key:42} {format_metric(trust.metrics[key])}")
        hidden = len(trust.metrics) - len(shown)
        if hidden:
            tr.write_line(f"({hidden} more metrics with -v or in --trust-report)")
        lacking: dict[str, list[str]] = {}
        for key in shown:
            if trust.metrics[key].partial:
                lacking.setdefault(trust.metrics[key].partial, []).append(key)
        for text, keys in lacking.items():  # one line per distinct reason, cut to stay readable
            what = text if len(text) <= PARTIAL_WIDTH else text[:PARTIAL_WIDTH - 3] + "..."
            tr.write_line(f"partial: {', '.join(keys)} lack{'s' if len(keys) == 1 else ''} {what}")
    if trust.gate_results:
        tr.write_line("")
        tr.write_line(f"{'gate':42} {'bound':>12} {'value':>8}  status")
        for g in trust.gate_results:
            value = f"{format_value(g.metric):>8}" if g.metric else f"{'-':>8}"
            markup = {"PASS": {"green": True}, "FAIL": {"red": True, "bold": True}}.get(g.status, {"yellow": True})
            tr.write(f"{g.gate.key:42} {g.gate.bound:>12} {value}  ")
            tr.write_line(g.status, **markup)
    elif trust.thresholds.path is None:
        tr.write_line("no gates: no thresholds file (--trust-thresholds PATH)")
    for line in trust.unrecorded_lines:
        tr.write_line(line)
    counts = trust.item_counts()
    kinds: dict[str, int] = {}
    for kind in trust.error_kinds.values():
        kinds[kind] = kinds.get(kind, 0) + 1
    parts = [f"{counts.get(k, 0)} {k}" for k in ("passed", "failed", "error", "skipped") if counts.get(k)]
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    tr.write_line("")
    tr.write_line("items: " + (", ".join(parts) or "none") + (f" (errors: {detail})" if detail else ""))
    for benchmark, reasons in sorted(trust.irregular_answers().items()):
        listed = ", ".join(f"{n} {IRREGULAR.get(reason, reason)}" for reason, n in sorted(reasons.items()))
        tr.write_line(f"answers of {benchmark} that were not plain text: {listed}")
    if trust.lost:
        shown = ", ".join(sorted(trust.lost)[:3]) + (", ..." if len(trust.lost) > 3 else "")
        tr.write_line(f"lost: {len(trust.lost)} item(s) whose xdist worker died while running them "
                      f"(counted as errors): {shown}", red=True)
    if trust.merged_items:
        tr.write_line(f"recorded: {trust.merged_items} item(s) merged into cassettes")
    for line in trust.batch_lines:
        tr.write_line(line)
    for problem in trust.merge_problems:
        tr.write_line(f"not merged: {problem}", yellow=True)
    verdict = "FAILED" if trust.gates_failed else "passed"
    if trust.gate_results:
        failed = sum(g.status == "FAIL" for g in trust.gate_results)
        not_run = sum(g.status == "NOT RUN" for g in trust.gate_results)
        tr.write_line(f"gates {verdict}: {len(trust.gate_results) - failed - not_run} passed, {failed} failed, "
                      f"{not_run} not run", red=trust.gates_failed, green=not trust.gates_failed)
