"""Shards: ``--trust-shard I/N`` runs a stable slice of the items, ``pytest-trust report merge`` joins the
shards' JSON reports into the report of one run (docs/reports.md, "Baselines and shards").

An item's shard is a hash of its benchmark and item id (sha256, so it is the same on every machine and
Python; a test that is not a benchmark item is hashed by its node id). A merge recomputes every metric
from the items' facts and verdicts with each benchmark's own aggregate, in the order a single run
aggregates them, so the merged metrics are exactly an unsharded run's; then it evaluates the gates.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageProblem
from ..items import Item
from ..report.file import SCHEMA, read
from ..report.run_section import scorers as scorers_of


def shard_of(key: str, total: int) -> int:
    """The 1-based shard of an item key among ``total``."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % total + 1


def item_key(item: Item) -> str:
    """What a benchmark item's shard is the hash of."""
    return f"{item.benchmark}/{item.id}"


def select(items: list[Any], shard: tuple[int, int], key: Callable[[Any], str]) -> tuple[list[Any], list[Any]]:
    """(kept, dropped) of ``items`` (pytest's or benchmark items) for shard (I, N), in their order."""
    index, total = shard
    kept, dropped = [], []
    for item in items:
        (kept if shard_of(key(item), total) == index else dropped).append(item)
    return kept, dropped


def load_reports(paths: Sequence[Path]) -> list[dict[str, Any]]:
    return [read(path, "report merge:", "pass the JSON reports the shards wrote (--trust-report PATH)")
            for path in paths]


def check(paths: Sequence[Path], reports: Sequence[Mapping[str, Any]], allow_missing: bool = False) -> list[str]:
    """Refuses reports that are not shards of one run, and a split with a shard missing (its metrics would be a
    subset's) unless allowed (one message naming the files); returns warnings."""
    first = reports[0]["run"]
    for path, report in zip(paths[1:], reports[1:]):
        run = report["run"]
        for field in ("model", "system_prompt", "settings", "limit", "seed"):
            if run.get(field) != first.get(field):
                raise UsageProblem(f"report merge: {path}: its {field} ({run.get(field)!r}) differs from {paths[0]}'s "
                                   f"({first.get(field)!r}); merge only the shards of one run")
    owner: dict[str, Path] = {}
    for path, report in zip(paths, reports):
        for entry in report["items"]:
            if entry["nodeid"] in owner:
                raise UsageProblem(f"report merge: {entry['nodeid']} is in both {owner[entry['nodeid']]} and {path}; "
                                   "pass each shard's report once, and shards of one --trust-shard I/N split")
            owner[entry["nodeid"]] = path
    warnings = []
    shards = [report["run"].get("shard") for report in reports]
    totals = {s.split("/")[1] for s in shards if s}
    if None in shards or len(totals) != 1:
        warnings.append("the reports are not all shards of one --trust-shard I/N split: merged as given")
    else:
        total = int(totals.pop())
        missing = sorted(set(range(1, total + 1)) - {int(s.split("/")[0]) for s in shards})
        if missing:
            text = (f"shard{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {total} "
                    f"{'are' if len(missing) > 1 else 'is'} missing: the merge covers {total - len(missing)} of {total}")
            if not allow_missing:
                raise UsageProblem(f"report merge: {text}; pass every shard's report (--partial merges them anyway, "
                                   "for local work)")
            warnings.append(text)
    return warnings


def merge(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One report of the shards' items; its metrics and gates are the caller's to conclude (conclusion.py)."""
    entries = sorted((entry for report in reports for entry in report["items"]), key=lambda e: e["nodeid"])
    counts: dict[str, int] = defaultdict(int)
    irregular: dict[str, dict[str, int]] = {}
    for report in reports:
        for outcome, n in (report.get("counts") or {}).items():
            counts[outcome] += n
        for benchmark, reasons in (report.get("irregular_answers") or {}).items():
            per = irregular.setdefault(benchmark, {})
            for reason, n in reasons.items():
                per[reason] = per.get(reason, 0) + n
    run = dict(reports[0]["run"])
    run.update(shard=None, shards=[report["run"].get("shard") for report in reports],
               started=min(report["run"].get("started") or "" for report in reports),
               finished=max(report["run"].get("finished") or "" for report in reports),
               scorers=scorers_of(entries))  # of every shard's items, not the first shard's
    return {"schema": SCHEMA, "schema_version": reports[0].get("schema_version", 1), "run": run,
            "counts": dict(counts), "irregular_answers": irregular,
            "lost": sorted(nodeid for report in reports for nodeid in report.get("lost") or ()),
            "metrics": {}, "gates": [], "items": entries}
