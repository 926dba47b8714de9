"""The ``pytest-trust`` console script: cassette housekeeping, imports and the credential audit, outside a test run."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..attacks import command as attack_command
from ..data import location
from ..errors import CassetteError, TrustError, UsageProblem
from ..importers import decodingtrust
from ..options import PROFILES
from ..recording.audit import audit
from ..recording.cassettes import model_dir, read_cassette
from ..recording.journal import merge_journals
from . import scaffold

if TYPE_CHECKING:
    from ..report.run_report import RunReport
    from ..results.gates import GateResult

BENCHMARK_HELP = "a registered benchmark or suite (repeatable; default: every registered suite)"
BROKEN_PIPE = 141  # 128 + SIGPIPE: the status of a tool whose reader went away (`pytest-trust list ... | head`)
USAGE_ERROR = 4  # pytest's exit status for a usage error


def main(argv: list[str] | None = None) -> int:
    """The command's exit status; when the reader of its output has gone (``| head``), it stops quietly, as
    command-line tools do, instead of printing a BrokenPipeError traceback."""
    try:
        status = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit where it cannot be caught
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
        os.close(devnull)
        return BROKEN_PIPE
    return status


def _main(argv: list[str] | None) -> int:
    parser, own_parsers = _parser()
    if argv is None:
        argv = sys.argv[1:]
    command = argv[0] if argv else None
    if command in ONE_LINE_ERRORS:  # a mistake is one line naming the command, and an exit status
        for each in (parser, *own_parsers[command]):
            each.error = _usage_error(each.prog, ONE_LINE_ERRORS[command])  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    return HANDLERS[args.command](args)


# Commands whose usage errors are one line, with their exit status: 4 as pytest's (report, attack, check), 2 as
# the other commands' mistakes (init, thresholds, data).
ONE_LINE_ERRORS = {"report": USAGE_ERROR, "attack": USAGE_ERROR, "check": USAGE_ERROR, "init": 2, "thresholds": 2,
                   "data": 2}


def _parser() -> tuple[argparse.ArgumentParser, dict[str, list[argparse.ArgumentParser]]]:
    """The command line, and the parsers of each command that has its own (its subcommands')."""
    parser = argparse.ArgumentParser(prog="pytest-trust", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    _add_recording_commands(sub)
    return parser, {"report": _add_report_commands(sub), "attack": attack_command.add_parsers(sub),
                    "data": _add_data_commands(sub), "init": _add_init(sub), "check": _add_check(sub),
                    "thresholds": _add_thresholds_commands(sub)}


def _add_recording_commands(sub: argparse._SubParsersAction) -> None:
    """merge, list, join, import and audit: the cassettes on disk."""
    for name, text in (("merge", "merge journals left by killed recording runs into the cassettes"),
                       ("list", "count the recorded items and interactions per cassette file")):
        cmd = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        cmd.add_argument("--model", required=True, metavar="NAME",
                         help="the model whose recordings to " + ("merge" if name == "merge" else "count")
                              + ": the folder <cassettes>/NAME/ (with a system prompt, NAME+prompt-<sha256[:12]>, "
                                "as the run's summary names it)")
        cmd.add_argument("--cassettes", default="cassettes", type=Path, metavar="DIR",
                         help="cassette root, as the run's --trust-cassettes (default: cassettes)")
    joiner = sub.add_parser(
        "join", help="join the cassette folders of several shards or machines into one",
        description="Join every cassette file under each SOURCE folder (a shard's cassettes/, laid out as "
                    "cassettes/<model>/<benchmark>/<unit>.json) into --cassettes, item by item (a later source "
                    "wins for an item recorded twice), each file written atomically. Exit status 0; 2 for a corrupt "
                    "file (named, with its repair) or a folder that is missing.")
    joiner.add_argument("sources", nargs="+", type=Path, metavar="SOURCE", help="a shard's cassette folder")
    joiner.add_argument("--cassettes", default="cassettes", type=Path, metavar="DIR",
                        help="the cassette root joined into (default: cassettes)")
    importer = sub.add_parser("import", help="write cassettes from another tool's recorded run")
    importer.add_argument("source", choices=["decodingtrust"], help="whose recordings to import")
    importer.add_argument("--model", required=True,
                          help="a model the source recorded, by snapshot id or the source's alias (gpt-4-0314, gpt4; "
                               "vicuna-7b-v1.3, vicuna: the six open models' stereotype runs)")
    importer.add_argument("--cassettes", default="cassettes", type=Path, help="cassette root (default: cassettes)")
    importer.add_argument("--data", type=Path, metavar="DIR", help=location.OPTION_HELP)
    importer.add_argument("--only", action="append", choices=decodingtrust.PERSPECTIVES, metavar="PERSPECTIVE",
                          help="import only this perspective (repeatable; default: every perspective)")
    auditor = sub.add_parser(
        "audit", help="list credential-shaped strings in recorded files and reports before they are committed or shared",
        description="Scan each FILE and every file under each DIR (cassettes, journals, a run's reports, anything) "
                    "for credential-shaped strings: "
                    "API keys (OpenAI sk-/sk-proj-, Anthropic sk-ant-, Google AIza, AWS AKIA), OpenAI org ids, "
                    "Bearer tokens, Authorization/api-key/cookie headers with a value, user:password@ in URLs, "
                    "URL query parameters named like a key, token, secret, password or signature. Each finding "
                    "is printed as path:line: kind, with at most a masked prefix of the secret. Exit status 1 "
                    "if anything is found, 0 if nothing is, 2 if a path does not exist.")
    auditor.add_argument("paths", type=Path, nargs="+", metavar="DIR|FILE",
                         help="folders and files to scan, e.g. cassettes report.json")


def _add_report_commands(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    """report compare, merge and board: the JSON reports of runs."""
    reports = sub.add_parser("report", help="work with the JSON reports runs wrote (--trust-report PATH)")
    report_sub = reports.add_subparsers(dest="report_command", required=True, metavar="compare|merge|board")
    comparer = report_sub.add_parser(
        "compare", help="put two or more runs side by side: every metric, both intervals, the significance",
        description="Every metric of the reports side by side with its 95% interval, and each run's difference "
                    "from the first with a two-sided p-value (two-proportion z test for rates; Wald z test from "
                    "the intervals otherwise). Exit status 0; 4 for a usage error.")
    comparer.add_argument("reports", type=Path, nargs="+", metavar="REPORT.json", help="JSON reports, first = reference")
    comparer.add_argument("--html", type=Path, metavar="PATH", help="also write the comparison as one HTML file")
    merger = report_sub.add_parser(
        "merge", help="merge the reports of --trust-shard runs into one report and evaluate the gates on it",
        description="Join the JSON reports of the shards of one run (--trust-shard I/N), recompute every metric "
                    "from the items' verdicts and facts (equal to an unsharded run's), evaluate the gates and write "
                    "the merged report. Exit status 0 when every gate passes, 1 when one fails or is not computed, "
                    "4 for a usage error.")
    merger.add_argument("reports", type=Path, nargs="+", metavar="REPORT.json", help="the shards' JSON reports")
    merger.add_argument("--out", type=Path, required=True, metavar="PATH", help="write the merged JSON report here")
    merger.add_argument("--thresholds", type=Path, metavar="PATH",
                        help="gates file (default: the one the shards ran with, as their reports name it)")
    merger.add_argument("--baseline", type=Path, metavar="REPORT.json",
                        help="compare the merged run with an earlier run's report, as --trust-baseline does")
    merger.add_argument("--partial", action="store_true",
                        help="for local work: merge even with a shard missing, and gates that cannot be computed "
                             "from what ran do not fail (as --trust-partial)")
    boarder = report_sub.add_parser(
        "board", help="many runs in one table (a row a run, a column a headline metric) and, per model and "
                      "deployment, each headline metric's trend and the gates that changed",
        description="Runs of several models or deployments as one table, each headline metric's value with its "
                    "95% interval in its gate's colour; runs of one model and deployment over time as a line per "
                    "headline metric, and the gates whose status changed between consecutive runs with the items "
                    "that flipped. Prints the Markdown unless --markdown is given. Exit status 0; 4 for a usage "
                    "error (a report it cannot read as one run).")
    boarder.add_argument("reports", type=Path, nargs="+", metavar="REPORT.json", help="JSON reports of runs")
    boarder.add_argument("--html", type=Path, metavar="PATH", help="write the board as one HTML file (sortable)")
    boarder.add_argument("--markdown", type=Path, metavar="PATH", help="write the board as Markdown")
    boarder.error = _usage_error(boarder.prog)  # type: ignore[method-assign]
    return [reports, comparer, merger]


def _add_data_commands(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    data = sub.add_parser("data", help="the benchmarks' pinned upstream files")
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="fetch")
    fetcher = data_sub.add_parser(
        "fetch", help="download the pinned files of the chosen benchmarks into the cache, verified",
        description="Put every pinned upstream file the chosen benchmarks read into the cache "
                    "(~/.cache/pytest-trust/data, $XDG_CACHE_HOME respected), each checked against its sha256, so "
                    "later runs read no network; say how many files and bytes. Files come from the mirror (--data, "
                    "$PYTEST_TRUST_DATA, the trust_data ini option) when it holds them, else from the cache, else "
                    "from the pinned commit on GitHub ($PYTEST_TRUST_DATA_URL: another server laid out the same way). "
                    "Exit status 0; 2 when a file cannot be had or a name is wrong.")
    fetcher.add_argument("--benchmark", action="append", metavar="NAME", help=BENCHMARK_HELP)
    fetcher.add_argument("--data", type=Path, metavar="DIR", help=location.OPTION_HELP)
    return [data, fetcher]


def _add_init(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    initer = sub.add_parser(
        "init", help="write what a project needs to run, record and gate the benchmarks, CI workflow included",
        description="Write into DIR: pytest-trust.yaml (the model, suites, run size and endpoint; check reads "
                    "it), conftest.py (the hooks a deployment implements, commented; with --system-prompt, the one "
                    "that sends it), thresholds.yaml (an error-rate gate per chosen benchmark, examples), "
                    "cassettes/README.md, and the GitHub Actions workflow .github/workflows/trust.yml (pytest-trust "
                    "check --base on pull requests; record by hand, sharded, joined). An existing file is never "
                    "overwritten. The benchmarks "
                    "run from the installed package: pytest --pyargs pytest_trust.suites. Exit status 0; 2 for "
                    "a usage error.")
    initer.add_argument("--benchmark", action="append", metavar="NAME", help=BENCHMARK_HELP)
    initer.add_argument("--model", help=f"the model recorded and replayed (default: {scaffold.DEFAULT_MODEL})")
    initer.add_argument("--base-url", metavar="URL",
                        help="OpenAI-compatible endpoint to record from (default: the client's, $OPENAI_BASE_URL)")
    initer.add_argument("--profile", choices=sorted(PROFILES), help="a named run size (--trust-profile)")
    initer.add_argument("--dir", type=Path, default=Path("."), help="the project's folder (default: .)")
    initer.add_argument("--system-prompt", type=Path, metavar="FILE",
                        help="the deployment's system prompt file (relative to --dir): conftest.py sends it with "
                             "every request, in plain pytest runs and in check")
    initer.add_argument("--target", metavar="MODULE:FUNCTION",
                        help="your application as the target (--trust-target): recordings are its answers")
    initer.add_argument("--install", metavar="SPEC",
                        help="the pip requirement the workflow installs pytest-trust with (default: where this one "
                             "came from: its VCS URL at its commit, its archive URL or its index version)")
    return [initer]


def _add_check(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    checker = sub.add_parser(
        "check", help="does this change make the deployment less trustworthy? the base replayed, paired, gated",
        description="Replay the deployment of REF (a git worktree of that commit: its conftest.py, prompt files and "
                    "recordings; offline) as the baseline; run the working tree's deployment, recording only what "
                    "it lacks when the key's variable (pytest-trust.yaml: api_key_env, default OPENAI_API_KEY) is "
                    "set, else replaying; pair the two item by item (exact McNemar per benchmark, Holm across "
                    "them, alpha from thresholds.yaml's settings, default 0.05); evaluate the gates; write the "
                    "report and its Markdown, the change named and the regressed items listed. The model, suites "
                    "and run size come from pytest-trust.yaml (written by init); pytest options may follow --. "
                    "Exit status 0: no significant regression and every gate passed; 1: a regression, a failed "
                    "gate, an errored item or items not recorded offline; 2: interrupted; 4: a usage error.")
    checker.add_argument("--base", required=True, metavar="REF", help="the commit to compare with (origin/main, a "
                                                                       "tag, a sha)")
    checker.add_argument("--offline", action="store_true", help="never record, even with the key set: replay only")
    checker.add_argument("--dir", type=Path, default=Path("."), help="the project's folder (default: .)")
    checker.add_argument("--report", type=Path, default=Path("trust.json"), metavar="PATH",
                         help="the JSON report (default: trust.json; the base's beside it, trust-base.json)")
    checker.add_argument("--markdown", type=Path, default=Path("trust.md"), metavar="PATH",
                         help="the Markdown report, the change's verdict first (default: trust.md)")
    checker.add_argument("pytest_args", nargs=argparse.REMAINDER, metavar="-- PYTEST-ARGS",
                         help="passed to the run of this change")
    return [checker]


def _add_thresholds_commands(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    thresholds = sub.add_parser("thresholds", help="edit the thresholds file")
    thresholds_sub = thresholds.add_subparsers(dest="thresholds_command", required=True, metavar="bless")
    blesser = thresholds_sub.add_parser(
        "bless", help="write gates at the level of a recorded run into the thresholds file",
        description="Gate each headline metric of every benchmark the report's run scored (a key with at most two "
                    "dots, a rate or mean, not partial, with a known better side) at the run's level: min at the "
                    "lower end of its interval at --confidence (or its value minus --margin) where higher is "
                    "better, max at the upper end where lower is better. Gates go under models: MODEL (default: the "
                    "report's model); existing gates are updated, every other entry and comment kept; the diff "
                    "is printed. Exit status 0; 2 for a usage error.")
    blesser.add_argument("report", type=Path, metavar="REPORT.json", help="a run's JSON report (--trust-report PATH)")
    blesser.add_argument("--thresholds", type=Path, default=Path("thresholds.yaml"), metavar="PATH",
                         help="the thresholds file to write or update (default: thresholds.yaml)")
    blesser.add_argument("--model", help="gate this model (default: the report's model)")
    level = blesser.add_mutually_exclusive_group()
    level.add_argument("--confidence", type=float, metavar="C",
                       help="the bound is the end of the metric's interval at this level (default 0.95)")
    level.add_argument("--margin", type=float, metavar="M", help="the bound is the value minus (or plus) M")
    return [thresholds, blesser]


def _merge_journals(args: argparse.Namespace) -> int:
    """`pytest-trust merge`: the journals of killed recording runs, merged into the model's cassettes."""
    root = model_dir(args.cassettes, args.model)
    report = merge_journals(root)
    print(f"merged {report.items} item(s) into {root}")
    for problem in report.problems:
        print(f"pytest-trust merge: {problem}", file=sys.stderr)
    return 1 if report.problems else 0


def _list_cassettes(args: argparse.Namespace) -> int:
    """`pytest-trust list`: the items and interactions of each of the model's cassette files."""
    root = model_dir(args.cassettes, args.model)
    if not root.is_dir():
        known = (sorted(p.name for p in args.cassettes.iterdir() if p.is_dir() and not p.name.startswith("."))
                 if args.cassettes.is_dir() else [])
        print(f"pytest-trust list: no recordings of model {args.model!r}: {root} does not exist"
              + (f" (recorded models under {args.cassettes}: {', '.join(known)})" if known
                 else f" ({args.cassettes} holds no recorded model)"), file=sys.stderr)
        return 2
    for path in sorted(root.glob("*/*.json")):
        by_item = read_cassette(path)
        print(f"{path.relative_to(root)}\t{len(by_item)} items\t{sum(map(len, by_item.values()))} interactions")
    return 0


def _usage_error(prog: str, status: int = USAGE_ERROR) -> Callable[[str], NoReturn]:
    def error(message: str) -> NoReturn:
        print(f"{prog}: {message} (see {prog} --help)", file=sys.stderr)
        sys.exit(status)

    return error


def _report(args: argparse.Namespace) -> int:
    if args.report_command == "board":
        from ..report import board

        return board.main(args.reports, args.html, args.markdown)
    if args.report_command == "merge":
        try:
            return _merge(args)
        except UsageProblem as err:
            print(f"pytest-trust {err}", file=sys.stderr)
            return USAGE_ERROR
    from ..report import compare

    try:
        runs = compare.load(args.reports)
    except UsageProblem as err:
        print(f"pytest-trust {err}", file=sys.stderr)
        return USAGE_ERROR
    print(compare.text(runs), end="")
    if args.html is not None:
        try:
            args.html.parent.mkdir(parents=True, exist_ok=True)
            args.html.write_text(compare.render_html(runs), encoding="utf-8")
        except OSError as err:
            print(f"pytest-trust report compare: --html {args.html}: cannot be written ({err.strerror})",
                  file=sys.stderr)
            return USAGE_ERROR
        print(f"written: {args.html}")
    return 0


def _merge(args: argparse.Namespace) -> int:
    """`pytest-trust report merge`: the shards' reports as one run's, with its gates (and baseline) evaluated."""
    from ..report.file import dump
    from ..results import baseline as baselines
    from ..results import shards

    reports = shards.load_reports(args.reports)
    warnings = shards.check(args.reports, reports, allow_missing=args.partial)
    merged = shards.merge(reports)
    run = merged["run"]
    path = _merge_thresholds(args.thresholds, run.get("thresholds"))
    report = _merged_report(merged, path, args.partial, args.baseline)
    try:
        dump(args.out, report.to_dict())
    except OSError as err:
        raise UsageProblem(f"report merge: --out {args.out}: cannot be written ({err.strerror})") from None
    for warning in warnings:
        print(f"pytest-trust report merge: {warning}", file=sys.stderr)
    counts = report.counts
    print(f"merged {len(reports)} reports ({', '.join(s or '-' for s in run['shards'])}): "
          + ", ".join(f"{counts[k]} {k}" for k in ("passed", "failed", "error", "skipped") if counts.get(k)))
    _print_merged_gates(report.gates)
    if report.baseline is not None:
        for line in baselines.summary_lines(report.baseline, report.entries):
            print(line)
    blocked = report.gates_failed
    print(f"written: {args.out}; gates {'FAILED' if blocked else 'passed'}"
          + ("" if report.gates else f" (no gates: {'no thresholds file' if path is None else 'none in ' + str(path)})"))
    return 1 if blocked else 0


def _merge_thresholds(given: Path | None, named: str | None) -> Path | None:
    """The gates file of a merge: --thresholds, which must exist, else the one the shards ran with if it is
    here."""
    path = given or (Path(named) if named and Path(named).is_file() else None)
    if given is not None and not given.is_file():
        raise UsageProblem(f"report merge: --thresholds {given}: no such file")
    return path


def _merged_report(merged: dict[str, Any], path: Path | None, partial: bool, baseline: Path | None) -> RunReport:
    """The merged run's report: metrics recomputed from the items, the gates of ``path`` evaluated,
    the run compared with ``baseline``'s report when one is given."""
    from ..benchmarks import BENCHMARKS, gate_keys
    from ..report.run_report import RunReport
    from ..results import baseline as baselines
    from ..results.conclusion import conclude
    from ..results.gates import load_thresholds
    from ..results.records import ItemRecord

    run = merged["run"]
    thresholds = load_thresholds(path, run.get("model"), gate_keys())
    before = baselines.load(baseline) if baseline is not None else None
    records = [ItemRecord.from_entry(entry) for entry in merged["items"]]
    conclusion = conclude(records, merged["items"], BENCHMARKS, thresholds.gates, partial, before, baseline,
                          run.get("settings") or {})
    run["thresholds"] = str(path) if path else None
    return RunReport(run, records, conclusion.metrics, conclusion.gates, merged["counts"], merged["irregular_answers"],
                     merged["lost"], conclusion.baseline, merged["schema_version"], saved_entries=merged["items"])


def _print_merged_gates(results: list[GateResult]) -> None:
    """A line per gate of a benchmark that was scored; those of the others in one line."""
    from ..report.terminal import format_value

    unselected = sorted({g.gate.key.split(".", 1)[0] for g in results if g.status == "NOT SELECTED"})
    for g in results:
        if g.status != "NOT SELECTED":
            value = format_value(g.metric) if g.metric else "-"
            print(f"{g.gate.key:42} {g.gate.bound:>12} {value:>8}  {g.status}" + (f"  ({g.reason})" if g.reason else ""))
    if unselected:
        print(f"not selected (no item scored): {sum(g.status == 'NOT SELECTED' for g in results)} gates of "
              + ", ".join(unselected))


def _init(args: argparse.Namespace) -> int:
    """`pytest-trust init`: the project's files, those missing written, then the next three commands."""
    try:
        if args.dir.exists() and not args.dir.is_dir():
            raise UsageProblem(f"init: --dir {args.dir}: not a folder")
        before = scaffold.previous(args.dir)
        plan = scaffold.resolve(args.benchmark, args.model, args.base_url, args.profile, args.dir, args.install,
                                args.system_prompt, before, args.target)
        outcomes = scaffold.write(plan, before)
    except UsageProblem as err:
        print(f"pytest-trust {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"pytest-trust init: {err.filename}: cannot be written ({err.strerror})", file=sys.stderr)
        return 2
    chosen = "every registered suite" if plan.everything else ", ".join(plan.suites)
    print(f"pytest-trust init: {chosen}; model {plan.model}")
    for outcome in outcomes:
        print(f"{outcome.status}: {outcome.path}" + (f" ({outcome.detail})" if outcome.detail else ""))
    for note in scaffold.notes(plan):
        print(f"note: {note}")
    where = "" if plan.directory == Path(".") else f"cd {shlex.quote(str(plan.directory))}\n"
    print(f"\nnext{', in ' + str(plan.directory) if where else ''}:")
    for n, (what, command) in enumerate(scaffold.next_commands(plan), 1):
        print(f"  {n}. {what}:\n     {command}")
    return 0


def _join(args: argparse.Namespace) -> int:
    from ..recording.join import join

    sources, cassettes = args.sources, args.cassettes
    missing = [str(source) for source in sources if not source.is_dir()]
    if missing:
        print(f"pytest-trust join: not a folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        files, items = join(sources, cassettes)
    except CassetteError as err:
        print(f"pytest-trust join: {err}", file=sys.stderr)
        return 2
    print(f"joined {items} item(s) of {files} cassette file(s) into {cassettes}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from ..change.command import Request, run

    extra = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    try:
        return run(Request(args.base, args.dir, args.report, args.markdown, args.offline, tuple(extra)))
    except UsageProblem as err:
        print(f"pytest-trust {err}", file=sys.stderr)
        return USAGE_ERROR


def _bless(args: argparse.Namespace) -> int:
    """`pytest-trust thresholds bless`: gates at a recorded run's level, and the diff of the file written."""
    from ..benchmarks import gate_keys
    from . import bless

    try:
        done = bless.bless(args.report, args.thresholds, args.model, args.confidence, args.margin, gate_keys())
    except UsageProblem as err:
        print(f"pytest-trust {err}", file=sys.stderr)
        return 2
    for line in done.changes:
        print(line)
    for key, why in done.left.items():
        print(f"{key}: not gated: {why}")
    gates = f"{len(done.changes)} gates under {done.section}"
    print(f"written: {args.thresholds} ({gates})" if done.written else f"unchanged: {args.thresholds} ({gates})")
    return 0


def _fetch(args: argparse.Namespace) -> int:
    """`pytest-trust data fetch`: the chosen benchmarks' pinned files into the cache, and how many and how much."""
    from ..benchmarks import suites_named
    from .fetch import fetch

    try:
        suites = suites_named(args.benchmark, "--benchmark")
        report = fetch(suites, location.locate_for_command("--data", args.data),
                       progress=lambda line: print(line, file=sys.stderr, flush=True))
    except TrustError as err:
        print(f"pytest-trust data fetch: {err}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    return 0


def _import(args: argparse.Namespace) -> int:
    try:
        data = location.command_store("--data", args.data)
        report = decodingtrust.import_model(data, args.model, args.cassettes, args.only or decodingtrust.PERSPECTIVES,
                                            progress=lambda line: print(line, file=sys.stderr))
    except TrustError as err:
        print(f"pytest-trust import: {err}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    total = sum(s.imported for s in report.cassettes.values())
    print(f"{total} items imported into {model_dir(args.cassettes, report.model)} ({len(report.files)} files); "
          f"replay with: {_replay_command(report.model, args.only or decodingtrust.PERSPECTIVES, args.cassettes)}")
    return 0


def _replay_command(model: str, perspectives: Sequence[str], cassettes: Path) -> str:
    """The command that replays an import from any folder: the packaged suites, only the imported perspectives."""
    args = ["pytest", "--pyargs", "pytest_trust.suites", "-m", " or ".join(perspectives), f"--model={model}"]
    if str(cassettes) != "cassettes":
        args.append(f"--trust-cassettes={cassettes}")
    return shlex.join(args)


def _audit(args: argparse.Namespace) -> int:
    paths = args.paths
    missing = [path for path in paths if not path.exists()]
    if missing:
        print(f"pytest-trust audit: {missing[0]}: no such file or directory; pass the cassette folder or a "
              "report, e.g. cassettes", file=sys.stderr)
        return 2
    report = audit(*paths)
    where = ", ".join(map(str, paths))
    for finding in report.findings:
        print(finding)
    if report.findings:
        print(f"{len(report.findings)} credential-shaped string(s) in {len({f.path for f in report.findings})} of "
              f"{report.files} files: remove them (or re-record) before committing or sharing {where}",
              file=sys.stderr)
        return 1
    print(f"no credential-shaped strings in {report.files} files under {where}")
    return 0


# What each command runs, by name (``attack`` is the attacks package's own).
HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "merge": _merge_journals, "list": _list_cassettes, "join": _join, "import": _import, "audit": _audit,
    "report": _report, "attack": attack_command.main, "data": _fetch, "init": _init, "check": _check,
    "thresholds": _bless}


if __name__ == "__main__":
    sys.exit(main())
