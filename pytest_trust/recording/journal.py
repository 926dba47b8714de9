"""Per-process journals: where new recordings go first, so a killed run loses at most one item.

Each recording process appends one JSON line per finished item to its own journal file and flushes
it to disk. At session end (and at the next start, for journals left by a killed run) the journals
are merged into the scenario cassette files under a file lock, which makes concurrent xdist workers
and concurrent sessions safe: an item's interactions in the journal replace the item's interactions
in the cassette. A journal is named ``<run>-<worker>-<pid>.jsonl``: a session merges its own run's
journals and those whose writer is gone, never the live journal of another session.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from filelock import FileLock

from ..errors import CorruptCassette
from .cassettes import Interaction, read_cassette_file, write_cassette

JOURNAL_DIR = ".journal"


class Journal:
    """Append-only journal of one process under ``cassettes/<model>/.journal/``."""

    def __init__(self, model_root: Path, run: str, worker: str = "main") -> None:
        self.model_root = model_root
        self.path = model_root / JOURNAL_DIR / f"{run}-{worker}-{os.getpid()}.jsonl"
        self._fh: Any = None

    def append(self, cassette: Path, item_id: str, interactions: list[Interaction]) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8")
        line = {"cassette": cassette.relative_to(self.model_root).as_posix(), "item_id": item_id,
                "interactions": interactions}
        self._fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def merge_journals(model_root: Path, run: str | None = None) -> int:
    """Merge the journals of ``run`` and of dead writers into their cassettes; return the item count.

    Journals of another session that is still recording are left for it to merge.
    """
    journal_dir = model_root / JOURNAL_DIR
    if not journal_dir.is_dir():
        return 0
    with FileLock(str(model_root / ".lock")):
        journals = [p for p in sorted(journal_dir.glob("*.jsonl"))
                    if (run is not None and p.name.startswith(f"{run}-")) or not _writer_alive(p)]
        updates: dict[str, dict[str, list[Interaction]]] = {}
        for journal in journals:
            for cassette, item_id, interactions in _read_journal(journal):
                updates.setdefault(cassette, {})[item_id] = interactions
        for cassette, items in updates.items():
            path = model_root / cassette
            merged, not_recorded = read_cassette_file(path)
            merged.update(items)
            write_cassette(path, merged, not_recorded)
        for journal in journals:
            journal.unlink()
        return sum(len(items) for items in updates.values())


def _read_journal(path: Path):
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            try:
                entry = json.loads(line)
                yield entry["cassette"], entry["item_id"], entry["interactions"]
            except (ValueError, KeyError, TypeError) as err:
                if not line.endswith("\n"):
                    return  # the last line of a killed writer: that item was in flight, drop it
                raise CorruptCassette(f"journal {path} line {number} is unreadable: {err}") from err


def _writer_alive(journal: Path) -> bool:
    try:
        pid = int(journal.stem.rsplit("-", 1)[1])
        os.kill(pid, 0)
    except (ValueError, IndexError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
