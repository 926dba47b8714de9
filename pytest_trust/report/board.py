"""``pytest-trust report board REPORT... [--html PATH] [--markdown PATH]``: many runs seen together.

A team that replays every pull request has many reports. The board puts them in one table, a row a run (model,
deployment, when, size) and a column a headline metric (``benchmarks.headlines``), each cell the
value with its 95% interval in the colour of the run's gate on it, as DecodingTrust's leaderboard puts models
against perspectives; and for runs of one model and deployment over time, one line per headline metric with its
interval as a band and the gate's bound drawn, then the gates whose status changed between consecutive runs with
the items that flipped. Reports are read as saved (docs/report-schema.md): a merged run is one run; a shard, a
report of a newer schema or one without metrics is refused with one line naming the file and what to do.
"""

from __future__ import annotations

import itertools
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go

from ..benchmarks import headlines
from ..errors import UsageProblem
from ..results.gates import GateResult
from ..results.metrics import Metric
from . import plotly_bundle
from .file import SCHEMA_VERSION, read
from .formatting import fmt_interval, fmt_number, fmt_value, is_percent
from .html_parts import escape, figure
from .markdown import STATUS_MARK
from .run_report import RunReport

WHAT = "report board:"
VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")  # a gate NOT SELECTED or NOT COMPUTED in a run says nothing of the model
FLIPPED_SHOWN = 10  # item ids listed per changed gate and direction
COLOURS = {"PASS": "#e3f2e6", "FAIL": "#fde2e1", "INCONCLUSIVE": "#fff1d6"}


@dataclass(frozen=True)
class BoardRun:
    path: Path
    report: RunReport

    @property
    def model(self) -> str:
        return str(self.report.model or "?")

    @property
    def deployment(self) -> str:
        """What was under test besides the model: the application, else the deployment's prompt, else none."""
        run = self.report.run
        target = run.get("target") or {}
        if target:
            return f"app {target.get('name')}" + (f" {target['version']}" if target.get("version") else "")
        deviations = run.get("deviations") or {}
        return str(deviations.get("deployment") or deviations.get("system_prompt") or "none")

    @property
    def when(self) -> str:
        return str(self.report.run.get("started") or "")

    @property
    def size(self) -> str:
        run = self.report.run
        shards = f"merged from {len(run['shards'])} shards" if run.get("shards") else ""
        size = run.get("profile") or (f"limit {run['limit']}" if run.get("limit") else "every item")
        return ", ".join(part for part in (size, shards) if part)

    def gate(self, key: str) -> GateResult | None:
        return next((g for g in self.report.gates if g.gate.key == key and g.gate.alpha is None), None)


def load(paths: list[Path]) -> list[BoardRun]:
    """The runs, oldest first; one UsageProblem for the first report the board cannot read as one run."""
    if not paths:
        raise UsageProblem("report board: pass one or more JSON reports (written with --trust-report PATH)")
    runs = []
    for path in paths:
        saved = read(path, WHAT, with_items=False)
        version = saved.get("schema_version", SCHEMA_VERSION)
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise UsageProblem(f"report board: {path}: report schema version {version!r} is newer than this "
                               f"pytest-trust reads ({SCHEMA_VERSION}); upgrade pytest-trust to read it")
        if not isinstance(saved.get("metrics"), dict) or not saved["metrics"]:
            raise UsageProblem(f"report board: {path}: the report has no metrics (a run cut short?); pass the report "
                               "of a run that finished")
        run = saved.get("run") if isinstance(saved.get("run"), dict) else {}
        if run.get("shard"):
            raise UsageProblem(f"report board: {path}: shard {run['shard']} of a run, not a run; merge its shards "
                               "first (pytest-trust report merge SHARD... --out RUN.json) and pass the merged report")
        if not isinstance(saved.get("items"), list):
            saved["items"] = []  # a report without items still has its metrics; no flipped items to list
        runs.append(BoardRun(path, RunReport.read(saved)))
    return sorted(runs, key=lambda r: (r.when, str(r.path)))


def headline_columns(runs: list[BoardRun]) -> list[str]:
    """The headline keys (``benchmarks.headlines``) of the runs' metrics taken together, in registry order."""
    present = dict.fromkeys(key for run in runs for key in run.report.metrics)
    return [key for keys in headlines(present).values() for key in keys]


def series(runs: list[BoardRun]) -> dict[tuple[str, str], list[BoardRun]]:
    """Runs of the same model and deployment, oldest first: the trend lines."""
    groups: dict[tuple[str, str], list[BoardRun]] = defaultdict(list)
    for run in runs:
        groups[(run.model, run.deployment)].append(run)
    return dict(groups)


@dataclass(frozen=True)
class Change:
    key: str
    before: BoardRun
    after: BoardRun
    was: str
    now: str
    newly_failing: list[str]
    newly_passing: list[str]


def changes(group: list[BoardRun]) -> list[Change]:
    """Gates whose verdict changed between consecutive runs (both ran it), with the items of the gate's benchmark
    that flipped."""
    out = []
    for before, after in itertools.pairwise(group):
        was = {g.gate.key: g.status for g in before.report.gates}
        for gate in after.report.gates:
            key = gate.gate.key
            if was.get(key) in VERDICTS and gate.status in VERDICTS and was[key] != gate.status:
                failing, passing = _flipped(before, after, key.split(".", 1)[0])
                out.append(Change(key, before, after, was[key], gate.status, failing, passing))
    return out


def _flipped(before: BoardRun, after: BoardRun, benchmark: str) -> tuple[list[str], list[str]]:
    def outcomes(run: BoardRun) -> dict[str, str]:
        return {str(e.get("id") or e.get("nodeid")): e.get("outcome", "") for e in run.report.entries
                if e.get("benchmark") == benchmark}

    old, new = outcomes(before), outcomes(after)
    shared = sorted(set(old) & set(new))
    return ([i for i in shared if old[i] == "passed" and new[i] == "failed"],
            [i for i in shared if old[i] == "failed" and new[i] == "passed"])


# --- Markdown ------------------------------------------------------------------------------------------------

def render_markdown(runs: list[BoardRun]) -> str:
    columns = headline_columns(runs)
    lines = ["# pytest-trust board", "", (f"{len(runs)} runs; each cell the value, its 95% interval and its gate "
             "(✅ pass, ❌ fail, ❔ inconclusive; none: not gated)."), "",
             "| model | deployment | when | size | " + " | ".join(f"`{k}`" for k in columns) + " |",
             "|" + "---|" * (4 + len(columns))]
    for run in runs:
        cells = []
        for key in columns:
            metric = run.report.metrics.get(key)
            gate = run.gate(key)
            mark = STATUS_MARK.get(gate.status, "") if gate else ""
            partial = " partial" if metric is not None and metric.partial else ""
            cells.append("-" if metric is None else f"{mark} {fmt_value(metric)} {fmt_interval(metric)}{partial}".strip())
        lines.append(f"| {run.model} | {run.deployment} | {run.when} | {run.size} | " + " | ".join(cells) + " |")
    for (model, deployment), group in series(runs).items():
        if len(group) < 2:
            continue
        lines += ["", f"## {model}, deployment {deployment}: {len(group)} runs", ""]
        for key in columns:
            values = [fmt_value(run.report.metrics.get(key)) for run in group]
            if len(values) - values.count("-") > 1:  # a trend needs two points
                lines.append(f"- `{key}`: " + " → ".join(values))
        found = changes(group)
        lines += ["", "Gates that changed:" if found else "No gate changed status between consecutive runs."]
        for change in found:
            lines.append(f"- `{change.key}`: {change.was} → {change.now} ({change.before.when} → {change.after.when})"
                         + _flips_text(change))
    return "\n".join(lines) + "\n"


def _flips_text(change: Change) -> str:
    parts = []
    for name, ids in (("newly failing", change.newly_failing), ("newly passing", change.newly_passing)):
        if ids:
            shown = ", ".join(f"`{i}`" for i in ids[:FLIPPED_SHOWN])
            parts.append(f"{len(ids)} {name}: {shown}" + (", ..." if len(ids) > FLIPPED_SHOWN else ""))
    return "; " + "; ".join(parts) if parts else ""


# --- HTML ----------------------------------------------------------------------------------------------------

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:20px 28px;color:#1d2330}
table{border-collapse:collapse}td,th{padding:4px 10px;border-bottom:1px solid #eceef2;text-align:left;
vertical-align:top}th{background:#f2f4f7;cursor:pointer;user-select:none}th:after{content:' \\2195';color:#9aa1ad}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.i{color:#5b6474;font-size:12px}
td:nth-child(-n+4){white-space:nowrap}section{margin:18px 0}.changes li{margin:4px 0}code{font-size:13px}
.grid{display:flex;flex-wrap:wrap;gap:12px}.grid>div{flex:1 1 420px;min-width:360px}
"""

SORT = """
document.querySelectorAll('table.sortable th').forEach(function(th,col){th.addEventListener('click',function(){
 var body=th.closest('table').tBodies[0],rows=[].slice.call(body.rows),up=th.dataset.dir!=='up';th.dataset.dir=up?'up':'down';
 rows.sort(function(a,b){var x=a.cells[col].dataset.sort,y=b.cells[col].dataset.sort;
  var m=x!==undefined&&x!==''?parseFloat(x):NaN,n=y!==undefined&&y!==''?parseFloat(y):NaN;
  var c=!isNaN(m)||!isNaN(n)?(isNaN(m)?-Infinity:m)-(isNaN(n)?-Infinity:n):a.cells[col].textContent.localeCompare(b.cells[col].textContent);
  return up?c:-c;});rows.forEach(function(r){body.appendChild(r);});});});
"""


def render_html(runs: list[BoardRun]) -> str:
    columns = headline_columns(runs)
    head = "".join(f"<th>{escape(h)}</th>" for h in ("model", "deployment", "when", "size")) + "".join(
        f"<th><code>{escape(k)}</code></th>" for k in columns)
    rows = []
    for run in runs:
        cells = [f"<td>{escape(run.model)}</td>", f"<td>{escape(run.deployment)}</td>",
                 f"<td>{escape(run.when)}</td>", f"<td>{escape(run.size)}</td>"]
        for key in columns:
            metric, gate = run.report.metrics.get(key), run.gate(key)
            if metric is None or metric.value is None:
                cells.append('<td class="num" data-sort="">-</td>')
                continue
            status = gate.status if gate else ""
            style = f' style="background:{COLOURS[status]}"' if status in COLOURS else ""
            title = f"{status} {gate.gate.bound}" if gate else "not gated"
            partial = ' <span class="i">partial</span>' if metric.partial else ""
            cells.append(f'<td class="num" data-sort="{metric.value!r}" data-status="{escape(status)}"{style} '
                         f'title="{escape(title)}">{escape(fmt_value(metric))} <span class="i">'
                         f"{escape(fmt_interval(metric))}</span>{partial}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    files = "".join(f"<li>{escape(run.model)}, {escape(run.when)}: {escape(str(run.path))}</li>" for run in runs)
    trends = "".join(_trend(model, deployment, group, columns)
                     for (model, deployment), group in series(runs).items() if len(group) > 1)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pytest-trust board</title>"
            f"<style>{CSS}</style>{plotly_bundle.head() if trends else ''}</head><body><h1>pytest-trust board: {len(runs)} runs</h1>"
            "<p>A row a run, a column a headline metric: its value and 95% interval, the cell coloured by the run's "
            "gate on it (green pass, red fail, amber inconclusive, none: not gated). Click a header to sort.</p>"
            f'<section id="board"><table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
            f'</tbody></table></section><section id="trends">{trends}</section>'
            f"<details><summary>reports</summary><ul>{files}</ul></details><script>{SORT}</script></body></html>\n")


def _trend(model: str, deployment: str, group: list[BoardRun], columns: list[str]) -> str:
    """One chart per headline metric a run of the group has: its value over time, the interval as a band, the
    latest gate's bounds as dashed lines; then the gates that changed."""
    parts = [(f'<h2 class="series">{escape(model)}, deployment {escape(deployment)}: {len(group)} runs</h2>'
             '<div class="grid">')]
    for key in columns:
        points = [(run.when, run.report.metrics.get(key)) for run in group]
        points = [(when, m) for when, m in points if m is not None and m.value is not None]
        if len(points) < 2:  # a trend needs two points
            continue
        parts.append(figure(_trend_figure(key, points, next((r.gate(key) for r in reversed(group) if r.gate(key)),
                                                            None)), 260))
    parts.append("</div>")
    found = changes(group)
    parts.append("<h3>Gates that changed between consecutive runs</h3>")
    if not found:
        parts.append('<p class="i">none</p>')
    else:
        items = []
        for change in found:
            flips = "".join(f"<div class=\"i\">{len(ids)} {name}: "
                            + ", ".join(f"<code>{escape(i)}</code>" for i in ids[:FLIPPED_SHOWN])
                            + (", ..." if len(ids) > FLIPPED_SHOWN else "") + "</div>"
                            for name, ids in (("newly failing", change.newly_failing),
                                              ("newly passing", change.newly_passing)) if ids)
            items.append(f"<li><code>{escape(change.key)}</code>: {escape(change.was)} → {escape(change.now)} "
                         f"<span class=\"i\">({escape(change.before.when)} → {escape(change.after.when)})</span>"
                         f"{flips}</li>")
        parts.append(f'<ul class="changes">{"".join(items)}</ul>')
    return "".join(parts)


def _trend_figure(key: str, points: list[tuple[str, Metric]], gate: GateResult | None) -> go.Figure:
    when = [w if [x for x, _ in points].count(w) == 1 else f"{w} #{i}" for i, (w, _) in enumerate(points, 1)]
    metrics = [m for _, m in points]
    fig = go.Figure()
    if all(m.low is not None and m.high is not None for m in metrics):
        fig.add_scatter(x=when, y=[m.high for m in metrics], mode="lines", line={"width": 0}, showlegend=False,
                        hoverinfo="skip")
        fig.add_scatter(x=when, y=[m.low for m in metrics], mode="lines", line={"width": 0}, fill="tonexty",
                        fillcolor="rgba(74,127,212,0.2)", name="95% interval", hoverinfo="skip")
    fig.add_scatter(x=when, y=[m.value for m in metrics], mode="lines+markers", name=key,
                    line={"color": "#4a7fd4"}, text=[f"{fmt_value(m)} {fmt_interval(m)}" for m in metrics],
                    hovertemplate="%{x}: %{text}<extra></extra>")
    percent = is_percent(metrics[0])
    for bound in (gate.gate.min, gate.gate.max) if gate else ():
        if bound is not None:
            fig.add_hline(y=bound, line_dash="dash", line_color="#c62828",
                          annotation_text=f"gate {fmt_number(bound, percent)}", annotation_position="top left")
    fig.update_layout(title=key, showlegend=False, yaxis={"tickformat": ".0%"} if percent else {},
                      xaxis={"type": "category"})
    return fig


# --- the command ---------------------------------------------------------------------------------------------

def main(paths: list[Path], html: Path | None, markdown: Path | None) -> int:
    """Writes the board's files, prints its Markdown when none is asked for; 4 for a report it cannot read."""
    try:
        runs = load(paths)
    except UsageProblem as err:
        print(f"pytest-trust {err}", file=sys.stderr)
        return 4
    text = render_markdown(runs)
    for option, path, content in (("--html", html, lambda: render_html(runs)), ("--markdown", markdown, lambda: text)):
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content(), encoding="utf-8")
        except OSError as err:
            print(f"pytest-trust report board: {option} {path}: cannot be written ({err.strerror})",
                  file=sys.stderr)
            return 4
    if markdown is None:
        print(text, end="")
    return 0

