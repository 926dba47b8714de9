"""What a -m selection did, said when it surprises: pytest says "12 deselected" and nothing of the markers
that exist (README, "DecodingTrust perspectives": one marker per benchmark or perspective)."""

from __future__ import annotations

import difflib
import re

from .benchmarks import SUITES

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
