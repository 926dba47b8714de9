"""The change's verdict from the paired tests a run against its baseline wrote (``report["baseline"]["tests"]``):
McNemar per benchmark, adjusted by Holm across the benchmarks compared, so that a change gated on k benchmarks
is not k times as likely to fail by chance."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..results.stats import holm

DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class Tested:
    """One benchmark's paired comparison: its McNemar p, Holm-adjusted, and whether it regressed at alpha."""

    benchmark: str
    paired: int
    newly_failing: int
    newly_passing: int
    p: float
    adjusted: float
    regressed: bool
    incomparable: str | None = None


def verdicts(tests: Mapping[str, Mapping[str, Any]], alpha: float) -> list[Tested]:
    """Every benchmark of ``tests``; one whose runs are incomparable (another scorer) is listed, never regressed."""
    comparable = sorted(name for name, test in tests.items()
                        if "incomparable" not in test and isinstance(test.get("p"), (int, float)))
    adjusted = dict(zip(comparable, holm([float(tests[name]["p"]) for name in comparable])))
    found = []
    for name in sorted(tests):
        test = tests[name]
        failing, passing = int(test.get("newly_failing", 0)), int(test.get("newly_passing", 0))
        p = float(test.get("p", 1.0))
        q = adjusted.get(name, 1.0)
        found.append(Tested(name, int(test.get("paired", 0)), failing, passing, p, q,
                            name in adjusted and q < alpha and failing > passing, test.get("incomparable")))
    return found
