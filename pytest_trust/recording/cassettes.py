"""Cassette files: vcrpy's JSON cassette format, one file per scenario, one logical cassette per item.

A file is what ``vcr.serialize`` writes (``{"version": 1, "interactions": [...]}``) so vcrpy can read
it; each interaction also carries ``item_id``, ``digest`` and ``episode`` (the n-th time the item sent
that digest). An imported run may add ``not_recorded``: item id (or ``"*"``, the whole scenario) ->
why its source never recorded it, so replay skips those items with the reason instead of missing.
Files are written sorted by item id, then episode, through a temporary file and a rename, so an
interrupted write never leaves half a cassette and re-recording gives no spurious diff.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import CorruptCassette

FORMAT_VERSION = 1  # vcrpy's CASSETTE_FORMAT_VERSION
Interaction = dict[str, Any]


def model_dir(root: Path, model: str) -> Path:
    """``cassettes/<model>``, with characters that cannot be in a folder name replaced."""
    return root / re.sub(r"[^A-Za-z0-9._+=-]", "_", model)


def scenario_file(root: Path, model: str, benchmark: str, scenario: str) -> Path:
    return model_dir(root, model) / benchmark / f"{scenario}.json"


def read_cassette(path: Path) -> dict[str, list[Interaction]]:
    """The interactions of a cassette file, grouped by item id in episode order ({} if absent)."""
    return read_cassette_file(path)[0]


def read_cassette_file(path: Path) -> tuple[dict[str, list[Interaction]], dict[str, str]]:
    """A cassette file's interactions by item id, and its ``not_recorded`` marks."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return {}, {}
    except (OSError, ValueError) as err:
        raise CorruptCassette(f"cassette {path} cannot be read: {err}. Restore it from git or re-record.") from err
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise CorruptCassette(f"cassette {path} is not a vcrpy JSON cassette (no 'interactions' list)")
    by_item: dict[str, list[Interaction]] = {}
    for number, interaction in enumerate(data["interactions"]):
        try:
            by_item.setdefault(interaction["item_id"], []).append(interaction)
        except (KeyError, TypeError) as err:
            raise CorruptCassette(f"cassette {path}: interaction {number} has no item_id") from err
    not_recorded = data.get("not_recorded", {})
    if not isinstance(not_recorded, dict):
        raise CorruptCassette(f"cassette {path}: 'not_recorded' must map item ids to reasons")
    return by_item, not_recorded


def write_cassette(path: Path, by_item: Mapping[str, Iterable[Interaction]],
                   not_recorded: Mapping[str, str] | None = None) -> None:
    """Write all items' interactions atomically, in a stable order."""
    interactions = [i for item_id in sorted(by_item) for i in by_item[item_id]]
    marks = {k: v for k, v in sorted((not_recorded or {}).items()) if k not in by_item}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write('{"version": %d, "interactions": [\n' % FORMAT_VERSION)
            for n, interaction in enumerate(interactions):
                fh.write(",\n" if n else "")
                json.dump(interaction, fh, ensure_ascii=False, sort_keys=True)
            fh.write("\n]")
            if marks:
                fh.write(',\n"not_recorded": ')
                json.dump(marks, fh, ensure_ascii=False, sort_keys=True, indent=0)
            fh.write("}\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
