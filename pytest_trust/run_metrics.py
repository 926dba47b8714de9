"""A run's metrics from its items, one way for the live session and for ``pytest-trust report merge``, so a
merged report's numbers are the ones a single run of the same items prints."""

from __future__ import annotations

from collections.abc import Mapping

from .benchmarks.spec import Benchmark
from .items import Result
from .metrics import Metric, error_rate


def run_metrics(scored: Mapping[str, list[Result]], errored: Mapping[str, int],
                benchmarks: Mapping[str, Benchmark]) -> dict[str, Metric]:
    """Each benchmark's aggregate of its scored results (sorted by item id, whatever order they came in),
    then ``<benchmark>.error_rate``: errored items of those that ran. Errored items are left out of every
    other metric, so the error rate says how much is missing."""
    metrics: dict[str, Metric] = {}
    for name, results in sorted(scored.items()):
        metrics.update(benchmarks[name].aggregate(sorted(results, key=lambda r: r.item_id)))
    for name in sorted((set(scored) | set(errored)) - {"unknown"}):
        failed = errored.get(name, 0)
        metrics[f"{name}.error_rate"] = error_rate(failed, failed + len(scored.get(name, ())))
    return metrics
