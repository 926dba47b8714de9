"""The HTML report (``--trust-html PATH``): one self-contained file, opened with no network.

Built from the JSON report's dict (docs/report-schema.md) by ``render(report)``, so a saved report renders
the same as the run that wrote it. Sections: the run, the gates, a scorecard per benchmark, the RuLES pass
rates (suite, behaviour, attack category), DecodingTrust's stereotype agreeability heatmaps (24 groups x
16 topics per system prompt, the paper's figure), the toxicity distributions (each prompt's maximum
toxicity over its samples, per prompt set and system prompt), the fairness measures per setting, the
regressions against a baseline when the report has one, and every item with its verdict and facts.
Figures are Plotly's, with plotly.js inlined once.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from collections import defaultdict
from typing import Any

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from ..benchmarks.decodingtrust.stereotype.prompts import GROUPS, SYS_TYPES, TOPICS, slug
from ..benchmarks.decodingtrust.toxicity.prompts import PROMPT_SETS, SYSTEM_OF_TEMPLATE
from .markdown import (
    baseline_ids,
    benchmark_of,
    fmt_bound,
    fmt_gate_value,
    fmt_interval,
    fmt_value,
    gate_counts,
    headline_keys,
    is_percent,
)

SECTIONS = ("run", "scorecard", "gates", "rules", "rules_v1", "stereotype", "toxicity", "fairness", "baseline", "items")
RULES_SUITES = ("benign", "basic", "redteam")
RULES_V1_SUITES = ("manual", "systematic", "justask", "gcg")
FAIRNESS_MEASURES = ("accuracy", "dpd", "eod", "rejection_rate")
REASON_SHOWN = 160  # characters of a verdict reason in an item's one-line summary
PLOT_CONFIG = {"displaylogo": False, "responsive": True}
TRANSCRIPT_FACTS = ("reply", "answer", "prediction", "address")  # the model's words, where an item keeps them

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:16px 28px}header h1{margin:0;font-size:20px}
header .sub{opacity:.8;margin-top:4px}nav{margin-top:8px}nav a{color:#9cc3ff;margin-right:14px;text-decoration:none}
main{padding:8px 28px 40px;max-width:1500px}
section{background:#fff;border:1px solid #e1e4ea;border-radius:8px;padding:14px 18px;margin:16px 0}
h2{margin:0 0 10px;font-size:17px}h3{font-size:15px;margin:14px 0 6px}
table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 10px;border-bottom:1px solid #eceef2;text-align:left;
vertical-align:top}th{background:#f2f4f7;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;min-width:44px;text-align:center;border-radius:4px;padding:0 6px;font-size:12px;
font-weight:600;color:#fff}.PASS,.passed{background:#2e8540}.FAIL,.failed{background:#c62828}
.INCONCLUSIVE{background:#c77800}
.error{background:#8e24aa}.skipped,.NOT-RUN,.other{background:#78818f}
.bar{position:relative;width:160px;height:10px;background:#eef0f3;border-radius:5px}
.bar span{position:absolute;height:10px;background:#9cc3ff;border-radius:5px}
.bar i{position:absolute;width:2px;height:14px;top:-2px;background:#1d2330}
.grid{display:flex;flex-wrap:wrap;gap:12px}.grid>div{flex:1 1 440px;min-width:380px}
.card{display:inline-block;border:1px solid #e1e4ea;border-radius:6px;padding:8px 12px;margin:4px 8px 4px 0;
min-width:160px}.card .v{font-size:20px;font-weight:600}.card .k{font-size:12px;color:#5b6474}
.partial{color:#a15c00;font-size:12px}.empty{color:#78818f;font-style:italic}
details.group>summary{font-weight:600;cursor:pointer;padding:3px 0}details.bench>summary{cursor:pointer;padding:3px 0}details.scenario{margin-left:18px}
details.item{margin-left:22px;border-left:3px solid #e1e4ea;padding-left:8px}
details.item>summary{cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
details.item .body{padding:4px 0 8px}.reason{color:#5b6474}
pre{white-space:pre-wrap;background:#f6f7f9;border-radius:4px;padding:6px 8px;margin:4px 0;max-width:1100px}
.said{border-left:3px solid #9cc3ff}.hidden{display:none}
#filter{padding:4px 8px;width:320px}.facts{color:#3b4252;font-size:13px}
.conv .who{font-size:12px;font-weight:600;color:#5b6474;margin-top:6px}.conv .note{color:#78818f;font-style:italic}
.conv .assistant{border-left:3px solid #9cc3ff}.conv .system{border-left:3px solid #c9a227}
"""

SCRIPT = """
function openTarget(){var t=location.hash&&document.getElementById(location.hash.slice(1));
 for(var e=t;e;e=e.parentElement){if(e.tagName==='DETAILS'){e.open=true;}} if(t){t.scrollIntoView();}}
window.addEventListener('hashchange',openTarget);openTarget();
var conversations=null;
function loadConversations(){if(!conversations){var s=document.getElementById('transcripts');
 if(!s){conversations=Promise.resolve({});}else{var b=atob(s.textContent),u=new Uint8Array(b.length);
 for(var i=0;i<b.length;i++){u[i]=b.charCodeAt(i);}
 conversations=new Response(new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'))).json();}}
 return conversations;}
function showConversation(d){var box=d.querySelector('.conv');if(!box||box.dataset.done){return;}box.dataset.done='1';
 loadConversations().then(function(all){var turns=all[d.id];
  if(!turns){box.innerHTML='<p class="empty">no recorded conversation for this item</p>';return;}
  turns.forEach(function(t){var who=document.createElement('div');who.className='who';who.textContent=t[0];
   var text=document.createElement(t[0]==='note'?'div':'pre');text.className=t[0].split(',')[0];text.textContent=t[1];
   box.appendChild(who);box.appendChild(text);});});}
document.addEventListener('toggle',function(e){var d=e.target;
 if(d.open&&d.classList&&d.classList.contains('item')){showConversation(d);}},true);
function filterItems(){var q=document.getElementById('filter').value.toLowerCase();
 var bad=document.getElementById('onlybad').checked;
 document.querySelectorAll('details.item').forEach(function(d){
  var hit=(!q||d.firstChild.textContent.toLowerCase().indexOf(q)>=0)&&(!bad||d.dataset.outcome!=='passed');
  d.classList.toggle('hidden',!hit);});}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def render(report: dict[str, Any], transcripts: dict[str, list[list[str]]] | None = None) -> str:
    """The page; ``transcripts`` (node id -> the item's conversation, read from its cassette) are embedded
    compressed and drawn when an item is opened, so 4,000 conversations cost little until read."""
    anchors = {item.get("nodeid"): f"item-{index}" for index, item in enumerate(report.get("items", []))}
    recorded = {anchors[nodeid]: turns for nodeid, turns in (transcripts or {}).items() if nodeid in anchors}
    bodies = {
        "run": _run(report),
        "gates": _gates(report),
        "scorecard": _scorecard(report),
        "rules": _rules(report),
        "rules_v1": _rules_v1(report),
        "stereotype": _stereotype(report),
        "toxicity": _toxicity(report),
        "fairness": _fairness(report),
        "baseline": _baseline(report, anchors) if report.get("baseline") is not None else None,
        "items": _items(report, anchors, bool(recorded)),
    }
    titles = {"run": "Run", "gates": "Gates", "scorecard": "Scorecard", "rules": "RuLES pass rates",
              "rules_v1": "RuLES v1 pass rates (the paper's suites)",
              "stereotype": "Stereotype agreeability (DecodingTrust)",
              "toxicity": "Toxicity: maximum toxicity per prompt (DecodingTrust)",
              "fairness": "Fairness per setting (DecodingTrust)", "baseline": "Against the baseline",
              "items": "Items: conversations and verdicts" if recorded else "Items: verdicts and answers"}
    shown = [name for name in SECTIONS if bodies[name] is not None]
    run = report.get("run", {})
    nav = "".join(f'<a href="#{name}">{_e(titles[name].split(" (")[0])}</a>' for name in shown)
    sections = "".join(f'<section id="{name}"><h2>{_e(titles[name])}</h2>{bodies[name]}</section>' for name in shown)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>pytest-trust: {_e(run.get('model'))}</title><style>{CSS}</style>"
            f"<script>{get_plotlyjs()}</script></head><body>"
            f"<header><h1>pytest-trust report: {_e(run.get('model'))}</h1>"
            f"<div class=\"sub\">{_e(run.get('started', ''))} to {_e(run.get('finished', ''))} · record mode "
            f"{_e(run.get('record_mode'))}</div><nav>{nav}</nav></header><main>{sections}</main>"
            f"{_embedded(recorded)}<script>{SCRIPT}</script></body></html>\n")


def _embedded(transcripts: dict[str, list[list[str]]]) -> str:
    """The transcripts as gzip'd JSON in base64 (the browser's DecompressionStream reads it): a tenth of the text."""
    if not transcripts:
        return ""
    packed = gzip.compress(json.dumps(transcripts, ensure_ascii=False, separators=(",", ":")).encode(), mtime=0)
    return f'<script type="application/gzip" id="transcripts">{base64.b64encode(packed).decode()}</script>'


def _figure(fig: go.Figure, height: int) -> str:
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10}, template="plotly_white",
                      font={"size": 12})
    return fig.to_html(full_html=False, include_plotlyjs=False, config=PLOT_CONFIG)


def _table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _bar(metric: dict[str, Any] | None) -> str:
    """A value and its interval drawn on a 0-1 scale (rates and scores only)."""
    if not metric or not is_percent(metric) or metric.get("value") is None:
        return ""
    value = min(max(metric["value"], 0.0), 1.0)
    low = metric.get("low") if metric.get("low") is not None else value
    high = metric.get("high") if metric.get("high") is not None else value
    low, high = min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0)
    return (f'<div class="bar" title="{_e(fmt_interval(metric))}"><span style="left:{low * 100:.1f}%;'
            f'width:{max(high - low, 0.005) * 100:.1f}%"></span><i style="left:{value * 100:.1f}%"></i></div>')


def _metric_row(key: str, metric: dict[str, Any]) -> list[str]:
    note = metric.get("partial") or ""
    shown = note if len(note) <= REASON_SHOWN else note[:REASON_SHOWN - 3] + "..."
    partial = f'<div class="partial" title="{_e(note)}">partial: {_e(shown)}</div>' if note else ""
    return [f"<code>{_e(key)}</code>{partial}", _e(fmt_value(metric)), _e(fmt_interval(metric)), _bar(metric),
            _e(metric.get("n", ""))]


def _error_bars(metrics: list[dict[str, Any] | None]) -> dict[str, Any]:
    plus = [(m["high"] - m["value"]) if m and m.get("high") is not None else 0 for m in metrics]
    minus = [(m["value"] - m["low"]) if m and m.get("low") is not None else 0 for m in metrics]
    return {"type": "data", "array": plus, "arrayminus": minus, "visible": True}


# --- sections -------------------------------------------------------------------------------------------------

def _run(report: dict[str, Any]) -> str:
    run = report.get("run", {})
    counts = report.get("counts", {})
    cards = "".join(f'<div class="card"><div class="v">{_e(n)}</div><div class="k">items {_e(outcome)}</div></div>'
                    for outcome, n in sorted(counts.items()))
    gates = gate_counts(report.get("gates", []))
    cards += "".join(f'<div class="card"><div class="v">{_e(n)}</div><div class="k">gates {_e(status)}</div></div>'
                     for status, n in sorted(gates.items()))
    rows = [["model", _e(run.get("model"))], ["record mode", _e(run.get("record_mode"))],
            ["endpoint host", _e(run.get("endpoint_host") or "-")],
            ["size", _e(run.get("profile") or (f"limit {run['limit']}" if run.get("limit") else "every item"))],
            ["seed", _e(run.get("seed"))], ["soft", _e(run.get("soft"))],
            ["thresholds", _e(run.get("thresholds") or "-")],
            ["deviations", _e(", ".join(f"{k}={v}" for k, v in (run.get("deviations") or {}).items()) or "none")],
            ["data", "<br>".join(_e(f"{k}: {v}") for k, v in (run.get("data_commits") or {}).items())],
            ["versions", _e(", ".join(f"{k} {v}" for k, v in (run.get("versions") or {}).items())
                            + f"; Python {run.get('python', '?')}")],
            ["scorers", _e("; ".join(_scorer(s) for s in run.get("scorers") or ()) or "-")]]
    irregular = report.get("irregular_answers") or {}
    if irregular:
        rows.append(["answers not plain text", "<br>".join(
            _e(f"{bench}: " + ", ".join(f"{n} {why}" for why, n in sorted(kinds.items())))
            for bench, kinds in sorted(irregular.items()))])
    if report.get("lost"):
        rows.append(["lost (worker died)", "<br>".join(_e(n) for n in report["lost"])])
    line = " · ".join(_e(text) for text in (
        f"model {run.get('model')}", f"record mode {run.get('record_mode')}",
        run.get("profile") or (f"limit {run['limit']}" if run.get("limit") else "every item"),
        "deviations: " + (", ".join(f"{k}={v}" for k, v in (run.get("deviations") or {}).items()) or "none")))
    return (f"<div>{cards}</div><p>{line}</p><details><summary>run details</summary>"
            + _table(["", ""], rows) + "</details>")


def _gates(report: dict[str, Any]) -> str:
    gates = report.get("gates", [])
    if not gates:
        return '<p class="empty">No gates: pass a thresholds file (--trust-thresholds) to gate this run.</p>'
    metrics = report.get("metrics", {})
    rows = []
    for gate in gates:
        metric = metrics.get(gate["key"])
        status = gate["status"]
        rows.append([f'<span class="badge {_e(status.replace(" ", "-"))}">{_e(status)}</span>',
                     f"<code>{_e(gate['key'])}</code>", _e(fmt_bound(gate, metric)),
                     _e(fmt_gate_value(gate, metric)), _e(fmt_interval(metric)), _bar(metric)])
    return _table(["status", "gate", "bound", "value", "95% interval", ""], rows, {3})


def _scorecard(report: dict[str, Any]) -> str:
    metrics = report.get("metrics", {})
    keys = headline_keys(metrics)
    if not keys:
        return '<p class="empty">No metrics in this run.</p>'
    by_bench: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        by_bench[benchmark_of(key)].append(key)
    outcomes = _outcomes_by_benchmark(report)
    headline = {bench: _headline_key(bench, bench_keys, metrics) for bench, bench_keys in by_bench.items()}
    shown = [(bench, key) for bench, key in headline.items() if key]
    fig = go.Figure(go.Bar(
        y=[f"{bench}: {key.split('.', 1)[1]}" for bench, key in shown], x=[metrics[key]["value"] for _, key in shown],
        orientation="h", error_x=_error_bars([metrics[key] for _, key in shown]),
        marker_color=["#c9cdd4" if metrics[key].get("partial") else "#4a7fd4" for _, key in shown],
        hovertext=[f"{key}: {fmt_value(metrics[key])} {fmt_interval(metrics[key])}"
                   + (" (partial)" if metrics[key].get("partial") else "") for _, key in shown]))
    fig.update_layout(title="Headline score per benchmark (grey: partial)", xaxis={"range": [0, 1], "tickformat": ".0%"},
                      yaxis={"autorange": "reversed"})
    parts = [_figure(fig, 80 + 30 * len(shown))]
    for bench, bench_keys in by_bench.items():  # one card per benchmark, its headline metrics inside
        counts = outcomes.get(bench, {})
        tally = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        key = headline[bench]
        score = f"{key.split('.', 1)[1]} {fmt_value(metrics[key])} {fmt_interval(metrics[key])} · " if key else ""
        parts.append(f'<details class="bench"><summary><b>{_e(bench)}</b><span class="reason"> · {_e(score)}items: '
                     f"{_e(tally or 'none')}</span></summary>")
        parts.append(_table(["metric", "value", "95% interval", "", "n"],
                            [_metric_row(key, metrics[key]) for key in bench_keys], {1, 4}))
        parts.append("</details>")
    return "".join(parts)


HEADLINES = ("score", "robust_accuracy", "accuracy", "manual")  # the first a benchmark has is its headline


def _headline_key(bench: str, keys: list[str], metrics: dict[str, Any]) -> str | None:
    """The benchmark's score (or robust accuracy, a detection accuracy, RuLES v1's manual suite), if computed."""
    return next((key for key in (f"{bench}.{name}" for name in HEADLINES) if key in keys), None)


def _outcomes_by_benchmark(report: dict[str, Any]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item in report.get("items", []):
        counts[_item_benchmark(item)][item.get("outcome", "?")] += 1
    return counts


def _rules(report: dict[str, Any]) -> str | None:
    metrics = report.get("metrics", {})
    if not any(key.startswith("rules.") for key in metrics):
        return '<p class="empty">RuLES did not run.</p>'
    return _rule_following(metrics, "rules", RULES_SUITES, "rules.redteam.category.", "Red-team")


def _rules_v1(report: dict[str, Any]) -> str | None:
    """RuLES v1 as the paper reports it: manual as a whole, systematic and justask by negative (harmless) and
    affirmative (helpful) rule, systematic by attack strategy; shown only for a run that has it."""
    metrics = report.get("metrics", {})
    if not any(key.startswith("rules_v1.") for key in metrics):
        return None
    return _rule_following(metrics, "rules_v1", RULES_V1_SUITES, "rules_v1.systematic.category.", "Systematic")


def _rule_following(metrics: dict[str, Any], name: str, all_suites: tuple[str, ...], categories: str,
                    attacked: str) -> str:
    """Pass rates only. A suite is charted when it has one (``name.suite``, ``.harmless`` or ``.helpful``); a
    behaviour's is ``name.suite.behavior.Stem``. RuLES v1's gcg suite has none: its per-behaviour keys go on
    past the stem (``rules_v1.gcg.behavior.Stem.failure_rate``, ``.mcnemar_p``), and they stay in the table."""
    parts = []
    suites = [s for s in all_suites if any(f"{name}.{s}{kind}" in metrics for kind in ("", ".harmless", ".helpful"))]
    rates = {key: match.groups() for key in metrics  # key -> (suite, behaviour)
             if (match := re.fullmatch(rf"{re.escape(name)}\.([^.]+)\.behavior\.([^.]+)", key))}
    fig = go.Figure()
    kinds = ([("all", "")] if any(f"{name}.{s}" in metrics for s in suites) else []) + [
        ("harmless", ".harmless"), ("helpful", ".helpful")]
    for kind, suffix in kinds:
        ms = [metrics.get(f"{name}.{s}{suffix}") for s in suites]
        fig.add_bar(name=kind, x=suites, y=[m["value"] if m else None for m in ms], error_y=_error_bars(ms))
    fig.update_layout(title="Pass rate per suite and test-case kind", yaxis={"range": [0, 1], "tickformat": ".0%"},
                      barmode="group")
    parts.append(_figure(fig, 340))
    behaviours = sorted({behaviour for suite, behaviour in rates.values() if suite in suites})
    if behaviours:
        fig = go.Figure()
        for suite in suites:
            ms = [metrics.get(f"{name}.{suite}.behavior.{b}") for b in behaviours]
            fig.add_bar(name=suite, y=behaviours, x=[m["value"] if m else None for m in ms], orientation="h",
                        error_x=_error_bars(ms))
        fig.update_layout(title="Pass rate per scenario behaviour", xaxis={"range": [0, 1], "tickformat": ".0%"},
                          barmode="group", yaxis={"autorange": "reversed"})
        parts.append(_figure(fig, 120 + 22 * len(behaviours) * max(len(suites), 1)))
    strategies = sorted(k for k in metrics if k.startswith(categories) and k.count(".") == categories.count("."))
    if strategies:
        ms = [metrics[k] for k in strategies]
        fig = go.Figure(go.Bar(x=[k.rsplit(".", 1)[1] for k in strategies], y=[m["value"] for m in ms],
                               error_y=_error_bars(ms), marker_color="#c06a2b"))
        fig.update_layout(title=f"{attacked} pass rate per attack category",
                          yaxis={"range": [0, 1], "tickformat": ".0%"})
        parts.append(_figure(fig, 320))
    rows = [_metric_row(k, metrics[k]) for k in metrics if k.startswith(f"{name}.") and k not in rates
            and ".scenario." not in k]
    parts.append(_table(["metric", "value", "95% interval", "", "n"], rows, {1, 4}))
    return "".join(parts)


def _stereotype(report: dict[str, Any]) -> str:
    metrics = report.get("metrics", {})
    present = [t for t in SYS_TYPES if any(k.startswith(f"stereotype.{t}.cell.") for k in metrics)]
    if not present:
        return '<p class="empty">Stereotype bias did not run.</p>'
    parts = [('<p>Agreeability per (group, topic) cell: the share of samples that agree with the stereotype '
             '(DecodingTrust\'s heatmaps; empty cells did not run).</p><div class="grid">')]
    for sys_type in SYS_TYPES:
        z, text, filled = [], [], 0
        for group in GROUPS:
            row, row_text = [], []
            for topic in TOPICS:
                metric = metrics.get(f"stereotype.{sys_type}.cell.{slug(group)}.{topic}")
                row.append(metric["value"] if metric else None)
                row_text.append(f"{fmt_value(metric)} {fmt_interval(metric)} n={metric['n']}" if metric else "not run")
                filled += metric is not None
            z.append(row)
            text.append(row_text)
        mean = metrics.get(f"stereotype.{sys_type}.agreeability")
        fig = go.Figure(go.Heatmap(z=z, x=list(TOPICS), y=list(GROUPS), zmin=0, zmax=1, colorscale="Reds",
                                   text=text, hovertemplate="%{y} / %{x}: %{text}<extra></extra>", xgap=1, ygap=1,
                                   colorbar={"tickformat": ".0%", "len": 0.8}))
        fig.update_layout(title=f"{sys_type} system prompt: mean {fmt_value(mean)} ({filled} of "
                                f"{len(GROUPS) * len(TOPICS)} cells)",
                          yaxis={"autorange": "reversed"}, xaxis={"tickangle": -45})
        parts.append(f'<div class="heatmap" data-cells="{filled}">{_figure(fig, 640)}</div>')
    parts.append("</div>")
    keys = [k for k in metrics if k.startswith("stereotype.") and ".cell." not in k and ".rejection." not in k]
    parts.append(_table(["metric", "value", "95% interval", "", "n"], [_metric_row(k, metrics[k]) for k in keys],
                        {1, 4}))
    return "".join(parts)


def _scorer(entry: dict[str, Any]) -> str:
    """A scorer as the report lists it: ``name version`` (its benchmark, when not toxicity)."""
    text = f"{entry.get('name')} {entry.get('version') or '(version not recorded)'}"
    return text if entry.get("benchmark") in (None, "toxicity") else f"{entry['benchmark']}: {text}"


def _toxicity(report: dict[str, Any]) -> str:
    maxima: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    for item in report.get("items", []):
        facts = item.get("facts") or {}
        if item.get("benchmark") != "toxicity" or not facts.get("toxicity"):
            continue
        scores = [-1.0 if s is None else s for s in facts["toxicity"]]  # unscored counts -1, as upstream
        if facts.get("study"):
            where = ("system-prompt study", f"t{facts['template']:02d}")
        else:
            where = (facts["set"], SYSTEM_OF_TEMPLATE.get(facts["template"], str(facts["template"])))
        maxima[where].append((max(scores), item.get("id", "")))
    metrics = report.get("metrics", {})
    if not maxima:
        return '<p class="empty">Toxicity did not run.</p>'
    named = [_scorer(s) for s in report.get("run", {}).get("scorers") or () if s.get("benchmark") == "toxicity"]
    named = named or [k.rsplit(".", 1)[1] for k in metrics if k.startswith("toxicity.scorer.")]  # an older report
    parts = ["<p>Each point is one prompt's maximum toxicity over its samples; the expected maximum toxicity (EMT) "
             "is their mean. Scored by " + _e(", ".join(named) or "?") + ".</p>"]
    main = [(s.name, p) for s in PROMPT_SETS for p in ("benign", "adversarial") if (s.name, p) in maxima]
    if main:
        fig = go.Figure()
        for system in ("benign", "adversarial"):
            xs, ys, ids = [], [], []
            for set_name, p in main:
                if p == system:
                    for value, item_id in maxima[(set_name, p)]:
                        xs.append(set_name)
                        ys.append(value)
                        ids.append(item_id)
            fig.add_trace(go.Box(x=xs, y=ys, name=f"{system} system prompt", boxpoints="all", jitter=0.4,
                                 pointpos=0, boxmean=True, text=ids, hovertemplate="%{text}: %{y:.3f}<extra></extra>"))
        fig.update_layout(title="Per prompt set and system prompt (box mean = EMT)", boxmode="group",
                          yaxis={"range": [-0.02, 1.02], "title": "maximum toxicity"})
        parts.append(_figure(fig, 380))
    study = sorted(key for key in maxima if key[0] == "system-prompt study")
    if study:
        fig = go.Figure(go.Box(x=[t for _, t in study for _ in maxima[("system-prompt study", t)]],
                               y=[v for key in study for v, _ in maxima[key]],
                               text=[i for key in study for _, i in maxima[key]], boxpoints="all", pointpos=0,
                               jitter=0.3, marker_color="#c06a2b", name="toxic prompts",
                               hovertemplate="%{text}: %{y:.3f}<extra></extra>"))
        fig.update_layout(title="System-prompt study: 33 templates on the toxic prompts",
                          yaxis={"range": [-0.02, 1.02], "title": "maximum toxicity"})
        parts.append(_figure(fig, 340))
    keys = [k for k in metrics if k.startswith("toxicity.") and not k.startswith("toxicity.system_prompts.")]
    parts.append(_table(["metric", "value", "95% interval", "", "n"], [_metric_row(k, metrics[k]) for k in keys],
                        {1, 4}))
    return "".join(parts)


def _fairness(report: dict[str, Any]) -> str:
    metrics = report.get("metrics", {})
    settings: list[str] = []
    for key in metrics:
        match = re.fullmatch(r"fairness\.(.+)\.(accuracy|dpd|eod|rejection_rate)", key)
        if match and match.group(1) not in settings:
            settings.append(match.group(1))
    if not settings:
        return '<p class="empty">Fairness did not run.</p>'
    fig = go.Figure()
    for measure in FAIRNESS_MEASURES:
        ms = [metrics.get(f"fairness.{s}.{measure}") for s in settings]
        fig.add_bar(name=measure, x=settings, y=[m["value"] if m else None for m in ms], error_y=_error_bars(ms))
    fig.update_layout(title="Accuracy, demographic parity difference (dpd) and equalized odds difference (eod)",
                      barmode="group", yaxis={"range": [0, 1]})
    rows = []
    for setting in settings:
        row = [f"<code>{_e(setting)}</code>"]
        for measure in FAIRNESS_MEASURES:
            metric = metrics.get(f"fairness.{setting}.{measure}")
            row.append(_e(f"{fmt_value(metric)} {fmt_interval(metric)}".strip()) if metric else "-")
        rows.append(row)
    overall = [_metric_row(k, metrics[k]) for k in metrics if k.startswith("fairness.") and k.count(".") == 1]
    return (_figure(fig, 380) + _table(["setting", *FAIRNESS_MEASURES], rows, {1, 2, 3, 4})
            + _table(["metric", "value", "95% interval", "", "n"], overall, {1, 4}))


def _baseline(report: dict[str, Any], anchors: dict[str, str]) -> str:
    baseline = report["baseline"]
    by_key = {}
    for item in report.get("items", []):
        by_key[item.get("id")] = item
        by_key[item.get("nodeid")] = item
    parts = []
    for name, title in (("newly_failing", "Newly failing"), ("newly_erroring", "Newly erroring"),
                        ("newly_passing", "Newly passing")):
        keys = baseline_ids(baseline.get(name, []))
        rows = []
        for key in keys:
            item = by_key.get(key) or {}
            anchor = anchors.get(item.get("nodeid"))
            label = f'<a href="#{anchor}">{_e(key)}</a>' if anchor else _e(key)
            why = (item.get("verdict") or {}).get("reason") or item.get("error_message") or item.get("error") or ""
            rows.append([label, _e(why)])
        parts.append(f"<h3>{title}: {len(keys)}</h3>")
        parts.append(_table(["item", "why now"], rows) if rows else '<p class="empty">none</p>')
    return "".join(parts)


# --- items ----------------------------------------------------------------------------------------------------

def _item_benchmark(item: dict[str, Any]) -> str:
    if item.get("benchmark"):
        return item["benchmark"]
    match = re.search(r"::test_([A-Za-z0-9_]+)", item.get("nodeid", ""))
    return match.group(1) if match else "other"


def _item_id(item: dict[str, Any]) -> str:
    if item.get("id"):
        return item["id"]
    match = re.search(r"\[(.*)\]$", item.get("nodeid", ""))
    return match.group(1) if match else item.get("nodeid", "?")


def _item_scenario(item: dict[str, Any]) -> str:
    if item.get("scenario"):
        return item["scenario"]
    item_id = _item_id(item)
    return item_id.rsplit("/", 1)[0] if "/" in item_id else "-"


def _items(report: dict[str, Any], anchors: dict[str, str], with_transcripts: bool) -> str:
    items = report.get("items", [])
    if not items:
        return '<p class="empty">No benchmark items ran.</p>'
    tree: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        tree[_item_benchmark(item)][_item_scenario(item)].append(item)
    model = report.get("run", {}).get("model") or "MODEL"
    where = (f'<code>cassettes/{_e(model)}/&lt;benchmark&gt;/&lt;scenario&gt;.json</code>, under the item id')
    told = ("An opened item shows its conversation as recorded (from " + where + "), its verdict and what the "
            "benchmark's aggregate reads." if with_transcripts else
            "The full conversation of an item is in its cassette, " + where + "; each item here keeps its verdict "
            "and what the benchmark's aggregate reads, the model's answer included where the benchmark keeps it.")
    parts = [(f'<p>{len(items)} items. {told}</p>'
             '<p><input id="filter" placeholder="filter items by id or reason" oninput="filterItems()"> '
             '<label><input type="checkbox" id="onlybad" onchange="filterItems()"> failed, errored or skipped '
             'only</label></p>')]
    for bench in sorted(tree):
        scenarios = tree[bench]
        parts.append(f'<details class="group" data-benchmark="{_e(bench)}"><summary>{_e(bench)} · '
                     f"{_tally(i for s in scenarios.values() for i in s)}</summary>")
        for scenario in sorted(scenarios):
            members = scenarios[scenario]
            parts.append(f'<details class="scenario"><summary>{_e(scenario)} · {_tally(members)}</summary>')
            parts.extend(_item(item, anchors[item.get("nodeid")], with_transcripts) for item in members)
            parts.append("</details>")
        parts.append("</details>")
    return "".join(parts)


def _tally(items: Any) -> str:
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        counts[item.get("outcome", "?")] += 1
    return ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))


def _item(item: dict[str, Any], anchor: str, with_transcript: bool = False) -> str:
    outcome = item.get("outcome", "?")
    verdict = item.get("verdict") or {}
    reason = verdict.get("reason") or item.get("error_message") or item.get("error") or ""
    short = reason if len(reason) <= REASON_SHOWN else reason[:REASON_SHOWN - 3] + "..."
    item_id = _item_id(item)
    badge = outcome if outcome in ("passed", "failed", "error", "skipped") else "other"
    body = [f"<div><code>{_e(item.get('nodeid', ''))}</code></div>"]
    if verdict:  # one line; the reason again in full only when the summary cut it
        line = ["verdict <b>" + ("pass" if verdict.get("passed") else "fail") + "</b>"]
        if verdict.get("score") is not None:
            line.append(_e(f"score {verdict['score']:.4f}"))
        if verdict.get("label") is not None:
            line.append(_e(f"label {verdict['label']}"))
        line += [name for name in ("refused", "invalid") if verdict.get(name)]
        body.append(f"<div>{' · '.join(line)}</div>")
        if short != reason:
            body.append(f"<pre>{_e(reason)}</pre>")
    if item.get("error"):
        body.append(f"<div>error: <b>{_e(item['error'])}</b></div>"
                    + (f"<pre>{_e(item['error_message'])}</pre>" if short != item.get("error_message") else ""))
    facts = item.get("facts") or {}
    said = [(name, facts[name]) for name in TRANSCRIPT_FACTS if isinstance(facts.get(name), str) and facts[name]]
    for name, text in said:
        body.append(f"<div>model's {_e(name)}:</div><pre class=\"said\">{_e(text)}</pre>")
    rest = [(k, v) for k, v in facts.items() if k not in dict(said)]
    if rest:  # a compact list, not a table: 4,000 items keep the file small
        body.append('<div class="facts">' + " · ".join(f"<b>{_e(k)}</b> {_e(_fact(v))}" for k, v in rest) + "</div>")
    if item.get("irregular"):
        body.append(f"<p>answers not plain text: {_e(json.dumps(item['irregular']))}</p>")
    if with_transcript:
        body.append('<div class="conv"></div>')
    return (f'<details class="item" id="{anchor}" data-outcome="{_e(outcome)}">'
            f'<summary><span class="badge {badge}">{_e(outcome)}</span> <code>{_e(item_id)}</code> '
            f'<span class="reason">{_e(short)}</span></summary><div class="body">{"".join(body)}</div></details>')


def _fact(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list) and value and all(isinstance(v, float | int | type(None)) for v in value):
        return "[" + ", ".join("-" if v is None else f"{v:.3g}" for v in value) + "]"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
