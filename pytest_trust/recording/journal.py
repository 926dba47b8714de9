"""Per-process journals: where new recordings go first, so a killed run loses at most one item.

Each recording process appends one JSON line per finished item to its own journal file and flushes
it to disk. At session end (and at the next start, for journals left by a killed run) the journals
are merged into the cassette files under a file lock, which makes concurrent xdist workers
and concurrent sessions safe: an item's interactions in the journal replace the item's interactions
in the cassette. A journal is named ``<session id>-<worker>-<pid>[-<n>].jsonl`` and its writer holds an
exclusive ``flock`` on it while it is open; the kernel drops that lock when the writer closes it or
dies. A session merges its own run's journals, and another journal only when it can take that lock
itself (held while it reads), never the live journal of another session, whatever PIDs are reused.
A file that cannot be merged (a corrupt cassette, a damaged journal line) is reported and its lines
stay in the journal; everything else is merged. Every line carries the time it was written, and the
merge applies lines in that order, whichever journals they are in: a later recording of an item (a
rewrite) beats an older one left by a dead run.

A journal that cannot be written (disk full, a read-only folder) raises ``NotSaved`` for that item and
for every later one, without writing again: a line torn by the failure stays the file's last, which
the merge drops.
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from ..errors import CorruptCassette, NotSaved
from .cassettes import Interaction, interaction_problem, read_cassette_file, write_cassette

JOURNAL_DIR = ".journal"


class Journal:
    """Append-only journal of one process under ``cassettes/<model>/.journal/``."""

    def __init__(self, model_root: Path, session_id: str, worker: str = "main") -> None:
        self.model_root = model_root
        self.session_id = session_id
        self.worker = worker
        self.path = self._name(0)
        self.problem = ""  # why the journal could not be written, once it could not
        self._fd: int | None = None
        self._lock = threading.Lock()  # threads recording concurrently share the file
        self._sealed = False

    def append(self, cassette: Path, item_id: str, interactions: list[Interaction]) -> None:
        """Write one item's line and flush it to disk; ``NotSaved`` if that fails, now or before."""
        line = {"cassette": cassette.relative_to(self.model_root).as_posix(), "item_id": item_id,
                "at": time.time_ns(), "interactions": interactions}
        data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            if self._sealed:
                return
            if self.problem:
                raise NotSaved(self.problem)
            try:
                if self._fd is None:
                    self._fd = self._open()
                _write_all(self._fd, data)
                fd = self._fd
            except OSError as err:
                self.problem = self._not_written(err)
                raise NotSaved(self.problem) from None
        try:
            os.fsync(fd)  # outside the lock: concurrent appends share one flush to disk
        except OSError as err:
            with self._lock:
                self.problem = self.problem or self._not_written(err)
            raise NotSaved(self.problem) from None

    def seal(self) -> None:
        """Take no more lines (``Recorder.stop``). Under the lock: a line being written is finished first, and
        none starts after, so the session's merge never races a late writer."""
        with self._lock:
            self._sealed = True

    def close(self) -> None:
        """Close the file, which releases its lock: from now on any session may merge it."""
        with self._lock:
            if self._fd is not None:
                fd, self._fd = self._fd, None
                os.close(fd)

    def _not_written(self, err: OSError) -> str:
        if err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            fix = "free space on that disk"
        elif err.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            fix = f"make {self.model_root} writable (or record into another folder with --trust-cassettes DIR)"
        else:
            fix = f"check {self.model_root}"
        return (f"cannot write the journal {self.path} ({err.strerror or err}): {fix}, then run again; what was "
                "recorded before is kept, and the run resumes from it")

    def _name(self, n: int) -> Path:
        suffix = f"-{n}" if n else ""
        return self.model_root / JOURNAL_DIR / f"{self.session_id}-{self.worker}-{os.getpid()}{suffix}.jsonl"

    def _open(self) -> int:
        """A new journal file, locked before anything is written to it.

        Never an existing file (one left unmerged after ``close`` may be merged at any moment). A
        merge can take the lock in the instant between creating and locking; it then finds the file
        empty and removes it, so the file is made again under the next name.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for n in itertools.count():
            path = self._name(n)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o666)
            except FileExistsError:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_nlink:
                self.path = path
                return fd
            os.close(fd)
        raise AssertionError("unreachable")


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until all of ``data`` is written (a full disk can take part of it, then fail)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@dataclass(frozen=True)
class MergeReport:
    """How many items were merged, and one line per file that could not be, saying how to repair it."""

    items: int = 0
    problems: tuple[str, ...] = ()


@dataclass
class _Line:
    """One line of a journal: the entry it holds, or why it cannot be merged."""

    raw: bytes
    cassette: str = ""  # relative to the model folder, normalised
    item_id: str = ""
    interactions: list[Interaction] | None = None
    problem: str = ""
    dropped: bool = False  # the torn last line of a killed writer
    at: int = 0  # when it was written (ns since the epoch; 0 in journals of versions before it was kept)


def merge_journals(model_root: Path, session_id: str | None = None, rewrite: bool = False) -> MergeReport:
    """Merge the journals of session ``session_id`` and of dead writers into their cassettes.

    Never raises for a damaged file: what cannot be merged stays in its journal and is reported.
    ``rewrite`` (a ``--record-mode=rewrite`` run) replaces a corrupt cassette that session recorded
    into with what was recorded, instead of reporting it.
    """
    journal_dir = model_root / JOURNAL_DIR
    if not journal_dir.is_dir() or next(journal_dir.glob("*.jsonl"), None) is None:  # nothing to merge, no lock
        return MergeReport()
    from filelock import FileLock  # here: a replay, with nothing to merge, does not load it (0.8 MB)

    try:
        lock = FileLock(str(model_root / ".lock"))
        lock.acquire()
    except OSError as err:
        problem = f"journals in {journal_dir} not merged: {model_root / '.lock'} cannot be locked ({err}); "
        return MergeReport(0, (problem + "make that folder writable",))
    try:
        with ExitStack() as held:
            journals = {path: _read_journal(fh.read()) for path, fh in _mergeable(journal_dir, session_id, held)}
            replaceable = {line.cassette for path, lines in journals.items() for line in lines
                           if rewrite and _belongs(path, session_id)}
            merged, problems, failed = _merge_cassettes(model_root, journals, replaceable)
            for path, lines in journals.items():
                problems += _keep_unmerged(path, lines, failed)
            return MergeReport(merged, tuple(problems))
    finally:
        lock.release()


def _belongs(journal: Path, session_id: str | None) -> bool:
    return session_id is not None and journal.name.startswith(f"{session_id}-")


def _mergeable(journal_dir: Path, session_id: str | None, held: ExitStack) -> Iterator[tuple[Path, IO[bytes]]]:
    """This run's journals (its writers have closed them by now) and those no live writer holds."""
    for path in sorted(journal_dir.glob("*.jsonl")):
        fh = _open_journal(path, held) if _belongs(path, session_id) else _lock_if_dead(path, held)
        if fh is not None:
            yield path, fh


def _open_journal(path: Path, held: ExitStack) -> IO[bytes] | None:
    """A journal opened for reading until the merge ends; None if another merge removed it."""
    try:
        return held.enter_context(open(path, "rb"))
    except FileNotFoundError:
        return None


def _lock_if_dead(path: Path, held: ExitStack) -> IO[bytes] | None:
    """Another run's journal, if its writer is gone: its lock is then free, and kept until the merge ends."""
    fh = _open_journal(path, held)
    try:
        if fh is not None:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # BlockingIOError: a live writer holds it (the file is closed with the others)
        return None
    return fh


def _read_journal(data: bytes) -> list[_Line]:
    chunks = data.split(b"\n")
    torn = chunks.pop()  # b"" after a final newline; else the last line of a killed writer
    lines = [_parse_line(raw) for raw in chunks]
    if torn:
        last = _parse_line(torn)
        last.dropped = bool(last.problem)  # the item in flight when its writer died: recorded again later
        lines.append(last)
    return lines


def _parse_line(raw: bytes) -> _Line:
    line = _Line(raw)
    try:
        entry = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as err:
        line.problem = f"is not JSON ({type(err).__name__})"
        return line
    if not isinstance(entry, dict):
        line.problem = "is not a JSON object"
    elif not isinstance(entry.get("cassette"), str) or not _inside(entry["cassette"]):
        line.problem = "names no cassette file under the model folder"
    elif not isinstance(entry.get("item_id"), str):
        line.problem = "has no 'item_id' string"
    elif not isinstance(entry.get("interactions"), list):
        line.problem = "has no 'interactions' list"
    else:
        line.problem = _interactions_problem(entry["item_id"], entry["interactions"])
        line.cassette = PurePosixPath(entry["cassette"]).as_posix()
        line.item_id, line.interactions = entry["item_id"], entry["interactions"]
        line.at = entry["at"] if type(entry.get("at")) is int else 0
    return line


def _inside(cassette: str) -> bool:
    path = PurePosixPath(cassette)
    return (not path.is_absolute() and ".." not in path.parts and path.suffix == ".json"
            and path.parts[0] != JOURNAL_DIR and "\0" not in cassette)


def _interactions_problem(item_id: str, interactions: list[Any]) -> str:
    for number, interaction in enumerate(interactions):
        problem = interaction_problem(interaction)
        if problem:
            return f"interaction {number} {problem}"
        if interaction["item_id"] != item_id:
            return f"interaction {number} belongs to item {interaction['item_id']}, not {item_id}"
    return ""


def _merge_cassettes(model_root: Path, journals: dict[Path, list[_Line]],
                     replaceable: set[str]) -> tuple[int, list[str], set[str]]:
    """Merge every cassette it can: the items merged, the problems, the cassettes left unmerged."""
    updates: dict[str, dict[str, list[Interaction]]] = {}
    written = sorted((line for lines in journals.values() for line in lines if not line.problem),
                     key=lambda line: line.at)  # stable: lines of one time keep their journal's order
    for line in written:  # a later recording of an item replaces an earlier one
        updates.setdefault(line.cassette, {})[line.item_id] = line.interactions or []
    problems, failed = [], set()
    for cassette, items in updates.items():
        problem = _merge_cassette(model_root / cassette, items, cassette in replaceable)
        if problem:
            problems.append(f"{problem}; {len(items)} recorded item(s) for it stay in the journal")
            failed.add(cassette)
    return sum(len(items) for cassette, items in updates.items() if cassette not in failed), problems, failed


def _merge_cassette(path: Path, items: dict[str, list[Interaction]], replace_corrupt: bool) -> str:
    """Merge one cassette's journalled items; the problem, or "" when merged."""
    try:
        merged, not_recorded = read_cassette_file(path)
    except CorruptCassette as err:
        if not replace_corrupt:
            return str(err)
        merged, not_recorded = {}, {}  # --record-mode=rewrite: what this run recorded replaces it
    merged.update(items)
    try:
        write_cassette(path, merged, not_recorded)
    except OSError as err:
        return f"cassette {path} cannot be written ({err}): make it and its folder writable"
    return ""


def _keep_unmerged(path: Path, lines: list[_Line], failed: set[str]) -> list[str]:
    """Leave only the lines that were not merged in the journal; a problem line for each damaged one."""
    kept = [line for line in lines if not line.dropped and (line.problem or line.cassette in failed)]
    try:
        if not kept:
            path.unlink(missing_ok=True)
        elif len(kept) < len(lines):
            _rewrite(path, b"".join(line.raw + b"\n" for line in kept))
    except OSError as err:
        problem = f"journal {path} cannot be updated ({err}): make its folder writable, "
        return [problem + "or its merged items are merged again next time"]
    return [f"journal {path} line {number} cannot be merged: it {line.problem}; "
            "fix or delete that line (its item is then recorded again)"
            for number, line in enumerate(kept, 1) if line.problem]


def _rewrite(path: Path, data: bytes) -> None:
    """Replace the journal's bytes through a temporary file, removed if the write fails (a full disk fails it after
    creating it): the journal stands as it was, and nothing is left beside it."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
