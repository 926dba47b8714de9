"""The session's cassettes for one model: lazy per-scenario index, per-item tapes, the journal.

A corrupt scenario file fails only that scenario's items, each with the same message; the other
scenarios replay. ``--record-mode=rewrite`` reads a corrupt file as empty, and its merge replaces it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from pathlib import Path

from ..errors import CorruptCassette, NotRecorded
from .cassettes import Interaction, model_dir, read_cassette_file, scenario_file
from .journal import Journal, MergeReport, merge_journals
from .modes import RecordMode
from .tape import Tape


class Recorder:
    """Opens one tape per item. Each scenario file is read and indexed once per process."""

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
        self._files: dict[Path, dict[str, list[Interaction]]] = {}
        self._not_recorded: dict[Path, dict[str, str]] = {}
        self._corrupt: dict[Path, str] = {}  # scenario file -> why none of its items can replay
        self._loading = threading.Lock()
        self._local = threading.local()  # each thread plays one item at a time: its own tape

    @property
    def tape(self) -> Tape | None:
        """The tape of the item this thread is playing (None outside an item)."""
        return getattr(self._local, "tape", None)

    @tape.setter
    def tape(self, tape: Tape | None) -> None:
        self._local.tape = tape

    def interactions(self, benchmark: str, scenario: str, item_id: str) -> tuple[Path, list[Interaction]]:
        """The item's recorded interactions; ``CorruptCassette`` if its scenario file is corrupt."""
        path = self._load(benchmark, scenario)
        if path in self._corrupt:
            raise CorruptCassette(self._corrupt[path])
        return path, self._files[path].get(item_id, [])

    def _load(self, benchmark: str, scenario: str) -> Path:
        path = self._paths.get((benchmark, scenario))
        if path is None:
            with self._loading:  # threads recording the same scenario read its file once
                return self._load_once(benchmark, scenario)
        return path

    def _load_once(self, benchmark: str, scenario: str) -> Path:
        path = self._paths.get((benchmark, scenario))
        if path is None:
            path = scenario_file(self.root, self.model, benchmark, scenario)
            try:
                self._files[path], self._not_recorded[path] = read_cassette_file(path)
                if not self.mode.can_record:  # a replay serves responses and writes nothing back: the requests,
                    for interactions in self._files[path].values():  # half of a cassette's memory, go
                        for interaction in interactions:
                            interaction.pop("request", None)
            except CorruptCassette as err:
                self._files[path], self._not_recorded[path] = {}, {}
                if self.mode is not RecordMode.REWRITE:  # rewrite re-records it from scratch
                    self._corrupt[path] = str(err)
            self._paths[benchmark, scenario] = path
        return path

    def has_file(self, benchmark: str, scenario: str) -> bool:
        """Whether the scenario has a cassette file."""
        return scenario_file(self.root, self.model, benchmark, scenario).exists()

    def has_recording(self, benchmark: str, scenario: str, item_id: str) -> bool:
        """Whether the item has interactions, or a mark saying its source never recorded it.

        An item of a corrupt scenario file counts as recorded, so replaying it reports the corruption.
        """
        if self._load(benchmark, scenario) in self._corrupt:
            return True
        path, interactions = self.interactions(benchmark, scenario, item_id)
        marks = self._not_recorded[path]
        return bool(interactions) or item_id in marks or "*" in marks

    def begin(self, benchmark: str, scenario: str, item_id: str, hint: str | Callable[[], str] = "") -> Tape:
        """Open the item's tape; an item its imported source never recorded raises ``NotRecorded``
        when replaying (recording modes record it like any missing item)."""
        path, interactions = self.interactions(benchmark, scenario, item_id)
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
