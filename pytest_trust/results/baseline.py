"""A run against an earlier run of the same items (``--trust-baseline REPORT.json``; docs/reports.md,
"Baselines and shards").

Items are paired by node id across the two JSON reports. Per item: newly failing (passed, now fails),
newly passing (failed, now passes), newly erroring (passed or failed, now errors). An item that flipped
between pass and fail whose verdict rests on several sampled answers that disagree (toxicity: some of its
samples toxic, some not; stereotype: some agree, some not; privacy understanding: some answers leak, some
not) is *noisy*: resampling alone can flip it, so it is listed apart and counted in no test.

Per benchmark, the paired test of the change is the exact McNemar test on the item verdicts of the items
scored in both runs (noisy ones left out). Where a benchmark's headline score is an unweighted mean of
per-item pass rates (RuLES' ``rules.score`` and ``rules.benign_score``), the change of that score is also
given a paired bootstrap interval and p-value, from 100 items a bucket up (below, ``why`` says so); other
scores (toxicity's EMT, fairness' DPD, means of accuracies that drop refusals) are not means of per-item
values, and their benchmark's paired test is McNemar's alone. The gate ``<benchmark>.regression: {alpha: A}`` fails when McNemar's p is below A and
more items newly fail than newly pass. Where a benchmark's items name the scorer that judged them (toxicity:
``scorer`` and ``scorer_version`` in their facts), a baseline judged by another scorer or another version of it
is not compared: the benchmark's test says why in one line and its regression gate is INCONCLUSIVE.

No correction for multiple testing applies (``CORRECTION``): each benchmark's McNemar test is the one test
behind its own regression gate, at the alpha that gate names; a run with k regression gates can fail one of
them by chance with probability up to k x alpha, so a suite gating many benchmarks sets a smaller alpha
(Bonferroni: alpha / k). ``report compare``, which tests every metric at once, adjusts by Holm's method.
"""

from __future__ import annotations

import re
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..benchmarks import BENCHMARKS
from ..benchmarks.spec import Strata
from ..report.file import read
from .metrics import MIN_N_RESAMPLED, too_small
from .stats import mcnemar_exact, paired_bootstrap_mean_of_rates

PASS, FAIL, ERROR = "pass", "fail", "error"
MCNEMAR = "exact McNemar on item verdicts"
BOOTSTRAP = ("paired Bayesian bootstrap over items, stratified by bucket (10,000 draws of each bucket's shares of "
             "newly passing, newly failing and unchanged items from their Dirichlet posterior)")
CORRECTION = "none: one test per benchmark, each its own regression gate at its own alpha"
NO_SCORE_TEST = "none: its scores are not means of per-item pass rates; the paired test is McNemar's"
IDS_SHOWN = 3  # per benchmark and list, in the terminal summary
BRACKETS = re.compile(r"\[(.*)\]$")


def load(path: Path) -> dict[str, Any]:
    """The baseline report, or one UsageProblem naming the file and what to do."""
    return read(path, "--trust-baseline", "pass the JSON report of an earlier run (--trust-report "
                            "PATH), or add --trust-baseline-update to write this run's there")


def state(entry: Mapping[str, Any]) -> str | None:
    """pass, fail or error; None for an item that was not judged (skipped) or a test that is not an item."""
    outcome = entry.get("outcome")
    if outcome == "error" or "error" in entry:
        return ERROR
    if "verdict" not in entry:
        return None
    return {"passed": PASS, "failed": FAIL}.get(outcome)


def item_id(entry: Mapping[str, Any]) -> str:
    """The benchmark item id: the report's, else the id inside the node id's brackets."""
    if entry.get("id"):
        return str(entry["id"])
    match = BRACKETS.search(entry["nodeid"])
    return match.group(1) if match else entry["nodeid"]


def split_samples(entry: Mapping[str, Any]) -> bool:
    """True when the item's verdict rests on several sampled answers that disagree on its criterion."""
    benchmark = BENCHMARKS.get(entry.get("benchmark") or "")
    return bool(benchmark and benchmark.split_samples and benchmark.split_samples(entry.get("facts") or {}))


def compare(items: Iterable[Mapping[str, Any]], baseline: Mapping[str, Any], path: Path | str) -> dict[str, Any]:
    """The ``baseline`` section of this run's report (docs/report-schema.md)."""
    before = {entry["nodeid"]: entry for entry in baseline["items"]}
    judges = _baseline_judges(baseline["items"])
    changes = _Changes()
    seen = set()
    for entry in items:
        now = state(entry)
        seen.add(entry["nodeid"])
        if now is None:
            continue
        if now != ERROR and scorer_of(entry):
            judges[entry.get("benchmark") or "unknown"][0].add(scorer_of(entry))
        changes.add(entry, now, before.get(entry["nodeid"]))
    only_there = sum(1 for nodeid, entry in before.items() if nodeid not in seen and state(entry) is not None)
    run = baseline.get("run") or {}
    return {"path": str(path), "model": run.get("model"), "finished": run.get("finished"),
            **{name: sorted(ids) for name, ids in changes.lists.items()},
            "only_in_baseline": only_there, "only_in_run": changes.only_here,
            "metrics": baseline.get("metrics") or {}, "tests": changes.tests(judges)}


Judges = dict[str, tuple[set[str], set[str]]]  # benchmark -> the scorers that judged its items (this run, baseline)
FLIPS = {(PASS, FAIL): "newly_failing", (FAIL, PASS): "newly_passing"}


def _baseline_judges(entries: Iterable[Mapping[str, Any]]) -> Judges:
    """The scorers that judged the baseline's items, per benchmark (this run's are added as its items come)."""
    judges: Judges = defaultdict(lambda: (set(), set()))
    for entry in entries:
        if state(entry) in (PASS, FAIL) and scorer_of(entry):
            judges[entry.get("benchmark") or "unknown"][1].add(scorer_of(entry))
    return judges


@dataclass
class _Changes:
    """This run's items against the baseline's: the ids of each kind of change, and per benchmark the items judged
    in both (what its paired test counts) and the noisy ones (left out of it)."""

    lists: dict[str, list[str]] = field(default_factory=lambda: {
        "newly_failing": [], "newly_passing": [], "newly_erroring": [], "noisy": []})
    pairs: dict[str, list[tuple[Mapping[str, Any], str, str]]] = field(
        default_factory=lambda: defaultdict(list))  # benchmark -> (entry, was, is)
    noisy: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    only_here: int = 0  # judged in this run, not in the baseline

    def add(self, entry: Mapping[str, Any], now: str, old_entry: Mapping[str, Any] | None) -> None:
        """One item of this run, judged ``now`` (pass, fail or error)."""
        was = state(old_entry) if old_entry is not None else None
        if old_entry is None or was is None:
            self.only_here += 1
            return
        benchmark = entry.get("benchmark") or old_entry.get("benchmark") or "unknown"
        if ERROR in (now, was):  # an error is no verdict: a newly erroring item is listed, never paired
            if now == ERROR and was != ERROR:
                self.lists["newly_erroring"].append(item_id(old_entry))
            return
        if was != now and (split_samples(entry) or split_samples(old_entry)):
            self.lists["noisy"].append(item_id(entry))
            self.noisy[benchmark] += 1
            return
        if (was, now) in FLIPS:
            self.lists[FLIPS[was, now]].append(item_id(entry))
        self.pairs[benchmark].append((entry, was, now))

    def tests(self, judges: Judges) -> dict[str, dict[str, Any]]:
        """Each benchmark's paired test; one whose two runs were judged by different scorers says so."""
        tests = {name: benchmark_test(name, self.pairs[name], self.noisy[name])
                 for name in sorted(set(self.pairs) | set(self.noisy))}
        for name, test in tests.items():
            reason = scorer_change(*judges[name]) if name in judges else None
            if reason:
                test["incomparable"] = reason
        return tests


def scorer_of(entry: Mapping[str, Any]) -> str | None:
    """The scorer that judged an item and its version (``name version``), if its facts name one."""
    facts = entry.get("facts") or {}
    if not facts.get("scorer"):
        return None
    return f"{facts['scorer']} {facts.get('scorer_version') or '(version not recorded)'}"


def scorer_change(run: set[str], before: set[str]) -> str | None:
    """Why the two runs' verdicts of a benchmark are not comparable (judged by different scorers), or None."""
    if not run or not before or run == before:
        return None
    return (f"the baseline was scored by {', '.join(sorted(before))}, this run by {', '.join(sorted(run))}: "
            "not compared")


def benchmark_test(name: str, pairs: list[tuple[Mapping[str, Any], str, str]], noisy: int) -> dict[str, Any]:
    failing = sum(1 for _, was, now in pairs if was == PASS and now == FAIL)
    passing = sum(1 for _, was, now in pairs if was == FAIL and now == PASS)
    paired_scores = BENCHMARKS[name].paired_scores if name in BENCHMARKS else {}
    scores = {}
    for key, buckets in paired_scores.items():
        score = _paired_score(_strata(buckets, pairs))
        if score is not None:
            scores[key] = score
    return {"paired": len(pairs), "newly_failing": failing, "newly_passing": passing, "noisy": noisy,
            "test": MCNEMAR, "p": mcnemar_exact(failing, passing), "correction": CORRECTION,
            "scores": scores, "score_test": BOOTSTRAP if scores else NO_SCORE_TEST if not paired_scores
            else "none: no score of which every bucket ran in both runs; the paired test is McNemar's"}


def _strata(buckets: Strata, pairs: list[tuple[Mapping[str, Any], str, str]]) -> dict[Any, list[int]]:
    """Per stratum of a score (spec.Strata): its paired items newly passing, newly failing, and all of them."""
    named = callable(buckets)
    strata = {} if named else {bucket: [0, 0, 0] for bucket in buckets}  # stratum -> [gained, lost, n]
    for entry, was, now in pairs:
        facts = entry.get("facts") or {}
        if named:
            stratum = buckets(facts)
            counts = None if stratum is None else strata.setdefault(stratum, [0, 0, 0])
        else:
            counts = strata.get((facts.get("suite"), facts.get("bucket")))
        if counts is not None:
            counts[0] += was == FAIL and now == PASS
            counts[1] += was == PASS and now == FAIL
            counts[2] += 1
    return strata


def _paired_score(strata: Mapping[Any, list[int]]) -> dict[str, Any] | None:
    """The change of a mean of per-bucket pass rates, with its paired bootstrap interval and p-value from enough
    items a bucket; None when a bucket has no paired item (a score lacking a bucket is not the score: no test)."""
    if not strata or not all(n for _, _, n in strata.values()):
        return None
    groups = [tuple(counts) for counts in strata.values()]
    change = sum((gained - lost) / n for gained, lost, n in groups) / len(groups)
    score = {"change": change, "low": None, "high": None, "p": None, "n": sum(n for _, _, n in groups),
             "test": BOOTSTRAP}
    # its interval covers the change about 95% of the time from MIN_N_RESAMPLED items a bucket (coverage.py)
    why = too_small(min(n for _, _, n in groups), MIN_N_RESAMPLED)
    if why:
        score["why"] = f"{why} items in a bucket"
    else:
        score["low"], score["high"], score["p"] = paired_bootstrap_mean_of_rates(groups)
    return score


def regressed(test: Mapping[str, Any], alpha: float) -> bool:
    """A significant change for the worse: McNemar's p below alpha, more items newly failing than passing."""
    return test["p"] < alpha and test["newly_failing"] > test["newly_passing"]


def summary_lines(section: Mapping[str, Any], items: Iterable[Mapping[str, Any]] | None = None,
                  width: int = 100) -> list[str]:
    """The terminal summary's account of the change: one line overall, then per benchmark its test and a
    few ids of what newly fails, passes or errors."""
    counts = {name: len(section[name]) for name in ("newly_failing", "newly_passing", "newly_erroring", "noisy")}
    head = (f"against baseline {section['path']} ({section.get('model')}, {section.get('finished')}): "
            f"{counts['newly_failing']} newly failing, {counts['newly_passing']} newly passing, "
            f"{counts['newly_erroring']} newly erroring" + (f", {counts['noisy']} noisy" if counts["noisy"] else ""))
    lines = [head]
    by_benchmark = {item_id(entry): entry["benchmark"] for entry in items or () if entry.get("benchmark")}
    unchanged = _unchanged(section, by_benchmark)
    for name, test in section["tests"].items():
        if name not in unchanged:
            lines += _benchmark_lines(name, test, section, by_benchmark, width)
    if unchanged:
        text = "no item changed in " + ", ".join(f"{name} ({section['tests'][name]['paired']} paired)"
                                                 for name in unchanged)
        lines += textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="    ")
    if not section["tests"] and section["newly_erroring"]:
        lines.append(_ids("    newly erroring: ", section["newly_erroring"], width))
    return lines


def _unchanged(section: Mapping[str, Any], by_benchmark: Mapping[str, str]) -> list[str]:
    """The benchmarks compared whose items kept their verdicts: none newly failing, passing, erroring or noisy."""
    return [name for name, test in section["tests"].items() if not test.get("incomparable")
            and not test["newly_failing"]
            and not test["newly_passing"] and not test["noisy"]
            and not any(by_benchmark.get(i) == name for i in section["newly_erroring"])]


def _benchmark_lines(name: str, test: Mapping[str, Any], section: Mapping[str, Any], by_benchmark: Mapping[str, str],
                     width: int) -> list[str]:
    """A benchmark's change: its McNemar test (or why it was not compared), its scores' paired changes, a few
    ids of each list."""
    if test.get("incomparable"):
        return [f"  {name}: {test['incomparable']}"]
    line = (f"  {name}: {test['newly_failing']} newly failing, {test['newly_passing']} newly passing of "
            f"{test['paired']} paired items, McNemar p = {test['p']:.3g} (uncorrected)")
    lines = [_cut(line, width)]
    lines += [_score_line(key, score) for key, score in test["scores"].items()]
    for label, listed in (("newly failing", "newly_failing"), ("newly erroring", "newly_erroring"),
                          ("newly passing", "newly_passing")):
        ids = [i for i in section[listed] if by_benchmark.get(i, name) == name]
        if ids:
            lines.append(_ids(f"    {label}: ", ids, width))
    return lines


def _score_line(key: str, score: Mapping[str, Any]) -> str:
    """A score's change on the paired items, with its paired bootstrap interval, or why it has none."""
    if score.get("low") is None:
        return f"    {key} {score['change']:+.2%} on the paired items, no paired bootstrap ({score.get('why')})"
    return (f"    {key} {score['change']:+.2%} [{score['low']:+.1%}, {score['high']:+.1%}] on the paired "
            f"items, paired bootstrap p = {score['p']:.3g}")


def _ids(prefix: str, ids: list[str], width: int) -> str:
    line = prefix + ids[0]
    shown = 1
    for item in ids[1:IDS_SHOWN]:
        if len(line) + 2 + len(item) > width - 12:
            break
        line += ", " + item
        shown += 1
    return line + (f" (+{len(ids) - shown} more)" if len(ids) > shown else "")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."
