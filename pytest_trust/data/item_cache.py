"""Item lists built once, then read back from the user cache.

Building every suite's items decompresses and parses about 150 pinned files (DecodingTrust's
adversarial demonstrations alone repeat their demonstrations on each of 75,000 lines); the pickled
list loads several times faster. A list depends only on the files it was built from, which the
pins fix, on the code that built it, and on the benchmark settings, so the key covers exactly
these: the suite, the settings, the data folder, every source and pin file of this package, and
Python's version. Anything unreadable in the cache is rebuilt, never trusted.

The files themselves can still change under the same key (a mirror file edited, corrupted or replaced): beside each
list, ``<list>.files.json`` keeps the stamps (size, mtime, ctime) of the files it was built from (``DataStore.stamps``).
A file whose stamp changed is verified against its pin again, as a build would read it, and a bad one fails the same
way (the error names the file); a good one is the same data, so the list stands and the stamps are renewed. A list
without its stamps is rebuilt.

A list is stored a cassette unit at a time, each unit's items in pickles of ``CHUNK``, after which a header says
each unit's name, positions, the keys of its items (``ItemKey``) and its chunks' sizes. It is read back through
``cut``, which sees only the keys: a run that keeps a few thousand of 264,000 items unpickles only the chunks that
hold them, and a unit that ``skip`` leaves out whole (one with no recordings, under --trust-recorded-only) is
stepped over. No file's bytes are kept: each pickle is read from the open file.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import struct
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .store import DataStore, Stamp

PACKAGE = Path(__file__).resolve().parent.parent
OFF = "PYTEST_TRUST_ITEM_CACHE"  # set to 0 to build every time
FORMAT = "by-cassette-chunked-4"  # the file's layout, part of its key
# items a pickle: the main job keeps 9,051 of 264,197 items, spread through their cassette units, and unpickles 31,000;
# a chunk's items still share the objects they have in common (a demonstration repeated on every item of a
# cassette unit), so the file is 1.2x the size of one pickle a unit, where one pickle an item would be 2.7x
CHUNK = 8


class ItemKey(NamedTuple):
    """What a cut reads of an item: which item it is, and why it cannot run anywhere ("" if it can)."""

    id: str
    benchmark: str
    cassette: str
    unavailable: str


Cut = Callable[[list[Any]], list[Any]]  # one cassette unit's items, or their ItemKeys -> those kept, in their order
# (cassette unit, its number of items) -> True: leave it out whole, unread; never asked of a unit holding items that
# skip wherever they run (``unavailable``): they run, to say why
Skip = Callable[[str, int], bool]
STAMPS = ".files.json"  # beside a list: the stamps of the files it was built from
HEADER_AT = struct.Struct("<Q")  # the file starts with the header's offset: the header, written last, follows the blocks


@lru_cache(maxsize=1)
def code_digest() -> str:
    """One digest of the package's sources and pins: any edit gives new keys."""
    digest = hashlib.sha256()
    for path in sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".tsv", ".json", ".jsonl", ".yaml")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_key(suite: str, settings: Mapping[str, Any], data: Path | None) -> str:
    parts = [suite, json.dumps(settings, sort_keys=True, default=str), str(data), code_digest(),
             f"{sys.version_info.major}.{sys.version_info.minor}", FORMAT]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def cached_items(folder: Path, suite: str, settings: Mapping[str, Any], data: Path | None,
                 build: Callable[[], list[Any]], cut: Cut | None = None, skip: Skip | None = None,
                 store: DataStore | None = None) -> list[Any]:
    """``build()``'s list, from ``folder`` when a list with the same key is there; with ``cut``, only what it keeps
    of each cassette unit's items (items have a ``cassette``) that ``skip`` does not leave out, in the list's order.
    ``store``: the data store ``build`` reads, whose files a cached list is checked against (module docstring)."""
    if os.environ.get(OFF, "1") == "0":
        return _cut(build(), cut, skip)
    path = folder / f"{suite}@{cache_key(suite, settings, data)}.pickle"
    stamps_path = path.with_name(path.name + STAMPS)
    stamps = _read_stamps(stamps_path) if store is not None else []
    items = _read(path, cut, skip) if stamps is not None else None
    if items is not None:
        if store is not None and stamps:
            changed = store.changed(stamps)
            for source, name in changed:
                store.recheck(source, name)  # raises for a bad file, as building from it would
            if changed:
                _write_stamps(stamps_path, store.restamped(stamps))
        return items
    if store is None:
        items = build()
    else:
        with store.watching() as read:
            items = build()
    _store(folder, suite, path, items)
    if store is not None:
        _write_stamps(stamps_path, store.stamps(read))
    return _cut(items, cut, skip)


def _cassettes(items: Sequence[Any]) -> dict[str, list[int]]:
    """Each cassette unit's positions in ``items``, in order."""
    positions: dict[str, list[int]] = {}
    for position, item in enumerate(items):
        positions.setdefault(item.cassette, []).append(position)
    return positions


def _cut(items: list[Any], cut: Cut | None, skip: Skip | None = None) -> list[Any]:
    if cut is None and skip is None:
        return items
    kept = [pair for cassette, positions in _cassettes(items).items()
            if skip is None or _has_unavailable([items[p] for p in positions]) or not skip(cassette, len(positions))
            for pair in _kept(positions, [items[p] for p in positions], cut)]
    return _ordered(kept)


def _kept(positions: Sequence[int], block: list[Any], cut: Cut | None) -> list[tuple[int, Any]]:
    """What ``cut`` keeps of one cassette unit's ``block``, each with its position in the whole list."""
    if cut is None:
        return list(zip(positions, block))
    where = {id(item): position for position, item in zip(positions, block)}
    return [(where[id(item)], item) for item in cut(block)]


def _has_unavailable(block: list[Any]) -> bool:
    return any(getattr(item, "unavailable", None) for item in block)


def _ordered(kept: list[tuple[int, Any]]) -> list[Any]:
    kept.sort(key=lambda pair: pair[0])
    return [item for _, item in kept]


def _read(path: Path, cut: Cut | None, skip: Skip | None) -> list[Any] | None:
    try:
        with path.open("rb") as handle:
            (at,) = HEADER_AT.unpack(handle.read(HEADER_AT.size))
            handle.seek(at)
            header = pickle.load(handle)
            if not isinstance(header, list):
                return None
            start = HEADER_AT.size
            kept: list[tuple[int, Any]] = []
            for cassette, positions, keys, sizes in header:  # one at a time: what ``cut`` drops is never read
                kept += _read_cassette(handle, start, positions, keys, sizes, cut, skip)
                start += sum(sizes)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a truncated or foreign file: rebuilt by the caller
        return None
    return _ordered(kept)


def _read_cassette(handle: Any, start: int, positions: list[int], keys: list[ItemKey], sizes: list[int],
                   cut: Cut | None, skip: Skip | None) -> list[tuple[int, Any]]:
    """The items ``cut`` keeps of the cassette unit stored from ``start``, each with its position in the whole list:
    only the chunks that hold one are unpickled."""
    if skip is not None and not _has_unavailable(keys) and skip(keys[0].cassette, len(keys)):
        return []
    wanted = range(len(keys)) if cut is None else [n for n, _ in _kept(range(len(keys)), keys, cut)]
    offsets = [start]
    for size in sizes:
        offsets.append(offsets[-1] + size)
    chunks: dict[int, list[Any]] = {}
    for chunk in sorted({n // CHUNK for n in wanted}):
        handle.seek(offsets[chunk])
        chunks[chunk] = pickle.load(handle)
    kept = []
    for n in wanted:
        item = chunks[n // CHUNK][n % CHUNK]
        if item.id != keys[n].id:  # a file that is not what its header says: rebuilt
            raise ValueError(f"item {n} of {keys[n].cassette} is {item.id}, not {keys[n].id}")
        kept.append((positions[n], item))
    return kept


def _store(folder: Path, suite: str, path: Path, items: list[Any]) -> None:
    """Write atomically (a concurrent reader sees the old file or the new one) and drop the suite's
    stale lists. A list that cannot be written costs speed only."""
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{suite}@")
        header = []
        with os.fdopen(fd, "wb") as handle:
            handle.write(bytes(HEADER_AT.size))  # where the header starts, written once it is known
            for cassette, positions in _cassettes(items).items():
                block = [items[p] for p in positions]
                sizes = []
                for first in range(0, len(block), CHUNK):
                    start = handle.tell()
                    pickle.dump(block[first:first + CHUNK], handle, protocol=pickle.HIGHEST_PROTOCOL)
                    sizes.append(handle.tell() - start)
                keys = [ItemKey(item.id, item.benchmark, item.cassette, item.unavailable) for item in block]
                header.append((cassette, positions, keys, sizes))
            at = handle.tell()
            pickle.dump(header, handle, protocol=pickle.HIGHEST_PROTOCOL)
            handle.seek(0)
            handle.write(HEADER_AT.pack(at))
        os.replace(tmp, path)
        tmp = None
        for stale in folder.glob(f"{suite}@*"):
            if stale.name not in (path.name, path.name + STAMPS):
                stale.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def _read_stamps(path: Path) -> list[Stamp] | None:
    """The stamps kept beside a list; None when they are missing or unreadable (the list is then rebuilt)."""
    try:
        stamps = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamps, list) or not all(
            isinstance(stamp, list) and len(stamp) == 6 and all(isinstance(v, str) for v in stamp[:3])
            and all(type(v) is int for v in stamp[3:]) for stamp in stamps):
        return None
    return [tuple(stamp) for stamp in stamps]


def _write_stamps(path: Path, stamps: list[Stamp]) -> None:
    """Write atomically; stamps that cannot be written cost a rebuild next time, and leave no temporary file."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(stamps, handle)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
