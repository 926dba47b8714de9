"""The HTML report (``--trust-html PATH``): one self-contained file, opened with no network.

Built from the run's report (``RunReport``) by ``render(report)``, so a saved report read back renders the same
as the run that wrote it. Sections: the run, a scorecard per benchmark, the gates, then each
registered benchmark's own sections (``Benchmark.report_sections``: RuLES' pass rates, DecodingTrust's
stereotype heatmaps, toxicity distributions, fairness measures), the regressions against a baseline when
the report has one, and every item with its verdict and facts. A benchmark that did not run draws no
section. Figures are Plotly's, drawn from JSON by plotly.js's cartesian bundle, inlined once compressed
(``plotly_bundle``); the items' list is built by the page from one compressed payload, a scenario's items
when it is opened (or a filter or a link needs them).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

import plotly.graph_objects as go

from ..benchmarks import BENCHMARKS, headlines, summary_keys
from . import plotly_bundle
from .html_parts import REASON_SHOWN, bar, error_bars, escape, figure, metric_table, scorer_text, table
from .markdown import (
    baseline_ids,
    benchmark_of,
    fmt_bound,
    fmt_gate_value,
    fmt_interval,
    fmt_value,
    gate_counts,
)
from .run_report import RunReport

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
var items=unpack('item-data').then(function(text){var data=JSON.parse(text),all={texts:data.texts,scen:[],item:{},where:{}},out=[];
 data.tree.forEach(function(g){out.push('<details class="group" data-benchmark="'+g[0]+'"><summary>'+g[0]+' · '+g[1]+'</summary>');
  g[2].forEach(function(sc){var k=all.scen.length;all.scen.push(sc[2]);
   sc[2].forEach(function(it){all.item['item-'+it[0]]=it;all.where['item-'+it[0]]=k;});
   out.push('<details class="scenario" data-k="'+k+'"><summary>'+sc[0]+' · '+sc[1]+'</summary></details>');});
  out.push('</details>');});
 var root=document.getElementById('itemtree');if(root){root.innerHTML=out.join('');}return all;});
function build(all,d){if(d.dataset.built){return;}d.dataset.built='1';  // a scenario's items, when first needed
 d.insertAdjacentHTML('beforeend',all.scen[d.dataset.k].map(function(it){
  return '<details class="item" id="item-'+it[0]+'" data-outcome="'+it[1]+'"><summary><span class="badge '+it[2]+'">'
   +it[1]+'</span> <code>'+it[3]+'</code> <span class="reason">'+it[4]+'</span></summary><div class="body"></div></details>';
  }).join(''));}
function buildAll(all){document.querySelectorAll('details.scenario').forEach(function(d){build(all,d);});}
function openTarget(){items.then(function(all){var id=location.hash.slice(1);
 if(all.where[id]!==undefined){build(all,document.querySelector('details.scenario[data-k="'+all.where[id]+'"]'));}
 var t=id&&document.getElementById(id);
 for(var e=t;e;e=e.parentElement){if(e.tagName==='DETAILS'){e.open=true;}} if(t){t.scrollIntoView();}});}
window.addEventListener('hashchange',openTarget);openTarget();
function showItem(d){var body=d.querySelector('.body');if(body.dataset.done){return;}body.dataset.done='1';
 items.then(function(all){var entry=all.item[d.id];body.innerHTML=entry[5];if(entry[6]===0){return;}
  var box=document.createElement('div');box.className='conv';body.appendChild(box);
  if(!entry[6]){box.innerHTML='<p class="empty">no recorded conversation for this item</p>';return;}
  entry[6].forEach(function(t){var who=document.createElement('div');who.className='who';who.textContent=t[0];
   var text=document.createElement(t[0]==='note'?'div':'pre');text.className=t[0].split(',')[0];
   text.textContent=all.texts[t[1]];box.appendChild(who);box.appendChild(text);});});}
document.addEventListener('toggle',function(e){var d=e.target;if(!d.open||!d.classList){return;}
 if(d.classList.contains('item')){showItem(d);}else if(d.classList.contains('scenario')){items.then(function(all){build(all,d);});}},true);
function filterItems(){items.then(function(all){var q=document.getElementById('filter').value.toLowerCase();
 var bad=document.getElementById('onlybad').checked;if(q||bad){buildAll(all);}
 document.querySelectorAll('details.item').forEach(function(d){
  var hit=(!q||d.firstChild.textContent.toLowerCase().indexOf(q)>=0)&&(!bad||d.dataset.outcome!=='passed');
  d.classList.toggle('hidden',!hit);});});}
"""


def render(report: RunReport, transcripts: dict[str, list[list[str]]] | None = None) -> str:
    """The page; ``transcripts`` (node id -> the item's conversation, read from its cassette) are embedded
    compressed with the items' verdicts and facts, and drawn when an item is opened."""
    anchors = {item.get("nodeid"): f"item-{index}" for index, item in enumerate(report.entries)}
    recorded = {anchors[nodeid]: turns for nodeid, turns in (transcripts or {}).items() if nodeid in anchors}
    ran = {_item_benchmark(item) for item in report.entries} | {key.split(".", 1)[0] for key in report.metrics}
    sections = [("run", "Run", _run(report)), ("scorecard", "Scorecard", _scorecard(report)),
                ("gates", "Gates", _gates(report))]
    sections += [(part.key, part.title, part.render(report))  # each benchmark's own that ran, in registry order
                 for name, benchmark in BENCHMARKS.items() if name in ran for part in benchmark.report_sections]
    if report.baseline is not None:
        sections.append(("baseline", "Against the baseline", _baseline(report, anchors)))
    items, payload = _items(report, anchors, recorded or None)
    sections.append(("items", "Items: conversations and verdicts" if recorded else "Items: verdicts and answers",
                     items))
    shown = [(key, title, body) for key, title, body in sections if body is not None]
    run = report.run
    nav = "".join(f'<a href="#{key}">{escape(title.split(" (")[0])}</a>' for key, title, _ in shown)
    bodies = "".join(f'<section id="{key}"><h2>{escape(title)}</h2>{body}</section>' for key, title, body in shown)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>pytest-trust: {escape(run.get('model'))}</title><style>{CSS}</style>{plotly_bundle.head()}"
            f"</head><body><header><h1>pytest-trust report: {escape(run.get('model'))}</h1>"
            f"<div class=\"sub\">{escape(run.get('started', ''))} to {escape(run.get('finished', ''))} · record mode "
            f"{escape(run.get('record_mode'))}</div><nav>{nav}</nav></header><main>{bodies}</main>"
            f"{plotly_bundle.packed('item-data', payload)}<script>{SCRIPT}</script></body></html>\n")


# --- sections -------------------------------------------------------------------------------------------------

def _run(report: RunReport) -> str:
    run = report.run
    counts = report.counts
    cards = "".join(f'<div class="card"><div class="v">{escape(n)}</div><div class="k">items {escape(outcome)}</div></div>'
                    for outcome, n in sorted(counts.items()))
    gates = gate_counts(report.gates)
    cards += "".join(f'<div class="card"><div class="v">{escape(n)}</div><div class="k">gates {escape(status)}</div></div>'
                     for status, n in sorted(gates.items()))
    rows = [["model", escape(run.get("model"))], ["record mode", escape(run.get("record_mode"))],
            ["endpoint host", escape(run.get("endpoint_host") or "-")],
            ["size", escape(run.get("profile") or (f"limit {run['limit']}" if run.get("limit") else "every item"))],
            ["seed", escape(run.get("seed"))], ["soft", escape(run.get("soft"))],
            ["thresholds", escape(run.get("thresholds") or "-")],
            ["deviations", escape(", ".join(f"{k}={v}" for k, v in (run.get("deviations") or {}).items()) or "none")],
            ["data", "<br>".join(escape(f"{k}: {v}") for k, v in (run.get("data_commits") or {}).items())],
            ["versions", escape(", ".join(f"{k} {v}" for k, v in (run.get("versions") or {}).items())
                            + f"; Python {run.get('python', '?')}")],
            ["scorers", escape("; ".join(scorer_text(s) for s in run.get("scorers") or ()) or "-")]]
    irregular = report.irregular_answers
    if irregular:
        rows.append(["answers not plain text", "<br>".join(
            escape(f"{bench}: " + ", ".join(f"{n} {why}" for why, n in sorted(kinds.items())))
            for bench, kinds in sorted(irregular.items()))])
    if report.lost:
        rows.append(["lost (worker died)", "<br>".join(escape(n) for n in report.lost)])
    line = " · ".join(escape(text) for text in (
        f"model {run.get('model')}", f"record mode {run.get('record_mode')}",
        run.get("profile") or (f"limit {run['limit']}" if run.get("limit") else "every item"),
        "deviations: " + (", ".join(f"{k}={v}" for k, v in (run.get("deviations") or {}).items()) or "none")))
    return (f"<div>{cards}</div><p>{line}</p><details><summary>run details</summary>"
            + table(["", ""], rows) + "</details>")


def _gates(report: RunReport) -> str:
    if not report.gates:
        return '<p class="empty">No gates: pass a thresholds file (--trust-thresholds) to gate this run.</p>'
    rows = []
    for result in report.gates:
        metric = report.metrics.get(result.gate.key)
        status = result.status
        rows.append([f'<span class="badge {escape(status.replace(" ", "-"))}">{escape(status)}</span>',
                     f"<code>{escape(result.gate.key)}</code>", escape(fmt_bound(result)),
                     escape(fmt_gate_value(result)), escape(fmt_interval(metric)), bar(metric)])
    return table(["status", "gate", "bound", "value", "95% interval", ""], rows, {3})


def _scorecard(report: RunReport) -> str:
    metrics = report.metrics
    keys = summary_keys(metrics)
    if not keys:
        return '<p class="empty">No metrics in this run.</p>'
    by_bench: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        by_bench[benchmark_of(key)].append(key)
    outcomes = _outcomes_by_benchmark(report)
    heads = headlines(metrics)  # the first of each benchmark's is its bar
    headline = {bench: next(iter(heads.get(bench, ())), None) for bench in by_bench}
    shown = [(bench, key) for bench, key in headline.items() if key]
    fig = go.Figure(go.Bar(
        y=[f"{bench}: {key.split('.', 1)[1]}" for bench, key in shown], x=[metrics[key].value for _, key in shown],
        orientation="h", error_x=error_bars([metrics[key] for _, key in shown]),
        marker_color=["#c9cdd4" if metrics[key].partial else "#4a7fd4" for _, key in shown],
        hovertext=[f"{key}: {fmt_value(metrics[key])} {fmt_interval(metrics[key])}"
                   + (" (partial)" if metrics[key].partial else "") for _, key in shown]))
    fig.update_layout(title="Headline score per benchmark (grey: partial)", yaxis={"autorange": "reversed"},
                      xaxis={"range": [0, 1.005], "tickvals": [i / 5 for i in range(6)], "tickformat": ".0%"})
    parts = [figure(fig, 80 + 30 * len(shown))]
    for bench, bench_keys in by_bench.items():  # one card per benchmark, its summary-level metrics inside
        counts = outcomes.get(bench, {})
        tally = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        key = headline[bench]
        score = f"{key.split('.', 1)[1]} {fmt_value(metrics[key])} {fmt_interval(metrics[key])} · " if key else ""
        parts.append(f'<details class="bench"><summary><b>{escape(bench)}</b><span class="reason"> · {escape(score)}items: '
                     f"{escape(tally or 'none')}</span></summary>")
        parts.append(metric_table(metrics, bench_keys))
        parts.append("</details>")
    return "".join(parts)


def _outcomes_by_benchmark(report: RunReport) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item in report.entries:
        counts[_item_benchmark(item)][item.get("outcome", "?")] += 1
    return counts


def _baseline(report: RunReport, anchors: dict[str, str]) -> str:
    baseline = report.baseline or {}
    by_key = {}
    for item in report.entries:
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
            label = f'<a href="#{anchor}">{escape(key)}</a>' if anchor else escape(key)
            why = (item.get("verdict") or {}).get("reason") or item.get("error_message") or item.get("error") or ""
            rows.append([label, escape(why)])
        parts.append(f"<h3>{title}: {len(keys)}</h3>")
        parts.append(table(["item", "why now"], rows) if rows else '<p class="empty">none</p>')
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


def _items(report: RunReport, anchors: dict[str, str],
           transcripts: dict[str, list[list[str]]] | None) -> tuple[str, bytes]:
    """The items' section and its payload: every item's line, verdict, facts and conversation as one gzip'd
    JSON the page builds the list from (9,000 items' HTML would weigh 8 MB); a conversation's texts are kept
    once (a system prompt is shared by thousands of items)."""
    items = report.entries
    texts: dict[str, int] = {}
    tree: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        tree[_item_benchmark(item)][_item_scenario(item)].append(item)
    rows = [[escape(bench), escape(_tally(i for s in scenarios.values() for i in s)),
             [[escape(scenario), escape(_tally(members)),
               [_item(item, anchors[item.get("nodeid")], transcripts, texts) for item in members]]
              for scenario, members in sorted(scenarios.items())]]
            for bench, scenarios in sorted(tree.items())]
    payload = json.dumps({"texts": list(texts), "tree": rows}, ensure_ascii=False, separators=(",", ":")).encode()
    if not items:
        return '<p class="empty">No benchmark items ran.</p>', payload
    model = report.model or "MODEL"
    where = (f'<code>cassettes/{escape(model)}/&lt;benchmark&gt;/&lt;scenario&gt;.json</code>, under the item id')
    told = ("An opened item shows its conversation as recorded (from " + where + "), its verdict and what the "
            "benchmark's aggregate reads." if transcripts else
            "The full conversation of an item is in its cassette, " + where + "; each item here keeps its verdict "
            "and what the benchmark's aggregate reads, the model's answer included where the benchmark keeps it.")
    return (f'<p>{len(items)} items. {told}</p>'
            '<p><input id="filter" placeholder="filter items by id or reason" oninput="filterItems()"> '
            '<label><input type="checkbox" id="onlybad" onchange="filterItems()"> failed, errored or skipped '
            'only</label></p><div id="itemtree"></div>'), payload


def _tally(items: Any) -> str:
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        counts[item.get("outcome", "?")] += 1
    return ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))


def _item(item: dict[str, Any], anchor: str, transcripts: dict[str, list[list[str]]] | None,
          texts: dict[str, int]) -> list[Any]:
    """[number, outcome, badge, id, reason (cut), body HTML, conversation]: the page's row of one item. The
    conversation is [[speaker, text number], ...], None when none was recorded, 0 when the run read none."""
    outcome = item.get("outcome", "?")
    verdict = item.get("verdict") or {}
    reason = verdict.get("reason") or item.get("error_message") or item.get("error") or ""
    short = reason if len(reason) <= REASON_SHOWN else reason[:REASON_SHOWN - 3] + "..."
    badge = outcome if outcome in ("passed", "failed", "error", "skipped") else "other"
    body = [f"<div><code>{escape(item.get('nodeid', ''))}</code></div>"]
    if verdict:  # one line; the reason again in full only when the summary cut it
        line = ["verdict <b>" + ("pass" if verdict.get("passed") else "fail") + "</b>"]
        if verdict.get("score") is not None:
            line.append(escape(f"score {verdict['score']:.4f}"))
        if verdict.get("label") is not None:
            line.append(escape(f"label {verdict['label']}"))
        line += [name for name in ("refused", "invalid") if verdict.get(name)]
        body.append(f"<div>{' · '.join(line)}</div>")
        if short != reason:
            body.append(f"<pre>{escape(reason)}</pre>")
    if item.get("error"):
        body.append(f"<div>error: <b>{escape(item['error'])}</b></div>"
                    + (f"<pre>{escape(item['error_message'])}</pre>" if short != item.get("error_message") else ""))
    facts = item.get("facts") or {}
    said = [(name, facts[name]) for name in TRANSCRIPT_FACTS if isinstance(facts.get(name), str) and facts[name]]
    for name, text in said:
        body.append(f"<div>model's {escape(name)}:</div><pre class=\"said\">{escape(text)}</pre>")
    rest = [(k, v) for k, v in facts.items() if k not in dict(said)]
    if rest:
        body.append('<div class="facts">' + " · ".join(f"<b>{escape(k)}</b> {escape(_fact(v))}" for k, v in rest) + "</div>")
    if item.get("irregular"):
        body.append(f"<p>answers not plain text: {escape(json.dumps(item['irregular']))}</p>")
    turns: list[list[Any]] | None | int = 0
    if transcripts is not None:
        recorded = transcripts.get(anchor)
        turns = None if recorded is None else [[who, texts.setdefault(text, len(texts))] for who, text in recorded]
    return [int(anchor.split("-")[1]), escape(outcome), badge, escape(_item_id(item)), escape(short), "".join(body),
            turns]


def _fact(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list) and value and all(isinstance(v, float | int | type(None)) for v in value):
        return "[" + ", ".join("-" if v is None else f"{v:.3g}" for v in value) + "]"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
