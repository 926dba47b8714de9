"""What one pytest session holds for pytest-trust: items, the model, results, and the end-of-run verdict.

The plugin module only wires pytest's hooks to this object, as pytest's own stepwise/cacheprovider
plugins do; it lives once per process (controller, workers, or the single process).
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .benchmarks import BENCHMARKS, SUITES
from .data import DataStore
from .gates import GateResult, Thresholds, evaluate
from .importers import import_hint
from .items import Item, Result
from .metrics import Metric
from .model import Endpoint, Model
from .options import RunConfig
from .recording import Recorder
from .recording.cassettes import model_dir


@dataclass
class Outcomes:
    """Per-node outcome as pytest reported it, on the process that reports (controller or single)."""

    by_node: dict[str, str] = field(default_factory=dict)  # nodeid -> passed/failed/error/skipped

    def add(self, nodeid: str, when: str, outcome: str) -> None:
        if outcome == "failed" and when != "call":
            self.by_node[nodeid] = "error"
        elif when == "call" or outcome == "skipped":
            self.by_node[nodeid] = outcome


class TrustSession:
    def __init__(self, config: RunConfig, thresholds: Thresholds, worker: str | None, run: str | None = None) -> None:
        self.config = config
        self.thresholds = thresholds
        self.worker = worker  # None on the controller or a single process
        self.started = time.time()
        self._items: dict[str, list[Item]] = {}
        self._data: DataStore | None = None
        self.recorder = (Recorder(config.cassettes, config.model, config.record_mode, run, worker or "main")
                         if config.model else None)
        self.model: Model | None = None
        self.results: dict[str, dict[str, Any]] = {}  # nodeid -> Result.to_dict()
        self.error_kinds: dict[str, str] = {}  # nodeid -> kind of error (miss, model, invalid item)
        self.outcomes = Outcomes()
        self.metrics: dict[str, Metric] = {}
        self.gate_results: list[GateResult] = []
        self.merged_items = 0
        self.unrecorded_lines: list[str] = []  # benchmarks skipped for want of any recording

    @property
    def soft(self) -> bool:
        if self.config.soft_flag is not None:
            return self.config.soft_flag
        return bool(self.thresholds.settings.get("soft", False))

    @property
    def data(self) -> DataStore:
        if self._data is None:
            self._data = DataStore(self.config.data)
        return self._data

    def items(self, suite_name: str) -> list[Item]:
        """A suite's items, loaded once per process, then cut to --trust-limit per scenario."""
        if suite_name not in self._items:
            suite = SUITES[suite_name]
            items = suite.load(self.data if suite.needs_data else None, self.config.settings)
            if self.config.limit is not None:
                items = seeded_subset(items, self.config.limit, self.config.seed)
            self._items[suite_name] = items
        return self._items[suite_name]

    def connect(self) -> Model:
        if self.model is None:
            assert self.recorder is not None and self.config.model
            endpoint = Endpoint(self.config.base_url, timeout=self.config.timeout)
            self.model = Model.connect(self.config.model, self.recorder, endpoint)
        return self.model

    def close(self) -> None:
        if self.model is not None:
            self.model.close()
        if self.recorder is not None:
            self.recorder.journal.close()

    def unrecorded_benchmarks(self, benchmarks: list[str]) -> list[str]:
        """Benchmarks with no cassette folder for the model, when replaying only (nothing to serve)."""
        if self.config.record_mode.can_record or self.config.model is None:
            return []
        root = model_dir(self.config.cassettes, self.config.model)
        return [name for name in benchmarks if not (root / name).is_dir()]

    def no_recordings_message(self, benchmarks: list[str]) -> str:
        model = self.config.model or ""
        where = model_dir(self.config.cassettes, model)
        text = f"no recordings of {model} for {', '.join(benchmarks)} in {where}"
        cassettes = self.config.cassettes if self.config.cassettes_given else None
        hint = import_hint(model, benchmarks, cassettes)
        if hint:
            return f"{text}: {hint}"
        flag = f" --trust-cassettes {cassettes}" if cassettes is not None else ""
        return text + f": record them with `pytest --model {model}{flag} --record-mode=new_episodes --trust-base-url URL`"

    # --- controller side ------------------------------------------------------------------------

    def add_worker_output(self, payload: dict[str, Any]) -> None:
        self.results.update(payload.get("results", {}))
        self.error_kinds.update(payload.get("error_kinds", {}))

    def conclude(self) -> None:
        """Aggregate scored items per benchmark and evaluate the gates."""
        scored: dict[str, list[Result]] = defaultdict(list)
        for nodeid in sorted(self.results):
            if self.outcomes.by_node.get(nodeid) in ("passed", "failed"):
                result = self.results[nodeid]
                scored[result["benchmark"]].append(Result.from_dict(result))
        self.metrics = {}
        for name, results in sorted(scored.items()):
            results.sort(key=lambda r: r.item_id)
            self.metrics.update(BENCHMARKS[name].aggregate(results))
        self.gate_results = evaluate(self.thresholds.gates, self.metrics)

    @property
    def ran_items(self) -> bool:
        return bool(self.results or self.error_kinds)

    def item_counts(self) -> dict[str, int]:
        """Outcomes of benchmark items only (not of other tests in the same run)."""
        counts: dict[str, int] = defaultdict(int)
        for nodeid, outcome in self.outcomes.by_node.items():
            if nodeid in self.results or nodeid in self.error_kinds:
                counts[outcome] += 1
        return dict(counts)

    def failures_are_verdicts(self) -> bool:
        """True when every failure of the run is a benchmark item's verdict (no errors, no other
        failing test): what soft mode forgives."""
        return not any(outcome == "error" or (outcome == "failed" and nodeid not in self.results)
                       for nodeid, outcome in self.outcomes.by_node.items())

    @property
    def gates_failed(self) -> bool:
        return any(g.status == "FAIL" for g in self.gate_results)


def seeded_subset(items: list[Item], limit: int, seed: int) -> list[Item]:
    """Up to ``limit`` items per scenario, the same ones for the same seed, in their original order."""
    by_scenario: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_scenario[item.scenario].append(item)
    keep: set[str] = set()
    for scenario, group in by_scenario.items():
        rng = random.Random(f"{seed}:{scenario}")
        ids = sorted(item.id for item in group)
        keep.update(rng.sample(ids, min(limit, len(ids))))
    return [item for item in items if item.id in keep]
