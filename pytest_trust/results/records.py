"""The record of a run: one ``ItemRecord`` per reported test, and the run's metrics computed from records, one way
for the live session and for ``pytest-trust report merge`` (which reads records back from the shards' JSON
reports), so a merged report's numbers are the ones a single run of the same items prints."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..benchmarks.spec import Benchmark
from ..items import Result
from .metrics import Metric, error_rate

LOST = "lost: its xdist worker died while running it"  # a lost item's error, as the JSON report writes it

# What an item came to rides on its own setup report (a user property), so it reaches the controller when the
# item finishes, and a worker that dies later takes none of its finished results with it.
RESULT_PROPERTY = "pytest_trust_result"
ERROR_PROPERTY = "pytest_trust_error"
SKIP_PROPERTY = "pytest_trust_skip"
INTERNAL = frozenset({RESULT_PROPERTY, ERROR_PROPERTY, SKIP_PROPERTY})


@dataclass(slots=True)  # one a reported test: 9,051 in the main job
class ItemRecord:
    """What one reported test came to. A benchmark item has a result (scored: its verdict and facts), an error
    (it ran and could not be scored), a skip reason, or was lost with its xdist worker; any other test has
    only its outcome."""

    nodeid: str
    outcome: str | None = None  # passed / failed / error / skipped, as pytest reported it (Outcome rules)
    result: dict[str, Any] | None = None  # Result.to_dict() with the item's benchmark, scenario, irregular answers
    error: str | None = None  # the kind of error: miss, model, invalid item, corrupt cassette, internal
    error_message: str | None = None  # its one-line message
    benchmark: str | None = None  # the benchmark of an errored or lost item (a result names its own)
    skip: str | None = None  # why it skipped (not recorded, waiting for a batch)
    lost: bool = False  # its xdist worker died while running it

    def report(self, when: str, outcome: str) -> None:
        """Take one of pytest's reports of this test: a failure outside the call is an error; the call decides
        otherwise, and a skip at any phase."""
        if outcome == "failed" and when != "call":
            self.outcome = "error"
        elif when == "call" or outcome == "skipped":
            self.outcome = outcome

    def take(self, properties: Iterable[tuple[str, Any]]) -> None:
        """Take what a setup report's properties say the item came to (``playing.Played.as_property``)."""
        for name, value in properties:
            if name == RESULT_PROPERTY:
                self.result = value
            elif name == SKIP_PROPERTY:
                self.skip = value
            elif name == ERROR_PROPERTY:
                self.error, self.error_message = value["kind"], value.get("message")
                self.benchmark = value["benchmark"]

    @property
    def is_item(self) -> bool:
        """A benchmark item (not another test of the same run)."""
        return self.result is not None or self.error is not None or self.skip is not None or self.lost

    @property
    def scored(self) -> bool:
        """Counted in its benchmark's metrics: it ran to a verdict, pass or fail, without an error."""
        return (self.result is not None and self.outcome in ("passed", "failed") and self.error is None
                and not self.lost)

    @property
    def errored(self) -> bool:
        """Counted in its benchmark's error rate."""
        return self.error is not None or self.lost

    def benchmark_name(self) -> str | None:
        return self.result["benchmark"] if self.result is not None else self.benchmark

    def to_entry(self) -> dict[str, Any]:
        """The JSON report's entry (docs/report-schema.md, ``items``)."""
        entry: dict[str, Any] = {"nodeid": self.nodeid, "outcome": self.outcome}
        result = self.result
        if result is not None:
            entry.update(id=result["item_id"], benchmark=result["benchmark"], verdict=result["verdict"],
                         facts=result["facts"])
            if "scenario" in result:
                entry["scenario"] = result["scenario"]
            if "irregular" in result:
                entry["irregular"] = result["irregular"]
        if self.error is not None:
            entry["error"] = self.error
            if self.error_message is not None:
                entry["error_message"] = self.error_message
            if self.benchmark is not None:  # counted in <benchmark>.error_rate, by a merge too
                entry.setdefault("benchmark", self.benchmark)
        if self.lost:
            entry["error"] = LOST
            entry.setdefault("benchmark", self.benchmark or "unknown")
        return entry

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> ItemRecord:
        """A record read back from a JSON report's entry (what a merge recomputes from)."""
        record = cls(entry.get("nodeid", ""), entry.get("outcome"))  # a hand-edited report may lack any of them
        if "verdict" in entry:
            record.result = {"item_id": entry.get("id", ""), "benchmark": entry.get("benchmark") or "unknown",
                             "verdict": entry["verdict"],
                             "facts": entry.get("facts", {})}
            for key in ("scenario", "irregular"):
                if key in entry:
                    record.result[key] = entry[key]
        if "error" in entry:
            record.lost = entry["error"] == LOST
            record.error = None if record.lost else entry["error"]
            record.error_message = entry.get("error_message")
            record.benchmark = entry.get("benchmark") or "unknown"
        return record


def metrics_of(records: Iterable[ItemRecord], benchmarks: Mapping[str, Benchmark]) -> dict[str, Metric]:
    """Every metric of a run from its records (in node-id order, whatever order they came in)."""
    scored: dict[str, list[Result]] = defaultdict(list)
    errored: dict[str, int] = defaultdict(int)
    for record in sorted(records, key=lambda r: r.nodeid):
        if record.errored:
            errored[record.benchmark_name() or "unknown"] += 1
        elif record.scored:
            assert record.result is not None
            scored[record.result["benchmark"]].append(Result.from_dict(record.result))
    return run_metrics(scored, errored, benchmarks)


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


def irregular_answers(records: Iterable[ItemRecord]) -> dict[str, dict[str, int]]:
    """Per benchmark, how many answers were cut at max_tokens, filtered, tool calls or empty."""
    counts: dict[str, dict[str, int]] = {}
    for record in records:
        if record.result is None:
            continue
        for reason, n in record.result.get("irregular", {}).items():
            per = counts.setdefault(record.result["benchmark"], {})
            per[reason] = per.get(reason, 0) + n
    return counts


def item_counts(records: Iterable[ItemRecord]) -> dict[str, int]:
    """Outcomes of benchmark items only (not of other tests in the same run)."""
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        if record.outcome is not None and record.is_item:
            counts[record.outcome] += 1
    return dict(counts)
