"""What a run concludes from its items' records: the metrics, the comparison with a baseline, the gates. One pure
function for the live session and for ``pytest-trust report merge`` (which reads records back from the shards'
reports), so a merged run is judged exactly as the single run of the same items would be."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..benchmarks import defined_names
from ..benchmarks.spec import Benchmark
from . import baseline as baselines
from .gates import Gate, GateResult, evaluate
from .metrics import Metric
from .records import ItemRecord, metrics_of


@dataclass(frozen=True)
class Conclusion:
    metrics: dict[str, Metric]
    baseline: dict[str, Any] | None  # the report's ``baseline`` section, with --trust-baseline
    gates: list[GateResult]


def conclude(records: Iterable[ItemRecord], entries: Sequence[Mapping[str, Any]], benchmarks: Mapping[str, Benchmark],
             gates: Sequence[Gate], allow_partial: bool = False, baseline_report: Mapping[str, Any] | None = None,
             baseline_path: Path | None = None, settings: Mapping[str, Any] | None = None) -> Conclusion:
    """``records`` give the metrics, ``entries`` (the report's items, the reported records' entries) are paired
    with ``baseline_report``'s when there is one; the gates are evaluated on both. ``settings`` (the run's) say
    which names exist of the keys the project names (a gate on another fails)."""
    metrics = metrics_of(records, benchmarks)
    baseline = (baselines.compare(entries, baseline_report, baseline_path or "the baseline")
                if baseline_report is not None else None)
    names = defined_names(settings or {}, [gate.key for gate in gates])
    return Conclusion(metrics, baseline, evaluate(gates, metrics, allow_partial, baseline=baseline, names=names))
