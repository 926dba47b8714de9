"""The run's ledger: what each test came to, what merges and outputs did on the way, and the run's report made
from them at the end (with the baseline it is compared with and written to)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..benchmarks import BENCHMARKS
from ..options import RunConfig
from ..recording.cassettes import model_dir
from ..recording.journal import MergeReport
from ..results import baseline as baselines
from ..results.conclusion import conclude
from ..results.gates import Thresholds
from ..results.records import ItemRecord, irregular_answers, item_counts

if TYPE_CHECKING:
    from ..report.run_report import RunReport


class Ledger:
    def __init__(self, config: RunConfig, thresholds: Thresholds, worker: str | None) -> None:
        self.config = config
        self.thresholds = thresholds
        self.worker = worker  # None on the controller or a single process
        self.started = time.time()
        self.records: dict[str, ItemRecord] = {}  # nodeid -> what the test came to (results/records.py)
        self.report: RunReport | None = None  # the run's report, made by conclude()
        self.merged_items = 0
        self.merge_problems: list[str] = []  # files a merge could not handle, each with its repair
        self.unwritten: list[str] = []  # reports that could not be written, each with its repair
        self.baseline_report: dict[str, Any] | None = None  # --trust-baseline's report, on the controller
        self.baseline_lines: list[str] = []  # what --trust-baseline-update did

    @property
    def soft(self) -> bool:
        if self.config.soft_flag is not None:
            return self.config.soft_flag
        return bool(self.thresholds.settings.get("soft", False))

    def add_merge(self, report: MergeReport) -> None:
        self.merged_items += report.items
        self.merge_problems.extend(report.problems)

    def record(self, nodeid: str) -> ItemRecord:
        """The record of a test, made at its first report."""
        record = self.records.get(nodeid)
        if record is None:
            record = self.records[nodeid] = ItemRecord(nodeid)
        return record

    def reported(self) -> list[ItemRecord]:
        """The records of the tests pytest reported an outcome of, in node-id order: the JSON report's items."""
        return [self.records[nodeid] for nodeid in sorted(self.records) if self.records[nodeid].outcome is not None]

    def resolve_lost(self) -> None:
        """Lost items (their xdist worker died while running them: no result) count as errors of the benchmark
        of the items their test module ran: the controller of an xdist run never collects, so it knows items
        only by what their reports carried."""
        by_module = {record.nodeid.split("::", 1)[0]: record.benchmark_name() for record in self.records.values()
                     if not record.lost and record.benchmark_name()}
        for record in self.records.values():
            if record.lost and record.benchmark is None:
                record.benchmark = by_module.get(record.nodeid.split("::", 1)[0], "unknown")

    @property
    def lost(self) -> list[str]:
        return [record.nodeid for record in self.records.values() if record.lost]

    def conclude(self) -> RunReport:
        """The run's report: its items' records, the metrics aggregated per benchmark, the gates evaluated."""
        from ..report.run_report import RunReport
        from ..report.run_section import run_section

        self.resolve_lost()
        reported = self.reported()
        baseline = self.baseline_report if self.config.baseline is not None else None
        entries = [record.to_entry() for record in reported] if baseline is not None else None  # else when asked
        conclusion = conclude(self.records.values(), entries or [], BENCHMARKS, self.thresholds.gates,
                              self.config.allow_partial, baseline, self.config.baseline, self.config.settings)
        results = [record.result for record in reported if record.result is not None]
        self.report = RunReport(run_section(self.config, self.soft, self.started, results), reported,
                                conclusion.metrics, conclusion.gates, item_counts(self.records.values()),
                                irregular_answers(self.records.values()), sorted(self.lost), conclusion.baseline,
                                saved_entries=entries)
        return self.report

    def failures_are_verdicts(self) -> bool:
        """True when every failure of the run is a benchmark item's verdict (no errors, no other
        failing test): what soft mode forgives."""
        return not any(r.outcome == "error" or (r.outcome == "failed" and r.result is None)
                       for r in self.records.values())

    @property
    def gates_failed(self) -> bool:
        """A gate failed, or could not be computed from a benchmark that ran (unless --trust-partial)."""
        return self.report is not None and self.report.gates_failed

    def load_baseline(self) -> None:
        """--trust-baseline, on the controller at the start: a bad file is a usage error before anything runs."""
        path = self.config.baseline
        if path is not None and self.worker is None and (path.exists() or not self.config.baseline_update):
            self.baseline_report = baselines.load(path)

    def update_baseline(self) -> None:
        """--trust-baseline-update, at the end: this run's report becomes the next baseline, unless a gate failed."""
        from ..report.file import dump

        path = self.config.baseline
        if not self.config.baseline_update or path is None or self.report is None:
            return
        if self.gates_failed:
            self.baseline_lines.append(f"baseline not updated: a gate failed; {path} is unchanged")
            return
        report = self.report.to_dict()
        report.pop("baseline", None)
        dump(path, report)
        self.baseline_lines.append(f"baseline updated: this run's report written to {path}")

    def write_reports(self) -> None:
        """--trust-report, --trust-html, --trust-markdown, from the run's one report; ``OSError`` (a full disk, a
        read-only folder) says which could not be written."""
        from ..report import outputs

        wanted = {"json": self.config.report, "html": self.config.html, "markdown": self.config.markdown}
        paths = {kind: path for kind, path in wanted.items() if path is not None}
        if paths and self.report is not None:
            recordings = self.config.recordings and model_dir(self.config.cassettes, self.config.recordings)
            outputs.write(self.report, paths, recordings or None)
