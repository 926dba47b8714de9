"""The session's cassettes for one model: lazy per-scenario index, per-item tapes, the journal."""

from __future__ import annotations

import uuid
from pathlib import Path

from ..errors import NotRecorded
from .cassettes import Interaction, model_dir, read_cassette_file, scenario_file
from .journal import Journal, merge_journals
from .modes import RecordMode
from .tape import Tape


class Recorder:
    """Opens one tape per item. Each scenario file is read and indexed once per process."""

    def __init__(self, root: Path, model: str, mode: RecordMode, run: str | None = None, worker: str = "main") -> None:
        self.root = root
        self.model = model
        self.mode = mode
        self.model_root = model_dir(root, model)
        self.run = run or uuid.uuid4().hex[:8]  # names this session's journals (shared with its workers)
        self.journal = Journal(self.model_root, self.run, worker)
        self._paths: dict[tuple[str, str], Path] = {}
        self._files: dict[Path, dict[str, list[Interaction]]] = {}
        self._not_recorded: dict[Path, dict[str, str]] = {}
        self.tape: Tape | None = None

    def interactions(self, benchmark: str, scenario: str, item_id: str) -> tuple[Path, list[Interaction]]:
        path = self._paths.get((benchmark, scenario))
        if path is None:
            path = self._paths[benchmark, scenario] = scenario_file(self.root, self.model, benchmark, scenario)
            self._files[path], self._not_recorded[path] = read_cassette_file(path)
        return path, self._files[path].get(item_id, [])

    def has_recording(self, benchmark: str, scenario: str, item_id: str) -> bool:
        """Whether the item has interactions, or a mark saying its source never recorded it."""
        path, interactions = self.interactions(benchmark, scenario, item_id)
        marks = self._not_recorded[path]
        return bool(interactions) or item_id in marks or "*" in marks

    def begin(self, benchmark: str, scenario: str, item_id: str, hint: str = "") -> Tape:
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
        """Journal what the item recorded, even if it then failed: its replay must fail the same way."""
        tape, self.tape = self.tape, None
        if tape is not None and tape.fresh:
            self.journal.append(tape.cassette, tape.item_id, tape.used)
            self._files[tape.cassette][tape.item_id] = tape.used

    def merge(self) -> int:
        """Merge this session's journals (and any left by dead writers) into the cassettes."""
        self.journal.close()
        return merge_journals(self.model_root, self.run)

    def miss_message(self, tape: Tape, digest: str) -> str:
        known = sum(len(v) for v in tape.recorded.values())
        lines = [
            f"no recorded answer for item {tape.item_id}",
            f"  request digest {digest[:16]}, cassette {tape.cassette} "
            f"({known} interaction(s) recorded for this item)",
        ]
        if tape.hint:
            lines.append(f"  record it with: {tape.hint}")
        return "\n".join(lines)
