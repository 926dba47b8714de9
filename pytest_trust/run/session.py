"""What one pytest session holds for pytest-trust, by job: what to run (``source``), what plays it (``player``),
what each test came to and the run's report (``ledger``), and what the user is told (``hints``).

The plugin module only wires pytest's hooks to these objects, as pytest's own stepwise/cacheprovider
plugins do; the session lives once per process (controller, workers, or the single process).
"""

from __future__ import annotations

from pytest import ExitCode

from ..options import RunConfig
from ..results.gates import Thresholds
from .hints import Hints
from .ledger import Ledger
from .player import Player
from .selection import Selection
from .source import ItemSource


class TrustSession:
    def __init__(self, config: RunConfig, thresholds: Thresholds, worker: str | None,
                 session_id: str | None = None) -> None:
        self.config = config
        self.thresholds = thresholds
        self.worker = worker  # None on the controller or a single process
        self.ledger = Ledger(config, thresholds, worker)
        self.player = Player(config, worker, session_id)
        recorded_only = config.recorded_only and not config.record_mode.can_record
        self.selection = Selection(config.shard, config.shard_text, self.player.recorder if recorded_only else None)
        self.source = ItemSource(config, self.selection)
        self.hints = Hints(config, thresholds, self.selection, self.ledger, self.player)

    def exit_status(self, status: int, batch_submitted: bool = True) -> int:
        """The run's exit status from pytest's: failed gates, selected benchmarks without recordings, an unsent
        batch or an unwritten report fail it; soft mode forgives failures that are all benchmark verdicts;
        interrupted, internal and usage errors keep pytest's status."""
        if status not in (ExitCode.OK, ExitCode.TESTS_FAILED, ExitCode.NO_TESTS_COLLECTED):
            return status
        ledger = self.ledger
        if ledger.gates_failed or self.selection.missing:
            return ExitCode.TESTS_FAILED
        if status == ExitCode.TESTS_FAILED and ledger.soft and ledger.failures_are_verdicts():
            status = ExitCode.OK
        if status == ExitCode.OK and (not batch_submitted or ledger.unwritten):
            return ExitCode.TESTS_FAILED
        return status

    @property
    def ran_items(self) -> bool:
        return (any(r.result is not None or r.error is not None or r.skip is not None
                    for r in self.ledger.records.values())
                or bool(self.player.batch_lines or self.selection.missing))
