"""Which collected items run: what a -m selection did, said when it surprises (pytest says "12 deselected"
and nothing of the markers that exist), and which items --trust-recorded-only keeps."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from .benchmarks import SUITES
from .items import Item

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
