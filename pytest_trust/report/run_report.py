"""The report of a run, typed: what the terminal summary, the JSON file, the HTML page, the Markdown summary and
the JUnit gate cases all render. Made once at the end of a live run (``Ledger.conclude``) or of a merge
(``pytest-trust report merge``), or read back from a saved JSON report (``RunReport.read``), so every renderer
sees the same numbers whichever way the report came.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..results.gates import GateResult
from ..results.metrics import Metric
from ..results.records import ItemRecord
from .file import SCHEMA, SCHEMA_VERSION


@dataclass
class RunReport:
    run: dict[str, Any]  # what ran, where, with which versions: the report's ``run`` section (docs/report-schema.md)
    records: list[ItemRecord]  # every reported test, in node-id order
    metrics: dict[str, Metric]
    gates: list[GateResult]
    counts: dict[str, int]  # outcomes of benchmark items (not of other tests of the run)
    irregular_answers: dict[str, dict[str, int]]  # per benchmark, answers that were not plain text, by reason
    lost: list[str]  # node ids of items whose xdist worker died while running them
    baseline: dict[str, Any] | None = None  # this run against --trust-baseline's report (baseline.compare)
    schema_version: int = SCHEMA_VERSION
    # the records as the JSON report writes them (docs/report-schema.md, ``items``): a saved report's as saved; a
    # run's made when first asked (``entries``), so a run that writes no report never holds them (a dict an item)
    saved_entries: list[dict[str, Any]] | None = field(default=None, repr=False)

    @property
    def entries(self) -> list[dict[str, Any]]:
        if self.saved_entries is None:
            self.saved_entries = [record.to_entry() for record in self.records]
        return self.saved_entries

    @property
    def model(self) -> str | None:
        return self.run.get("model")

    @property
    def gates_failed(self) -> bool:
        """A gate failed, or could not be computed from a benchmark that ran (unless --trust-partial)."""
        return any(g.blocks for g in self.gates)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (docs/report-schema.md)."""
        report: dict[str, Any] = {
            "schema": SCHEMA,
            "schema_version": self.schema_version,
            "run": self.run,
            "counts": self.counts,
            "irregular_answers": self.irregular_answers,
            "lost": self.lost,
            "metrics": {key: m.to_dict() for key, m in self.metrics.items()},
            "gates": [g.to_dict() for g in self.gates],
            "items": self.entries,
        }
        if self.baseline is not None:
            report["baseline"] = self.baseline
        return report

    @classmethod
    def read(cls, report: Mapping[str, Any]) -> RunReport:
        """A saved JSON report's dict (``report_file.read`` has checked its shape) as the typed report."""
        metrics = {key: Metric.from_dict(entry) for key, entry in (report.get("metrics") or {}).items()}
        entries = list(report.get("items") or [])
        return cls(run=dict(report.get("run") or {}),
                   records=[ItemRecord.from_entry(entry) for entry in entries],
                   metrics=metrics,
                   gates=[GateResult.from_dict(entry, metrics) for entry in report.get("gates") or []],
                   counts=dict(report.get("counts") or {}),
                   irregular_answers=dict(report.get("irregular_answers") or {}),
                   lost=list(report.get("lost") or []),
                   baseline=report.get("baseline"),
                   schema_version=report.get("schema_version", SCHEMA_VERSION),
                   saved_entries=entries)
