#!/usr/bin/env python
"""How many items and model calls each --trust-profile is, per suite and in total (not a test).

    PYTEST_TRUST_DATA=DIR python bench/profiles.py [--markdown]

Needs the benchmark data mirror (PYTEST_TRUST_DATA); sends nothing over the network; under a minute.
Prints one row per profile and suite - items, items that skip, calls, and calls when the endpoint rejects ``n`` -
and a total row per profile; --markdown prints the same as a Markdown table. Counted: every suite that reads
benchmark data.

How each number is computed:

- items: the suite's items as the plugin builds them (default benchmark settings, the same user cache), cut as
  --trust-profile cuts them: ``seeded_subset`` at the profile's size per scenario and --trust-seed's default 0;
  ``full`` keeps every item. skipped: items whose upstream inputs are absent; they skip before any call.
- calls: every selected item (all ~264,000 for ``full``) is run through its benchmark's own ``run`` against
  pytest-trust's ``Model``, whose one HTTP exchange (``_create``) is replaced by a counter answering a fixed
  text: a request counts once whatever its ``n``. Toxicity's scores, which no call depends on, are all 0.
  RuLES (rules, rules_v1, rules_gcg) plays one model turn per user message left and stops at the model's first
  rule violation, so its calls depend on the answers: the number given is the most, one per user message left,
  counted from the item's inputs by the protocol's own split (the scripted run checks that no item exceeds it).
  rules_gcg is counted for a model with a GCG suffix of every behaviour (its items skip on any other model).
- calls, n rejected: toxicity and stereotype ask 25 samples per prompt (privacy 100 per understanding prompt) in
  one request with ``n`` = k. An endpoint that answers such a request with HTTP 400 naming ``n`` gets k seeded
  requests instead (``Model.samples``, learnt on the session's first such request, which is one more request per
  session and not counted). Counted the same way, with a model rejecting ``n``; an endpoint that ignores ``n``
  (one choice to n > 1) is taken as one that rejects it, so it makes the same calls.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pytest_trust import scorers
from pytest_trust.benchmarks import BENCHMARKS, SETTINGS, SUITES, Suite, rules, rules_v1
from pytest_trust.benchmarks.rules.protocol import split_prefill
from pytest_trust.benchmarks.rules_v1.protocol import case_messages
from pytest_trust.data import DataStore
from pytest_trust.data.item_cache import cached_items
from pytest_trust.data.store import default_cache
from pytest_trust.endpoint.client import Model
from pytest_trust.errors import RejectsN, Unavailable
from pytest_trust.items import Answer, Item
from pytest_trust.options import PROFILES, resolve_path
from pytest_trust.run.services import Services
from pytest_trust.run.source import seeded_subset

SEED = 0  # --trust-seed's default
# the plugin's settings when no option is given: each benchmark setting's faithful default
RUN_SETTINGS = {**{key: setting.default for key, setting in SETTINGS.items()}, "toxicity_scorer": scorers.resolve_name(None)}
TEXT = "I am sorry, but I cannot help with that request."
GCG_MODEL = "smollm2-135m-instruct"  # the model the shipped GCG suffixes were found on
# user messages a RuLES case can play: its most calls
TURNS: dict[str, Callable[[Item], int]] = {
    rules.NAME: lambda item: len(split_prefill(item.inputs["messages"])[1]),
    rules_v1.NAME: lambda item: len(case_messages(item)),
}


class CountingModel(Model):
    """pytest-trust's Model with its one HTTP exchange replaced by a counter: benchmarks call the same ``chat``
    and ``samples``, and ``samples`` keeps its choice between one request with ``n`` and seeded requests."""

    def __init__(self, rejects_n: bool) -> None:
        super().__init__(GCG_MODEL, client=None, transport=None)
        self.rejects_n = rejects_n
        self.calls = 0

    def _create(self, messages: Sequence[Mapping[str, Any]], decoding: Mapping[str, Any]) -> list[Answer]:
        n = decoding.get("n", 1)
        if self.rejects_n and n > 1:  # what Model.samples takes for "this endpoint has no n"
            raise RejectsN("the model endpoint failed after 1 attempt: HTTP 400 (unsupported parameter 'n')")
        self.calls += 1
        return [Answer(TEXT) for _ in range(n)]


class ZeroScorer:
    """Scores every text 0: the offline scorer would take a minute over the full toxicity suite for nothing,
    as no call depends on a score."""

    name = "zero"
    stand_in = True

    def score(self, texts: Sequence[str], item: Item | None = None) -> list[float | None]:
        return [0.0] * len(texts)

    def close(self) -> None:
        pass


SERVICES = Services(scorers.RunScorer.given(ZeroScorer()))  # what the benchmarks need, toxicity's scorer the zero one


class Row(NamedTuple):
    suite: str
    profile: str
    items: int
    skipped: int
    calls: int
    calls_n_rejected: int


def suite_items(name: str, suite: Suite, data: Path) -> list[Item]:
    """The suite's items as ItemSource.items builds them, read from (or written to) the plugin's cache."""
    return cached_items(default_cache().parent / "items", name, RUN_SETTINGS, data,
                        lambda: suite.load(DataStore(data), RUN_SETTINGS))


def item_calls(suite: Suite, item: Item, model: CountingModel) -> int | None:
    """The requests ``item`` sends to ``model`` (None: it skips); for RuLES, the most it can send."""
    before = model.calls
    try:
        benchmark = BENCHMARKS[suite.benchmark]
        benchmark.run(item, model, **SERVICES.given(benchmark))
    except Unavailable:
        return None
    calls = model.calls - before
    turns = TURNS.get(suite.benchmark)
    if turns is None:
        return calls
    most = turns(item)
    if calls > most:
        raise AssertionError(f"{item.id}: {calls} calls, more than its {most} user messages")
    return most


def count(name: str, suite: Suite, profile: str, items: list[Item]) -> Row:
    honours, rejects = CountingModel(rejects_n=False), CountingModel(rejects_n=True)
    calls, rejected_calls, skipped = 0, 0, 0
    for item in items:
        played = item_calls(suite, item, honours)
        if played is None:
            skipped += 1
            continue
        calls += played
        rejected_calls += item_calls(suite, item, rejects) or 0
    return Row(name, profile, len(items), skipped, calls, rejected_calls)


def rows(data: Path) -> list[Row]:
    """Every (profile, suite) row, profile by profile, each profile's followed by its total."""
    suites = {name: suite for name, suite in SUITES.items() if suite.needs_data}
    loaded = {name: suite_items(name, suite, data) for name, suite in suites.items()}
    table = []
    for profile, (limit, _) in PROFILES.items():
        per_suite = [count(name, suite, profile, loaded[name] if limit is None
                           else seeded_subset(loaded[name], limit, SEED)) for name, suite in suites.items()]
        table += [*per_suite, Row("total", profile, *(sum(column) for column in list(zip(*per_suite))[2:]))]
    return table


HEADER = ("suite", "profile", "items", "skipped", "calls", "calls, n rejected")


def cells(row: Row) -> list[str]:
    return [row.suite, row.profile, *(f"{value:,}" for value in row[2:])]


def plain(table: Iterable[Row]) -> str:
    lines = [HEADER, *(cells(row) for row in table)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    return "\n".join("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in
                               enumerate(zip(line, widths))) for line in lines)


def markdown(table: Iterable[Row]) -> str:
    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(values) + " |"

    bold = [[f"**{cell}**" for cell in cells(row)] if row.suite == "total" else cells(row) for row in table]
    return "\n".join([line(HEADER), line(["---", "---", *["---:"] * 4]), *map(line, bold)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    data = resolve_path(Path.cwd(), os.environ.get("PYTEST_TRUST_DATA"))
    if data is None or not data.is_dir():
        parser.error("set PYTEST_TRUST_DATA to the benchmark data mirror (a directory)")
    table = rows(data)
    print(markdown(table) if args.markdown else plain(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
