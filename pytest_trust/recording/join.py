"""``pytest-trust join``: the recordings of several shards (or machines) joined into one cassette folder.

Each shard recorded a slice of the items into its own copy of ``cassettes/``; a cassette file is one cassette unit, so
the same file may come from several shards, each holding other items. The files are joined item by item (a
later source's answers win for an item recorded twice) and written atomically, as a recording run writes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .cassettes import read_cassette_file, write_cassette


def join(sources: Iterable[Path], target: Path) -> tuple[int, int]:
    """Join every cassette file under each source folder into ``target``; (files written, items joined).
    A corrupt file raises CorruptCassette naming it, before anything of it is written."""
    files = items = 0
    for source in sources:
        for path in sorted(source.rglob("*.json")):
            if any(part.startswith(".") for part in path.relative_to(source).parts):  # journals, locks
                continue
            into = target / path.relative_to(source)
            found, marks = read_cassette_file(path)
            old, old_marks = read_cassette_file(into) if into.is_file() else ({}, {})
            write_cassette(into, {**old, **found}, {**old_marks, **marks})
            files, items = files + 1, items + len(found)
    return files, items
