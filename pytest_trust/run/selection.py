"""Which items run, and the lines that say what was left out: --trust-shard and --trust-recorded-only as a
suite's items are parametrized (what they leave out is never built), a -m selection that surprises (pytest
says "12 deselected" and nothing of the markers that exist), benchmarks selected without recordings."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Container, Sequence
from typing import TypeVar

from ..benchmarks import SUITES
from ..items import Item
from ..recording import Recorder
from ..results import shards

T = TypeVar("T")

WORD = re.compile(r"[A-Za-z_][\w-]*")
OPERATORS = {"and", "or", "not"}


def marker_lines(expression: str, registered: list[str], selected: int) -> list[str]:
    """A line when ``-m expression`` names a marker nobody registered (pytest ignores it silently) or selects
    nothing: the markers of pytest-trust's suites, and the closest to a misspelt one. ``registered``: the
    ``markers`` ini lines ("name(args): text")."""
    if not expression:
        return []
    known = {line.split(":", 1)[0].split("(", 1)[0].strip() for line in registered}
    names = [w for w in WORD.findall(re.sub(r"\([^)]*\)", "", expression)) if w not in OPERATORS]
    markers = list(SUITES)  # a suite's name is its marker
    unknown = list(dict.fromkeys(n for n in names if n not in known and n not in markers))
    listed = ", ".join(markers) + " (pytest --markers describes them)"
    if not unknown and selected:
        return []
    text = f"pytest-trust: -m {expression!r}" + ("" if selected else " selects no item")
    if not unknown:
        return [f"{text}; the markers: {listed}"]
    close = [match for name in unknown for match in difflib.get_close_matches(name, markers, n=1)]
    text += (" and" if not selected else "") + f" names {', '.join(map(repr, unknown))}, no marker of a pytest-trust suite"
    return [text + (f"; did you mean {', '.join(close)}? The markers: " if close else "; the markers: ") + listed]


def split_recorded(items: Sequence[T], trust_item: Callable[[T], Item | None], has_recording: Callable[[Item], bool],
                   whole: Callable[[str], bool | None]) -> tuple[list[T], list[T]]:
    """(kept, dropped) by --trust-recorded-only, in their order: an item that is not a trust item, or that
    skips wherever it runs, is kept; ``whole(benchmark)`` keeps (True) or drops (False) a benchmark's items at
    once, or (None) leaves each to ``has_recording``."""
    kept: list[T] = []
    dropped: list[T] = []
    decided: dict[str, bool | None] = {}
    for item in items:
        found = trust_item(item)
        if found is None or found.unavailable:
            kept.append(item)
            continue
        if found.benchmark not in decided:
            decided[found.benchmark] = whole(found.benchmark)
        keep = decided[found.benchmark]
        (kept if (has_recording(found) if keep is None else keep) else dropped).append(item)
    return kept, dropped


class Selection:
    """One run's selection state, on every process that collects. ``recorder`` is set when --trust-recorded-only
    applies (replaying only); ``shard`` is --trust-shard's (index, total) and ``shard_text`` its text."""

    def __init__(self, shard: tuple[int, int] | None, shard_text: str | None, recorder: Recorder | None) -> None:
        self.shard = shard
        self.shard_text = shard_text
        self.recorder = recorder
        self.other_shards = 0  # items --trust-shard left out (never built)
        self.unrecorded = 0  # items --trust-recorded-only never built or deselected
        self.emptied: set[str] = set()  # suite functions with no item left (their placeholder is deselected)
        self.suites_seen: set[str] = set()  # the suites this process's collection met (selected or not)
        self.marker_lines: list[str] = []  # what a surprising -m selection did
        self.benchmark_lines: list[str] = []  # benchmarks --trust-recorded-only left out whole
        self.missing: list[str] = []  # selected benchmarks without any recording: the run fails
        # suite -> a mistake in the user's input to it (a default file it reads), found as it was collected: the run
        # stops on it once collection is done (exit status 4), as on a file named by an option
        self.unusable: dict[str, str] = {}

    @property
    def filters(self) -> bool:
        """True when some items are left out as they are parametrized."""
        return self.shard is not None or self.recorder is not None

    def keep(self, items: list[Item]) -> list[Item]:
        """--trust-shard, then --trust-recorded-only, of a suite's or a cassette unit's items."""
        if self.shard is not None:
            items, others = shards.select(items, self.shard, shards.item_key)
            self.other_shards += len(others)
        if self.recorder is None:
            return items
        recorder = self.recorder
        # each cassette unit's recorded ids, asked once (a cut is often one unit's); a benchmark without a folder of
        # recordings keeps its items here (None): the plugin skips or deselects them whole, saying why
        recorded: dict[tuple[str, str], Container[str] | None] = {}
        kept: list[Item] = []
        for item in items:  # one pass, no call an item: a replay's collection asks this of every suite's items
            if item.unavailable:  # it skips wherever it runs, saying why: kept
                kept.append(item)
                continue
            unit = (item.benchmark, item.cassette)
            if unit in recorded:
                ids = recorded[unit]
            else:
                ids = recorded[unit] = (recorder.recorded(*unit) if (recorder.model_root / item.benchmark).is_dir()
                                        else None)
            if ids is None or item.id in ids:
                kept.append(item)
        self.unrecorded += len(items) - len(kept)
        return kept

    def skips(self, benchmark: str, cassette: str, count: int) -> bool:
        """Whether ``cassette``'s ``count`` items can be left out before they are read: under --trust-recorded-only
        (without --trust-shard, which needs each item's key), a cassette unit with no file of a benchmark that
        has recordings has none of its items recorded (``keep`` would drop each one)."""
        recorder = self.recorder
        if recorder is None or self.shard is not None or not (recorder.model_root / benchmark).is_dir():
            return False
        if recorder.has_file(benchmark, cassette):
            return False
        self.unrecorded += count
        return True

    def left_out_lines(self) -> list[str]:
        """What the summary says was left out, and why."""
        lines = list(self.benchmark_lines)
        if self.other_shards:
            lines.append(f"--trust-shard {self.shard_text}: {self.other_shards} items of other shards left out")
        if self.unrecorded:
            lines.append(f"--trust-recorded-only: {self.unrecorded} items without a recording left out")
        return lines
