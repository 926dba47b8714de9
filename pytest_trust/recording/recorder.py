"""The session's cassettes for one model: lazy per-file index, per-item tapes, the journal.

A corrupt cassette file fails only its own items, each with the same message; the other files
replay. ``--record-mode=rewrite`` reads a corrupt file as empty, and its merge replaces it.

A replay holds a cassette file's answers only while its items play: which items a file records is kept
(``recorded``, asked while collecting), the answers are read when its first item plays and let go
after its last (``expect``), so a run's memory holds one file's answers, not every file's. An item
played again after that (a rerun plugin) reads its file again.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Container, Mapping
from pathlib import Path

from ..errors import CorruptCassette, NotRecorded
from .cassettes import Interaction, cassette_file, model_dir, read_cassette_file
from .journal import Journal, MergeReport, merge_journals
from .modes import RecordMode
from .tape import Tape


class Recorder:
    """Opens one tape per item. Each cassette file is read once per process, and by a replay once more if it was
    first read for its index or its answers were let go."""

    def __init__(self, root: Path, model: str, mode: RecordMode, session_id: str | None = None,
                 worker: str = "main") -> None:
        self.root = root
        self.model = model
        self.mode = mode
        self.model_root = model_dir(root, model)
        self.session_id = session_id or uuid.uuid4().hex[:8]  # names this session's journals (and its workers')
        self.journal = Journal(self.model_root, self.session_id, worker)
        self.stopped = False  # Ctrl-C: nothing more is sent or journaled (``stop``)
        self._paths: dict[tuple[str, str], Path] = {}
        self._files: dict[Path, dict[str, list[Interaction]]] = {}  # the files whose answers are held
        self._recorded: dict[Path, frozenset[str]] = {}  # each file read: its items with interactions or a mark
        self._not_recorded: dict[Path, dict[str, str]] = {}
        self._left: dict[Path, int] = {}  # replay: items still to play of each file (``expect``)
        self._corrupt: dict[Path, str] = {}  # cassette file -> why none of its items can replay
        self._loading = threading.Lock()
        self._local = threading.local()  # each thread plays one item at a time: its own tape

    @property
    def tape(self) -> Tape | None:
        """The tape of the item this thread is playing (None outside an item)."""
        return getattr(self._local, "tape", None)

    @tape.setter
    def tape(self, tape: Tape | None) -> None:
        self._local.tape = tape

    def interactions(self, benchmark: str, cassette: str, item_id: str) -> tuple[Path, list[Interaction]]:
        """The item's recorded interactions; ``CorruptCassette`` if its cassette file is corrupt."""
        path = self._load(benchmark, cassette, answers=True)
        if path in self._corrupt:
            raise CorruptCassette(self._corrupt[path])
        return path, self._files[path].get(item_id, [])

    def _load(self, benchmark: str, cassette: str, answers: bool) -> Path:
        """The cassette unit's file, read if it was not, or if its answers are wanted and were let go."""
        path = self._paths.get((benchmark, cassette))
        if path is None or (answers and path not in self._files):
            with self._loading:  # threads recording the same cassette unit read its file once
                return self._load_once(benchmark, cassette, answers)
        return path

    def _load_once(self, benchmark: str, cassette: str, answers: bool) -> Path:
        path = self._paths.get((benchmark, cassette))
        if path is not None and (path in self._files or not answers):
            return path
        path = cassette_file(self.root, self.model, benchmark, cassette)
        by_item = self._read(path)
        if self.mode.can_record:
            self._files[path] = by_item
        elif answers:  # a replay serves responses and writes nothing back: the requests, half of a cassette's
            for interactions in by_item.values():  # memory, go
                for interaction in interactions:
                    interaction.pop("request", None)
            self._files[path] = by_item
        self._paths[benchmark, cassette] = path
        return path

    def _read(self, path: Path) -> dict[str, list[Interaction]]:
        """The file's interactions by item; its marks, its recorded ids and whether it is corrupt are kept."""
        try:
            by_item, self._not_recorded[path] = read_cassette_file(path)
        except CorruptCassette as err:
            by_item, self._not_recorded[path] = {}, {}
            if self.mode is not RecordMode.REWRITE:  # rewrite re-records it from scratch
                self._corrupt[path] = str(err)
        self._recorded[path] = frozenset(by_item).union(self._not_recorded[path])
        return by_item

    def expect(self, plays: Mapping[tuple[str, str], int]) -> None:
        """The items this process will play, counted by (benchmark, cassette): a replay lets a file's answers go
        once its last one has played. Never called, or when recording, every file read stays held."""
        if not self.mode.can_record:
            self._left = {cassette_file(self.root, self.model, *key): count for key, count in plays.items()}

    def has_file(self, benchmark: str, cassette: str) -> bool:
        """Whether the cassette unit has a file."""
        return cassette_file(self.root, self.model, benchmark, cassette).exists()

    def recorded(self, benchmark: str, cassette: str) -> Container[str]:
        """The ids of the cassette unit's items that have interactions, or a mark saying their source never recorded
        them: what --trust-recorded-only keeps, asked once for a file's many items.

        Every item of a corrupt cassette file counts as recorded, so replaying it reports the corruption.
        """
        path = self._load(benchmark, cassette, answers=False)
        if path not in self._recorded:  # let go once its items played (``end``)
            with self._loading:
                self._read(path)
        marks = self._not_recorded[path]
        if path in self._corrupt or "*" in marks:
            return _EVERY_ID
        return self._recorded[path]

    def begin(self, benchmark: str, cassette: str, item_id: str, hint: str | Callable[[], str] = "") -> Tape:
        """Open the item's tape; an item its imported source never recorded raises ``NotRecorded``
        when replaying (recording modes record it like any missing item)."""
        path, interactions = self.interactions(benchmark, cassette, item_id)
        self._local.playing = path  # ``end`` counts it played, whatever comes of it
        if not interactions and not self.mode.can_record:
            marks = self._not_recorded[path]
            reason = marks.get(item_id) or marks.get("*")
            if reason:
                raise NotRecorded(reason)
        self.tape = Tape.open(item_id, path, interactions, self.mode, hint)
        return self.tape

    def end(self) -> None:
        """Journal what the item recorded, even if it then failed: its replay must fail the same way.
        ``NotSaved`` when the journal cannot be written."""
        tape, self.tape = self.tape, None
        path, self._local.playing = getattr(self._local, "playing", None), None
        if path in self._left:
            self._left[path] -= 1
            if self._left[path] <= 0:  # its last expected item: read again only if an item plays again
                self._files.pop(path, None)
                self._recorded.pop(path, None)
        if tape is not None and tape.fresh:
            self.journal.append(tape.cassette, tape.item_id, tape.used)
            self._files[tape.cassette][tape.item_id] = tape.used

    def stop(self) -> None:
        """Ctrl-C: send nothing more, journal nothing more. The items already journaled are kept; an item
        still playing is dropped whole, since part of its conversation kept would replay as recorded under
        ``once`` and miss the rest. The next run records it."""
        self.stopped = True
        self.journal.seal()

    def merge(self) -> MergeReport:
        """Merge this session's journals (and any left by dead writers) into the cassettes.

        A rewrite run replaces a corrupt cassette it recorded into instead of reporting it.
        """
        self.journal.close()
        return merge_journals(self.model_root, self.session_id, rewrite=self.mode is RecordMode.REWRITE)

    def miss_message(self, tape: Tape, digest: str) -> str:
        known = sum(len(v) for v in tape.recorded.values())
        lines = [
            f"no recorded answer for item {tape.item_id}",
            (f"  request digest {digest[:16]}, cassette {tape.cassette} "
             f"({known} interaction(s) recorded for this item)"),
        ]
        hint = tape.hint() if callable(tape.hint) else tape.hint
        if hint:
            lines.append(f"  record it with: {hint}")
        return "\n".join(lines)


class _EveryId:
    def __contains__(self, item_id: object) -> bool:
        return True


_EVERY_ID = _EveryId()
