"""Item lists built once, then read back from the user cache.

Building every suite's items decompresses and parses about 150 pinned files (DecodingTrust's
adversarial demonstrations alone repeat their demonstrations on each of 75,000 lines); the pickled
list loads several times faster. A list depends only on the files it was built from, which the
pins fix, on the code that built it, and on the benchmark settings, so the key covers exactly
these: the suite, the settings, the data folder, every source and pin file of this package, and
Python's version. Anything unreadable in the cache is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent
OFF = "PYTEST_TRUST_ITEM_CACHE"  # set to 0 to build every time


@lru_cache(maxsize=1)
def code_digest() -> str:
    """One digest of the package's sources and pins: any edit gives new keys."""
    digest = hashlib.sha256()
    for path in sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".tsv", ".json", ".jsonl", ".yaml")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_key(suite: str, settings: Mapping[str, Any], data: Path | None) -> str:
    parts = [suite, json.dumps(settings, sort_keys=True, default=str), str(data), code_digest(),
             f"{sys.version_info.major}.{sys.version_info.minor}"]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def cached_items(folder: Path, suite: str, settings: Mapping[str, Any], data: Path | None,
                 build: Callable[[], list[Any]]) -> list[Any]:
    """``build()``'s list, from ``folder`` when a list with the same key is there."""
    if os.environ.get(OFF, "1") == "0":
        return build()
    path = folder / f"{suite}@{cache_key(suite, settings, data)}.pickle"
    items = _read(path)
    if items is not None:
        return items
    items = build()
    _store(folder, suite, path, items)
    return items


def _read(path: Path) -> list[Any] | None:
    try:
        with path.open("rb") as handle:
            items = pickle.load(handle)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a truncated or foreign file: rebuilt by the caller
        return None
    return items if isinstance(items, list) else None


def _store(folder: Path, suite: str, path: Path, items: list[Any]) -> None:
    """Write atomically (a concurrent reader sees the old file or the new one) and drop the suite's
    stale lists. A list that cannot be written costs speed only."""
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{suite}@")
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(items, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        tmp = None
        for stale in folder.glob(f"{suite}@*.pickle"):
            if stale != path:
                stale.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
