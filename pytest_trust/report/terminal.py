"""The terminal summary: an account of the failing items, per benchmark a compact metric table, then the
gates, then the counts.

The default fits a screen after any run: a benchmark's summary-level rows and gated metrics when it ran alone,
per benchmark its headline metrics (``benchmarks.headlines``) and its error rate when items errored when several ran, then
every gate; ``-v`` adds every metric. A benchmark's items are
expected to fail at some rate, so their failures are not listed one by one with tracebacks as other
tests' are: the account gives, per scenario, how many failed, the most common reasons and a few ids, and
folds to a line per benchmark when that would run long. ``-v`` or an explicit ``--tb`` style (short,
long, line, native) brings back pytest's own per-item report. Lines fit pytest's terminal width (``COLUMNS``, else the terminal's):
a metric or gate name too long for its column takes a line of its own, its numbers below in their columns; a
free-text line is cut with "..." as pytest's short test summary cuts a message (the whole of it is in the JSON
report). Lines naming a command to run are never cut.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..benchmarks import headlines, is_summary_level
from ..results.gates import GateResult, family
from ..results.metrics import Metric, no_interval
from ..results.records import ItemRecord
from .run_report import RunReport

ACCOUNT_LINES = 40  # a longer account of failing items folds to one line per benchmark (-v unfolds it)
FOLDED_SCENARIOS = 3  # named on a benchmark's folded line, most failures first
PARTIAL_WIDTH = 160  # the whole text of what a partial score lacks is in the JSON report
WIDTH = 100  # of the failing account when no terminal is at hand (tests, report files)
NAME_MIN = 16  # a name column narrower than this reads badly: names wrap onto their own lines instead
SCENARIOS_SHOWN = 3  # per benchmark, most failures first; -v shows every scenario
REASONS_SHOWN = 2  # per scenario, most common first
IDS_SHOWN = 3  # per scenario, as many as fit on one line
QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")  # quoted text in a reason: answers, labels
QUOTE_KEPT = 24  # short quotes (labels such as 'positive') stay whole; longer ones (answers) are cut
CASSETTE_NAMED = re.compile(r"cassette (.+?\.json)\b")  # the file a corrupt-cassette message names first
QUOTE_PREFIX = 20  # of a long quote, the first characters, escaped, then "...": what the answer began with


IRREGULAR = {  # an answer's finish reason as the summary names it
    "length": "cut at max_tokens",
    "content_filter": "withheld by a content filter",
    "tool_calls": "tool calls",
    "no content": "with no content",
    "empty": "empty",
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
    else:
        interval = no_interval(metric.why)
    text = f"{format_value(metric):>7}  {interval:18}  n={metric.n}"
    return text + ("  partial" if metric.partial else "")


def per_item_detail(config: Any) -> bool:
    """Whether the user asked for pytest's report of each failing item: -v, or a --tb style named."""
    return config.getoption("verbose") > 0 or config.getoption("tbstyle", "auto") not in ("auto", "no")


def fold_item_failures(tr: Any, records: dict[str, ItemRecord]) -> list[Any] | None:
    """Takes the benchmark items' verdict failures out of pytest's FAILURES section and short test
    summary (the account replaces them); returns what ``unfold`` puts back before the counts line.
    Other tests' failures, and every error, stay as pytest reports them. ``records``: node id -> record."""
    if per_item_detail(tr.config) or not tr.stats.get("failed"):
        return None
    # the terminal reporter's ``stats`` (a documented attribute) is what its FAILURES section and short summary
    # read; no hook leaves one report out of them, so the list is swapped for the section and put back after
    reports = tr.stats["failed"]
    tr.stats["failed"] = [r for r in reports if not (getattr(r, "when", None) == "call" and _a_verdict(records, r.nodeid))]
    return reports


def _a_verdict(records: dict[str, ItemRecord], nodeid: str) -> bool:
    """Whether a test's failure is a benchmark item's verdict."""
    record = records.get(nodeid)
    return record is not None and record.result is not None and record.outcome == "failed"


def unfold(tr: Any, reports: list[Any] | None) -> None:
    if reports is not None:
        tr.stats["failed"] = reports


def reason_pattern(reason: str) -> str:
    """A verdict reason with long quoted text (the model's answer) cut to its first characters, so that
    answers beginning alike count together and the reader still sees what the model said; labels and
    short quotes stay whole."""
    text = QUOTED.sub(lambda m: m.group() if len(m.group()) <= QUOTE_KEPT else _quote_prefix(m.group()),
                      " ".join(reason.split()))
    return text or "(no reason given)"


def _quote_prefix(quoted: str) -> str:
    """The first QUOTE_PREFIX characters of a quote, control characters escaped (a terminal must not act on
    them), never ending inside an escape such as ``\\n``, then an ellipsis: ``'The movie was great,...'``."""
    mark, inner = quoted[0], quoted[1:-1]
    prefix = "".join(c if c.isprintable() else repr(c)[1:-1] for c in inner[:QUOTE_PREFIX])
    trailing = len(prefix) - len(prefix.rstrip("\\"))
    if trailing % 2:  # a lone backslash: the first half of an escape the reason's repr wrote
        prefix = prefix[:-1]
    return f"{mark}{prefix.rstrip()}...{mark}"


def scenario_of(item_id: str) -> str:
    """The scenario an item id names: the id without its last part and without seeds (numbers)."""
    parts = item_id.split("/")
    kept = [p for p in parts[:-1] if not p.isdigit()]
    return "/".join(kept) or item_id


def failing_account(records: list[ItemRecord], every_scenario: bool = False, width: int = WIDTH,
                    folded: bool = False) -> list[str]:
    """Per benchmark, the scenarios with failing items (most first): how many of how many failed, the
    most common reasons, a few ids; ``folded``: one line per benchmark naming its worst scenarios. Empty
    when no item failed."""
    scored = _scored_by_scenario(records)
    lines: list[str] = []
    for benchmark in sorted(scored):
        lines += _benchmark_account(benchmark, scored[benchmark], every_scenario, width, folded)
    return lines


def _scored_by_scenario(records: list[ItemRecord]) -> dict[str, dict[str, list[tuple[str, dict]]]]:
    """Per benchmark, per scenario, the outcome and result of each scored item that passed or failed."""
    scored: dict[str, dict[str, list[tuple[str, dict]]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        result, outcome = record.result, record.outcome
        if result is not None and outcome in ("passed", "failed"):
            scored[result["benchmark"]][scenario_of(result["item_id"])].append((outcome, result))
    return scored


def _benchmark_account(benchmark: str, scored: dict[str, list[tuple[str, dict]]], every_scenario: bool, width: int,
                       folded: bool) -> list[str]:
    """One benchmark's part of the account: its head line, then its worst scenarios (or, ``folded``, the head
    line alone naming them); nothing when none of its items failed."""
    scenarios = {name: [r for outcome, r in entries if outcome == "failed"] for name, entries in scored.items()}
    failing = sorted((name for name in scenarios if scenarios[name]), key=lambda n: (-len(scenarios[n]), n))
    if not failing:
        return []
    failed = sum(len(scenarios[name]) for name in failing)
    total = sum(len(entries) for entries in scored.values())
    head = f"{benchmark}: {failed} of {total} failed, in {len(failing)} of {len(scenarios)} scenarios"
    if folded:
        worst = ", ".join(f"{name} {len(scenarios[name])}" for name in failing[:FOLDED_SCENARIOS])
        return [_cut(f"{head}; most in {worst}" + (", ..." if len(failing) > FOLDED_SCENARIOS else ""), width)]
    lines = [head]
    shown = failing if every_scenario else failing[:SCENARIOS_SHOWN]
    for name in shown:
        lines += _scenario_account(name, scenarios[name], len(scored[name]), width)
    rest = failing[len(shown):]
    if rest:
        lines.append(f"  ... {len(rest)} more scenarios with {sum(len(scenarios[n]) for n in rest)} failing items "
                     "(-v lists every scenario)")
    return lines


def _scenario_account(name: str, results: list[dict], scored: int, width: int) -> list[str]:
    """One scenario's lines: how many of its ``scored`` items failed, the most common reasons, a few ids."""
    lines = [f"  {name}: {len(results)} of {scored} failed"]
    reasons = Counter(reason_pattern(r["verdict"].get("reason", "")) for r in results)
    for reason, n in reasons.most_common(REASONS_SHOWN):
        lines.append(_cut(f"    {n:>4}x {reason}", width))
    if len(reasons) > REASONS_SHOWN:
        others = len(reasons) - REASONS_SHOWN
        lines.append(f"          ({others} other reason{'s' if others > 1 else ''})")
    lines.append(_ids_line([r["item_id"] for r in sorted(results, key=lambda r: r["item_id"])], width))
    return lines


def corrupt_files(records: list[ItemRecord]) -> list[str]:
    """One line per corrupt cassette file, however many items errored on it: its first message (the file, the
    problem, the fix) and the count. Under ``-q --tb=no`` pytest prints the items' bare ERROR lines only."""
    by_file: dict[str, list[str]] = {}
    for record in records:
        kind, message = record.error, record.error_message
        if kind == "corrupt cassette" and message:
            where = CASSETTE_NAMED.match(message)
            by_file.setdefault(where.group(1) if where else message, []).append(message)
    return [f"corrupt cassette, {len(messages)} item{'s' if len(messages) > 1 else ''} errored: {messages[0]}"
            for _, messages in sorted(by_file.items())]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _ids_line(ids: list[str], width: int) -> str:
    line = "    e.g. " + ids[0]
    for item_id in ids[1:IDS_SHOWN]:
        if len(line) + 2 + len(item_id) > width:
            break
        line += ", " + item_id
    return _cut(line, width)


def _headline(key: str, metric: Metric, headlines: dict[str, tuple[str, ...]]) -> bool:
    """A row of the default summary: a headline metric of its benchmark (``benchmarks.headlines``), or an
    error rate above zero."""
    if key.endswith(".error_rate") and key.count(".") == 1:
        return metric.value > 0
    return key in headlines.get(key.split(".", 1)[0], ())


def _folded_error_gates(gates: list[Any]) -> tuple[list[Any], list[str]]:
    """Passing ``<benchmark>.error_rate`` gates as one row per bound (several benchmarks ran, no -v)."""
    passing: dict[str, list[str]] = {}
    rest = []
    for g in gates:
        key = g.gate.key
        if g.status == "PASS" and key.endswith(".error_rate") and key.count(".") == 1:
            passing.setdefault(g.gate.bound, []).append(key.split(".", 1)[0])
        else:
            rest.append(g)
    rows = [(bound, f"PASS for {len(names)}: {', '.join(names)}") for bound, names in passing.items()]
    return rest, rows


def _irregular_lines(irregular: dict[str, dict[str, int]], by_reason: bool, width: int = WIDTH) -> list[str]:
    """Answers that were not plain text: a line per benchmark, or per reason when several benchmarks ran."""
    if not by_reason:
        return [line for benchmark, reasons in sorted(irregular.items())
                for line in textwrap.wrap(f"answers of {benchmark} that were not plain text: " + ", ".join(
                    f"{n} {IRREGULAR.get(reason, reason)}" for reason, n in sorted(reasons.items())), width,
                    subsequent_indent="    ")]
    per_reason: dict[str, list[str]] = defaultdict(list)
    for benchmark, reasons in sorted(irregular.items()):
        for reason, n in sorted(reasons.items()):
            per_reason[reason].append(f"{benchmark} {n}")
    return [line for reason, counts in sorted(per_reason.items())
            for line in textwrap.wrap(f"answers {IRREGULAR.get(reason, reason)}: {', '.join(counts)}", width,
                                      subsequent_indent="    ")]


def terminal_width(tr: Any) -> int:
    """The width pytest lays its own lines out to: ``COLUMNS``, else the terminal's (80 when unknown)."""
    return tr.config.get_terminal_writer().fullwidth


def name_column(names: list[str], cells: int, width: int) -> int:
    """The width of a table's name column: its longest name, as far as it fits beside ``cells`` columns of numbers."""
    return max(min(max(len(name) for name in names), width - cells - 1), NAME_MIN)


def columns(rows: list[tuple[str, str]], head: tuple[str, str], width: int) -> list[str]:
    """A table of a name and its numbers (already padded to columns): the name column as wide as the longest
    name that fits beside the numbers; a longer name on a line of its own (cut with "..." past the width), its
    numbers on the next, so the numbers stay aligned."""
    column = name_column([name for name, _ in [head, *rows]], max(len(cell) for _, cell in [head, *rows]), width)
    lines = [f"{head[0]:{column}} {head[1]}".rstrip()]
    for name, cell in rows:
        if len(name) <= column:
            lines.append(f"{name:{column}} {cell}".rstrip())
        else:
            lines += [_cut(name, width), f"{'':{column}} {cell}".rstrip()]
    return lines


def _fit(text: str, width: int, lines: int = 2) -> list[str]:
    """Free text in at most ``lines`` lines of the width, the rest cut with "..."""
    return textwrap.wrap(text, width, subsequent_indent="    ", max_lines=lines, placeholder=" ...",
                         break_on_hyphens=False) or [""]


def _shown_path(path: str, here: Path) -> str:
    """A folder under the directory pytest was started in, relative to it (a path is never cut)."""
    try:
        return str(Path(path).relative_to(here)) if path else path
    except ValueError:
        return path


def _packed(parts: list[str], width: int, sep: str = "   ") -> list[str]:
    """Fields of a line (``model X``, ``record mode Y``, ...) on as few lines of the width as they fit."""
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append("    " + part)
    return lines


@dataclass
class LiveNotes:
    """What a live run tells its terminal beyond its report: where its recordings are, and what happened on the way
    (selection, recording, batches, files)."""

    cassettes: str = ""
    prompt: str | None = None  # the system prompt under test and its recordings' folder
    thresholds_file: bool = True  # False: the run had no thresholds file, so no gates
    allow_partial: bool = False  # --trust-partial
    left_out: list[str] = field(default_factory=list)  # what the selection's filters left out
    missing: list[str] = field(default_factory=list)  # selected benchmarks with nothing to replay
    baseline: list[str] = field(default_factory=list)  # what --trust-baseline-update did
    merged_items: int = 0  # items this run recorded, merged into the cassettes
    batch: list[str] = field(default_factory=list)  # what --trust-batch collected and submitted
    merge_problems: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)  # reports that could not be written


def write_summary(tr: Any, report: RunReport, notes: LiveNotes) -> None:
    """The run's section of pytest's terminal summary, top to bottom: what ran, the failing items, the metrics,
    the gates, the changes against a baseline, what the selection left out, the counts, what happened on the
    way, and the gates' verdict."""
    verbose = tr.config.getoption("verbose") > 0
    width = terminal_width(tr)
    several = len({key.split(".", 1)[0] for key in report.metrics}) > 1  # one benchmark's rows fit a screen
    brief = several and not verbose  # several benchmarks' rows folded to fit a screen
    _write_run(tr, report.run, notes, width)
    _write_account(tr, report.records, verbose, width)
    _write_metrics(tr, report.metrics, {g.gate.key for g in report.gates}, several, verbose, width)
    if report.gates:
        _write_gates(tr, report.gates, folded_errors=brief, verbose=verbose, width=width)
    elif not notes.thresholds_file:
        tr.write_line("no gates: no thresholds file (--trust-thresholds PATH)")
    _write_baseline(tr, report)
    _write_left_out(tr, report, notes)
    tr.write_line("")
    tr.write_line(_items_line(report))
    for line in _irregular_lines(report.irregular_answers, by_reason=brief, width=width):
        tr.write_line(line)
    _write_on_the_way(tr, report, notes)
    if report.gates:
        tr.write_line(gates_line(report.gates, notes.allow_partial), red=report.gates_failed,
                      green=not report.gates_failed)


def _write_run(tr: Any, run: dict[str, Any], notes: LiveNotes, width: int) -> None:
    """The section's head: the model, record mode, cassettes and run size; the prompt under test; any deviation
    from the upstream protocol."""
    tr.write_sep("=", "pytest-trust")
    size = ([f"{run['profile'] or '--trust-limit'}: {run['limit']} items per cassette file (seed {run['seed']})"]
            if run.get("limit") is not None else [])
    for line in _packed([f"model {run['model']}", f"record mode {run['record_mode']}",
                         f"cassettes {_shown_path(notes.cassettes, tr.config.invocation_params.dir)}",
                         *(["soft"] if run.get("soft") else []), *size], width):
        tr.write_line(line)
    if notes.prompt is not None:
        tr.write_line(notes.prompt)
    deviations = run.get("deviations") or {}
    if deviations:
        tr.write_line("deviations from the upstream protocol: "
                      + ", ".join(f"{name}={value}" for name, value in deviations.items()))


def _write_account(tr: Any, records: list[ItemRecord], verbose: bool, width: int) -> None:
    """The failing items' account under its title, by scenario, or folded to a line per benchmark when that would
    run past ACCOUNT_LINES (not under -v)."""
    account = failing_account(records, every_scenario=verbose, width=width)
    folded = not verbose and len(account) > ACCOUNT_LINES
    if folded:
        account = failing_account(records, folded=True, width=width)
    if not account:
        return
    tr.write_line("")
    for line in _fit(_account_title(folded, per_item_detail(tr.config)), width):
        tr.write_line(line)
    for line in account:
        tr.write_line(line)


def _account_title(folded: bool, per_item: bool) -> str:
    """What the account lists, and where the rest is: -v, pytest's per-item report, the JSON report."""
    if folded:
        return ("failing items by benchmark (-v: by scenario, with reasons and ids; every item and reason: "
                "--trust-report FILE)")
    where = "each one is reported above" if per_item else "pytest's report of each: -v or --tb=short"
    return f"failing items by scenario ({where}; every item and reason: --trust-report FILE)"


def _shown_metrics(metrics: dict[str, Metric], gated: set[str], several: bool, verbose: bool) -> list[str]:
    """The metrics' table rows: every metric under -v; when several benchmarks ran, their headlines and error
    rates above zero; one benchmark's summary-level rows and its gated metrics otherwise."""
    if verbose:
        return list(metrics)
    if several:
        heads = headlines(metrics)
        return [k for k in metrics if _headline(k, metrics[k], heads)]
    return [k for k in metrics if is_summary_level(k) or k in gated]


def _write_metrics(tr: Any, metrics: dict[str, Metric], gated: set[str], several: bool, verbose: bool,
                   width: int) -> None:
    """The metrics' table, how many rows -v adds, then what the partial ones lack."""
    shown = _shown_metrics(metrics, gated, several, verbose)
    if not shown:
        return
    tr.write_line("")
    for line in columns([(key, format_metric(metrics[key])) for key in shown],
                        ("metric", f"{'value':>7}  {'95% interval':18}  n"), width):
        tr.write_line(line)
    hidden = len(metrics) - len(shown)
    if hidden:
        tr.write_line(f"({hidden} more metrics with -v or in --trust-report)")
    for line in _partial_lines(metrics, shown, width):
        tr.write_line(line)


def _partial_lines(metrics: dict[str, Metric], shown: list[str], width: int) -> list[str]:
    """One note per distinct reason a shown metric is partial, naming the metrics; the reason cut to stay
    readable."""
    lacking: dict[str, list[str]] = {}
    for key in shown:
        if metrics[key].partial:
            lacking.setdefault(metrics[key].partial, []).append(key)
    lines = []
    for text, keys in lacking.items():
        what = text if len(text) <= PARTIAL_WIDTH else text[:PARTIAL_WIDTH - 3] + "..."
        lines += _fit(f"{', '.join(keys)} {'is' if len(keys) == 1 else 'are'} partial ({what})", width, 3)
    return lines


def _write_baseline(tr: Any, report: RunReport) -> None:
    """Against --trust-baseline: what changed, the paired tests, a few ids of each list (new failures in red)."""
    if report.baseline is None:
        return
    from ..results.baseline import summary_lines

    tr.write_line("")
    for line in summary_lines(report.baseline, report.entries):
        tr.write_line(line, red=line.startswith(("    newly failing", "    newly erroring")))


def _write_left_out(tr: Any, report: RunReport, notes: LiveNotes) -> None:
    """What --trust-baseline-update did and what the selection left out; in red, what could not run: selected
    benchmarks with nothing to replay, corrupt cassette files."""
    for line in [*notes.baseline, *notes.left_out]:
        tr.write_line(line)
    for line in [*notes.missing, *corrupt_files(report.records)]:
        tr.write_line(line, red=True)


def _items_line(report: RunReport) -> str:
    """The items' outcomes, and the errors by kind."""
    counts = report.counts
    kinds = Counter(record.error for record in report.records if record.error is not None)
    parts = [f"{counts.get(k, 0)} {k}" for k in ("passed", "failed", "error", "skipped") if counts.get(k)]
    detail = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    return "items: " + (", ".join(parts) or "none") + (f" (errors: {detail})" if detail else "")


def _write_on_the_way(tr: Any, report: RunReport, notes: LiveNotes) -> None:
    """What happened on the way: items lost with their xdist worker, recordings merged, the batch, cassettes not
    merged, reports not written."""
    if report.lost:
        shown = ", ".join(report.lost[:3]) + (", ..." if len(report.lost) > 3 else "")
        tr.write_line(f"lost: {len(report.lost)} item(s) whose xdist worker died while running them "
                      f"(counted as errors): {shown}", red=True)
    if notes.merged_items:
        tr.write_line(f"recorded: {notes.merged_items} item(s) merged into cassettes")
    for line in notes.batch:
        tr.write_line(line)
    for problem in notes.merge_problems:
        tr.write_line(f"not merged: {problem}", yellow=True)
    for problem in notes.unwritten:
        tr.write_line(f"not written: {problem}", red=True)


def _write_gates(tr: Any, gates: list[GateResult], folded_errors: bool, verbose: bool, width: int = WIDTH) -> None:
    """The gates' table (a status's colour on the status), then why each that did not simply pass or fail came
    out as it did."""
    tr.write_line("")
    _write_gate_table(tr, _gate_rows(gates, folded_errors, verbose), width)
    unselected = [g for g in gates if g.status == "NOT SELECTED"]
    if unselected and not verbose:
        families = sorted({family(g.gate.key) for g in unselected})
        for line in _fit(f"not selected (no item scored; -v lists them): {len(unselected)} gate"
                         f"{'s' if len(unselected) > 1 else ''} of {', '.join(families)}", width):
            tr.write_line(line, yellow=True)
    for g in gates:
        if g.reason and g.status != "NOT SELECTED":
            for line in _fit(f"{g.gate.key} {g.status.lower()}: {g.reason}", width):
                tr.write_line(line, red=g.blocks, yellow=not g.blocks)


GateRow = tuple[str, str, str, dict[str, bool]]  # name, bound and value, status, markup


def _gate_rows(gates: list[GateResult], folded_errors: bool, verbose: bool) -> list[GateRow]:
    """The gates' table rows: passing error-rate gates folded to a row per bound (``folded_errors``), then each
    other gate (those not selected only under -v), a blocking status red and bold, a pass green, the rest
    yellow."""
    listed, folded_rows = _folded_error_gates(gates) if folded_errors else (gates, [])
    rows: list[GateRow] = [
        ("<benchmark>.error_rate", f"{bound:>12} {'':>8}  ", status, {"green": True}) for bound, status in folded_rows]
    for g in listed:
        if g.status == "NOT SELECTED" and not verbose:
            continue
        value = f"{format_value(g.metric):>8}" if g.metric else f"{'-':>8}"
        markup = ({"red": True, "bold": True} if g.blocks else {"green": True} if g.status == "PASS"
                  else {"yellow": True})
        rows.append((g.gate.key, f"{g.gate.bound:>12} {value}  ", g.status, markup))
    return rows


def _write_gate_table(tr: Any, rows: list[GateRow], width: int) -> None:
    """The gates' table, the name column as wide as the names that fit; a longer name on a line of its own."""
    head = f"{'bound':>12} {'value':>8}  status"
    column = name_column(["gate", *(name for name, *_ in rows)], len(head) + len("INCONCLUSIVE") - len("status"), width)
    tr.write_line(f"{'gate':{column}} {head}")
    for name, numbers, status, markup in rows:
        if len(name) > column:  # on a line of its own; its numbers below, in their columns
            tr.write_line(_cut(name, width))
            name = ""
        text = f"{name:{column}} {numbers}"
        tr.write(text)
        tr.write_line(_cut(status, max(width - len(text), len(status.split(":")[0]))), **markup)


def gates_line(gates: list[GateResult], allow_partial: bool) -> str:
    """The last line: the run's verdict and its gates' statuses."""
    statuses = Counter(g.status for g in gates)
    parts = [f"{statuses['PASS']} passed", f"{statuses['FAIL']} failed"]
    if statuses["INCONCLUSIVE"]:
        blocking = any(g.blocks for g in gates if g.status == "INCONCLUSIVE")
        parts.append(f"{statuses['INCONCLUSIVE']} inconclusive" + ("" if blocking else " (not blocking)"))
    if statuses["NOT COMPUTED"]:
        allowed = " (allowed by --trust-partial)" if allow_partial else ""
        parts.append(f"{statuses['NOT COMPUTED']} not computed{allowed}")
    if statuses["NOT SELECTED"]:
        parts.append(f"{statuses['NOT SELECTED']} not selected")
    return f"gates {'FAILED' if any(g.blocks for g in gates) else 'passed'}: " + ", ".join(parts)
