"""The services a run gives its benchmarks: built once per session, handed to each benchmark's ``run`` as the
keyword arguments its ``Benchmark.needs`` names (``benchmarks.spec.SERVICES``). The run knows services, never
benchmarks, and no benchmark reaches for one the process holds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..benchmarks.spec import Benchmark
from ..recording.journal import MergeReport
from ..scorers import RunScorer, choose

if TYPE_CHECKING:  # the options module imports pytest; a script or the attack builds services without it
    from ..options import RunConfig

NOTHING: Mapping[str, Any] = MappingProxyType({})  # what a benchmark that needs no service is given


@dataclass
class Services:
    """One field per name of ``SERVICES``; a service no option chose is its default, built only if used."""

    toxicity_scorer: RunScorer = field(default_factory=RunScorer)

    def given(self, benchmark: Benchmark) -> Mapping[str, Any]:
        """The keyword arguments of ``benchmark.run``: each service it declares it needs."""
        if not benchmark.needs:
            return NOTHING
        return {name: getattr(self, name) for name in benchmark.needs}

    def finish(self, merge: bool = True) -> MergeReport:
        """Close what was built; with ``merge`` (the main process, after its workers), merge what they recorded."""
        return self.toxicity_scorer.finish(merge)


def of_run(config: RunConfig, session_id: str | None, worker: str | None) -> tuple[Services, MergeReport]:
    """The services of a run with a model, chosen by its options (the toxicity scorer's remote answers record
    beside the model's), and what the main process merged of the journals a killed run left behind."""
    scorer = choose(config.settings["toxicity_scorer"], cassettes=config.cassettes, model=config.recordings,
                    record_mode=config.record_mode, rpm=config.perspective_rpm, session_id=session_id,
                    worker=worker or "main")
    return Services(scorer), scorer.merge_left_behind()
