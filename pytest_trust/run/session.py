"""What one pytest session holds for pytest-trust: items, the model, results, and the end-of-run verdict.

The plugin module only wires pytest's hooks to this object, as pytest's own stepwise/cacheprovider
plugins do; it lives once per process (controller, workers, or the single process).
"""

from __future__ import annotations

import difflib
import random
import shlex
import time
from collections import defaultdict
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest import ExitCode

from ..benchmarks import BENCHMARKS, SUITES
from ..data import DataStore
from ..data.item_cache import cached_items
from ..data.store import default_cache
from ..endpoint.client import Endpoint, Model
from ..endpoint.target import serving
from ..errors import DataUnavailable
from ..importers import import_hint
from ..items import Item
from ..options import RunConfig
from ..recording import Recorder, redact
from ..recording.batch import BatchQueue
from ..recording.cassettes import model_dir
from ..recording.journal import MergeReport
from ..results import baseline as baselines
from ..results.conclusion import conclude
from ..results.gates import Thresholds
from ..results.records import ItemRecord, irregular_answers, item_counts
from .playing import Played
from .selection import Selection
from .services import Services

if TYPE_CHECKING:
    from ..report.run_report import RunReport
    from ..report.terminal import LiveNotes


NO_RECORDINGS = "no recordings of"  # the start of the one line a run with nothing to replay ends on

class TrustSession:
    def __init__(self, config: RunConfig, thresholds: Thresholds, worker: str | None,
                 session_id: str | None = None) -> None:
        self.config = config
        self.thresholds = thresholds
        self.worker = worker  # None on the controller or a single process
        self.started = time.time()
        self._items: dict[str, list[Item]] = {}
        self._data: DataStore | None = None
        self._no_data_in: str | None = None  # the first suite whose data could not be read (one message per run)
        self.recorder = (Recorder(config.cassettes, config.recordings, config.record_mode, session_id,
                                 worker or "main")
                         if config.recordings else None)  # a system prompt's recordings: a folder of their own
        self.model: Model | None = None
        self.services = Services()  # what benchmarks declare they need (run/services.py); the plugin chooses them
        self.batch = (BatchQueue(model_dir(config.cassettes, config.recordings))
                      if config.batch and config.recordings and worker is None else None)
        self.batch_lines: list[str] = []  # what --trust-batch collected and submitted
        self.app_url: str | None = None  # the application target's local server, once started
        self.closing = ExitStack()  # what the run started and stops at its end (that server)
        self.played_ahead: dict[str, Played] = {}  # nodeid -> what a concurrent recording pass gave
        self.running: Any = None  # the pytest item being set up (its trust_result fixture's node)
        self.records: dict[str, ItemRecord] = {}  # nodeid -> what the test came to (results/records.py)
        self.report: RunReport | None = None  # the run's report, made by conclude()
        self.merged_items = 0
        self.merge_problems: list[str] = []  # files a merge could not handle, each with its repair
        self.unwritten: list[str] = []  # reports that could not be written, each with its repair
        recorded_only = config.recorded_only and not config.record_mode.can_record
        self.selection = Selection(config.shard, config.shard_text, self.recorder if recorded_only else None)
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

    @property
    def data(self) -> DataStore:
        if self._data is None:
            self._data = DataStore(self.config.data, missing_mirror=self.config.data_missing)
        return self._data

    def items(self, suite_name: str) -> list[Item]:
        """A suite's items, built once (then read from the user cache), cut to --trust-limit per cassette file and
        to what the selection keeps, file by file: the uncut list is never held whole (once built), and a
        file the selection leaves out whole is not even read."""
        if suite_name not in self._items:
            suite = SUITES[suite_name]
            cut = self._cut if self.config.limit is not None or self.selection.filters else None
            if suite.needs_data:
                try:
                    items = cached_items(default_cache().parent / "items", suite_name, self.config.settings,
                                         self.config.data, lambda: suite.load(self.data, self.config.settings), cut,
                                         partial(self._skips, suite.benchmark), self.data)
                except DataUnavailable:
                    if self._no_data_in is None:  # the first suite says why and what to do; the rest point to it
                        self._no_data_in = suite_name
                        raise
                    raise DataUnavailable(f"its benchmark data cannot be read either: the error loading suite "
                                          f"{self._no_data_in} says why and what to do") from None
            else:  # a suite built from its own rows (a user's, a test's): the cache's key cannot cover them
                items = suite.load(None, self.config.settings)
                items = cut(items) if cut is not None else items
            self._items[suite_name] = items
        return self._items[suite_name]

    def _skips(self, benchmark: str, cassette: str, count: int) -> bool:
        """A cassette unit left out whole, unread (``Selection.skips``), counted as --trust-limit would cut it."""
        limit = self.config.limit
        return self.selection.skips(benchmark, cassette, count if limit is None else min(count, limit))

    def _cut(self, items: list[Item]) -> list[Item]:
        """--trust-limit, then the selection's filters: of a whole suite or of one cassette unit's items, to the same
        effect."""
        if self.config.limit is not None:
            items = seeded_subset(items, self.config.limit, self.config.seed)
        return self.selection.keep(items) if self.selection.filters else items

    def endpoint(self) -> Endpoint:
        target = self.config.target
        if target is not None and target.call is not None:  # the application answers, behind a server of ours
            if self.app_url is None:
                self.app_url = self.closing.enter_context(serving(target))
            return Endpoint(self.app_url, timeout=self.config.timeout, max_retries=self.config.retries,
                            label=f"the application {target.name}")
        return Endpoint(self.config.base_url, timeout=self.config.timeout, max_retries=self.config.retries,
                        others=self.config.other_urls, rpm=self.config.rpm, tpm=self.config.tpm,
                        key_env=self.config.api_key_env)

    def redacted(self, text: str) -> str:
        """``text`` without this run's credentials or anything credential-shaped: what an endpoint's error says
        goes to the terminal and every report."""
        return redact.redact(text, redact.known(self.config.base_url, *self.config.other_urls,
                                                variables=(self.config.api_key_env,)))

    def collect_batches(self) -> None:
        """--trust-batch, at the start: the answers of finished batches go into the cassettes."""
        assert self.batch is not None and self.recorder is not None
        with self.endpoint().plain_client() as client:
            report = self.batch.collect(client, self.recorder.session_id)
        self.batch_lines += report.lines

    def submit_batch(self) -> None:
        """--trust-batch, at the end: the requests this run queued become one batch."""
        assert self.batch is not None
        queued = len(self.batch.new)
        with self.endpoint().plain_client() as client:
            batch_id = self.batch.submit(client)
        if batch_id:
            self.batch_lines.append(f"batch {batch_id}: submitted with {queued} requests; run again with "
                                    "--trust-batch to collect its answers")

    def connect(self) -> Model:
        if self.model is None:
            assert self.recorder is not None and self.config.model
            prompt = self.config.system_prompt
            self.model = Model.connect(self.config.model, self.recorder, self.endpoint(), self.batch,
                                       deployment=prompt)
        return self.model

    def close(self) -> None:
        if self.model is not None:
            self.model.close()
        self.closing.close()
        if self.recorder is not None:
            self.recorder.journal.close()

    def unrecorded_benchmarks(self, benchmarks: list[str]) -> list[str]:
        """Benchmarks with no cassette folder for the model, when replaying only (nothing to serve)."""
        if self.config.record_mode.can_record or self.config.recordings is None:
            return []
        root = model_dir(self.config.cassettes, self.config.recordings)
        return [name for name in benchmarks if not (root / name).is_dir()]

    def no_recordings_message(self, benchmarks: list[str], selection: str = "") -> str:
        """Why nothing of ``benchmarks`` can replay, and the command that records (or imports) just them;
        ``selection`` is the run's test paths, so the command runs as printed."""
        model = self.config.model or ""
        prompt = self.config.system_prompt
        where = model_dir(self.config.cassettes, self.config.recordings or model)
        with_prompt = f" with {prompt.label} {prompt.describe()}" if prompt is not None else ""
        text = f"{NO_RECORDINGS} {model}{with_prompt} for {', '.join(benchmarks)} in {where}"
        cassettes = self.config.cassettes if self.config.cassettes_given else None
        hint = import_hint(model, benchmarks, cassettes) if prompt is None else None  # imports have no prompt
        if hint:
            return f"{text}: {hint}"
        flag = f" --trust-cassettes {shlex.quote(str(cassettes))}" if cassettes is not None else ""
        flag += self.system_prompt_flag()
        marker = shlex.quote(" or ".join(benchmarks))
        paths = f"{selection} " if selection else ""
        return text + (f": record them with `pytest {paths}-m {marker} --model {shlex.quote(model)}{flag} "
                       "--record-mode=new_episodes --trust-base-url URL`") + self._other_models(where)

    def _other_models(self, where: Path) -> str:
        """When the model has no folder at all but others do: a misspelt --model, most likely. Their names, and
        the closest one."""
        root = self.config.cassettes
        if where.is_dir() or not root.is_dir() or self.config.system_prompt is not None:  # a new prompt: no typo
            return ""
        known = sorted(p.name for p in root.iterdir()
                       if p.is_dir() and not p.name.startswith(".") and "+prompt-" not in p.name
                       and "+deploy-" not in p.name)
        if not known:
            return ""
        close = difflib.get_close_matches(where.name, known, n=1)
        return ((f"; did you mean --model {close[0]}?" if close else "")
                + f" (recorded models under {root}: {', '.join(known)})")

    def system_prompt_flag(self) -> str:
        """What a printed command needs to reach this prompt's recordings: the option when the prompt came from
        a file (a conftest.py hook provides its prompt by itself)."""
        prompt = self.config.system_prompt
        return f" --trust-system-prompt {shlex.quote(prompt.source)}" if prompt is not None and prompt.from_option else ""

    # --- controller side ------------------------------------------------------------------------

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

    def exit_status(self, status: int, batch_submitted: bool = True) -> int:
        """The run's exit status from pytest's: failed gates, selected benchmarks without recordings, an unsent
        batch or an unwritten report fail it; soft mode forgives failures that are all benchmark verdicts;
        interrupted, internal and usage errors keep pytest's status."""
        if status not in (ExitCode.OK, ExitCode.TESTS_FAILED, ExitCode.NO_TESTS_COLLECTED):
            return status
        if self.gates_failed or self.selection.missing:
            return ExitCode.TESTS_FAILED
        if status == ExitCode.TESTS_FAILED and self.soft and self.failures_are_verdicts():
            status = ExitCode.OK
        if status == ExitCode.OK and (not batch_submitted or self.unwritten):
            return ExitCode.TESTS_FAILED
        return status

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
                              self.config.allow_partial, baseline, self.config.baseline)
        results = [record.result for record in reported if record.result is not None]
        self.report = RunReport(run_section(self.config, self.soft, self.started, results), reported,
                                conclusion.metrics, conclusion.gates, item_counts(self.records.values()),
                                irregular_answers(self.records.values()), sorted(self.lost), conclusion.baseline,
                                saved_entries=entries)
        return self.report

    def notes(self) -> LiveNotes:
        """What the terminal tells beyond the report: where the recordings are, what happened on the way."""
        from ..report.terminal import LiveNotes

        cfg, prompt = self.config, self.config.system_prompt
        return LiveNotes(str(cfg.cassettes),
                         (f"{prompt.label} {prompt.describe()}   recordings {cfg.cassettes / str(cfg.recordings)}"
                          if prompt is not None else None),
                         thresholds_file=self.thresholds.path is not None, allow_partial=cfg.allow_partial,
                         left_out=self.selection.left_out_lines(), missing=self.selection.missing,
                         baseline=self.baseline_lines, merged_items=self.merged_items, batch=self.batch_lines,
                         merge_problems=self.merge_problems, unwritten=self.unwritten)

    @property
    def ran_items(self) -> bool:
        return (any(r.result is not None or r.error is not None or r.skip is not None for r in self.records.values())
                or bool(self.batch_lines or self.selection.missing))

    def failures_are_verdicts(self) -> bool:
        """True when every failure of the run is a benchmark item's verdict (no errors, no other
        failing test): what soft mode forgives."""
        return not any(r.outcome == "error" or (r.outcome == "failed" and r.result is None)
                       for r in self.records.values())

    @property
    def gates_failed(self) -> bool:
        """A gate failed, or could not be computed from a benchmark that ran (unless --trust-partial)."""
        return self.report is not None and self.report.gates_failed


def seeded_subset(items: list[Item], limit: int, seed: int) -> list[Item]:
    """Up to ``limit`` items per cassette file (``Item.cassette``), the same ones for the same seed, in their
    original order."""
    by_cassette: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_cassette[item.cassette].append(item)
    keep: set[str] = set()
    for cassette, group in by_cassette.items():
        rng = random.Random(f"{seed}:{cassette}")
        ids = sorted(item.id for item in group)
        keep.update(rng.sample(ids, min(limit, len(ids))))
    return [item for item in items if item.id in keep]
