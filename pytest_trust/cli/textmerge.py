"""A three-way merge of a generated file: the user's copy, what the generator wrote before, what it writes now.

``git merge-file`` does it (the merge git itself uses): the generator's change is applied to the user's copy,
their edits (values, comments, steps) kept; where both touched the same lines, nothing is guessed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

MARKER = "<<<<<<< "


@dataclass(frozen=True)
class Merged:
    """The merged text, or where it could not be merged: the 1-based lines of the result where conflicts start."""

    text: str
    conflicts: tuple[int, ...] = ()


def merge(yours: str, before: str, now: str) -> Merged | None:
    """``yours`` with the change from ``before`` to ``now`` applied; None when git is not installed."""
    if yours == before or before == now:
        return Merged(now if yours == before else yours)
    if shutil.which("git") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="pytest-trust-merge-") as folder:
        paths = [Path(folder) / name for name in ("yours", "before", "now")]
        for path, text in zip(paths, (yours, before, now)):
            path.write_text(text, encoding="utf-8")
        done = subprocess.run(["git", "merge-file", "-p", "-L", "yours", "-L", "init before", "-L", "init now",
                               *map(str, paths)], capture_output=True, text=True, check=False)
    if done.returncode < 0 or done.returncode > 127:
        return None
    conflicts = tuple(n for n, line in enumerate(done.stdout.splitlines(), 1) if line.startswith(MARKER))
    return Merged(done.stdout, conflicts)
