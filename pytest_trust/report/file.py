"""The JSON report as a file: written so that no reader sees half of one, read back with one clear
message when it is not one. Below every layer that saves or loads a report (the run, a baseline, a merge,
``thresholds bless``), so none of them reaches up into the report renderers."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ..errors import UsageProblem

SCHEMA = "pytest-trust/report"
SCHEMA_VERSION = 1


def dump(path: Path, report: dict[str, Any]) -> None:
    """Encoded straight into the file: ``json.dumps`` of the main job's report held 63 MB of pieces at once."""
    with atomic_file(path) as out:
        json.dump(report, out, indent=1, ensure_ascii=False)
        out.write("\n")


def write_atomically(path: Path, text: str) -> None:
    with atomic_file(path) as out:
        out.write(text)


@contextmanager
def atomic_file(path: Path) -> Iterator[TextIO]:
    """A report written so that a reader never sees half a file, and a failed write leaves none behind
    (``OSError`` says why, naming ``path``). Text no UTF-8 encoder takes (a lone surrogate) is written as its ``\\u``
    escape, which a JSON reader turns back into the same string."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8", errors="backslashreplace", newline="") as out:
            yield out
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise OSError(err.errno, err.strerror, str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read(path: Path, what: str, missing: str = "pass the JSON report a run wrote with --trust-report PATH",
         with_items: bool = True) -> dict[str, Any]:
    """A saved report, or one UsageProblem naming what asked for it, the file, and what to do."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageProblem(f"{what} {path}: no such file; {missing}") from None
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise UsageProblem(f"{what} {path}: not a JSON report ({err}); pass a file written with "
                           "--trust-report PATH") from None
    if (not isinstance(report, dict) or report.get("schema") != SCHEMA
            or (with_items and not isinstance(report.get("items"), list))):
        raise UsageProblem(f"{what} {path}: not a pytest-trust report (no \"schema\": \"{SCHEMA}\" with items); "
                           "pass a file written with --trust-report PATH")
    return report
