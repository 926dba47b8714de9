"""pytest hooks and fixtures of pytest-trust. Wiring only: the work is in session.py and below."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from . import scorers
from .benchmarks import BENCHMARKS, SUITES
from .concurrency import play_ahead
from .errors import TrustError, UsageProblem
from .gates import load_thresholds
from .items import Item
from .options import MARKERS, RunConfig, add_options
from .playing import play
from .recording.cassettes import model_dir
from .recording.journal import merge_journals
from .report import json_report, terminal
from .session import TrustSession

SESSION_KEY = pytest.StashKey[TrustSession]()
# An item's result rides on its own setup report (a user property), so it reaches the controller
# when the item finishes, and a worker that dies later takes none of its finished results with it.
RESULT_PROPERTY = "pytest_trust_result"
ERROR_PROPERTY = "pytest_trust_error"
SKIP_PROPERTY = "pytest_trust_skip"


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    run = RunConfig.from_pytest(config)
    valid = [key for name, benchmark in BENCHMARKS.items() for key in [*benchmark.metric_keys(), f"{name}.error_rate"]]
    try:
        thresholds = load_thresholds(run.thresholds, run.model, valid)
    except UsageProblem as err:
        raise pytest.UsageError(str(err)) from None
    if run.record_mode.can_record and not run.base_url:
        raise pytest.UsageError(f"--record-mode={run.record_mode.value} needs an endpoint to record from: "
                                "pass --trust-base-url URL or set OPENAI_BASE_URL")
    if run.batch and not run.record_mode.can_record:
        raise pytest.UsageError("--trust-batch records: pass --record-mode=new_episodes (or once) with it")
    if run.batch and (config.getoption("numprocesses", None) or getattr(config, "workerinput", None)):
        raise pytest.UsageError("--trust-batch queues requests in one process: run it without -n")
    workerinput = getattr(config, "workerinput", {})
    trust = TrustSession(run, thresholds, workerinput.get("workerid"), workerinput.get("trust_run"))
    config.stash[SESSION_KEY] = trust
    if run.model:  # the toxicity scorer of this session (its Perspective calls record beside the model's)
        try:
            trust.add_merge(scorers.configure(run.settings["toxicity_scorer"], cassettes=run.cassettes, model=run.model,
                                              record_mode=run.record_mode, rpm=run.perspective_rpm,
                                              run=trust.recorder.run, worker=trust.worker or "main"))
        except UsageProblem as err:
            raise pytest.UsageError(str(err)) from None
    config.pluginmanager.register(_ReportListener(trust), "pytest-trust-reports")


def _session(config: pytest.Config) -> TrustSession:
    return config.stash[SESSION_KEY]


def pytest_sessionstart(session: pytest.Session) -> None:
    trust = _session(session.config)
    if trust.worker is None and trust.config.model:
        # journals left by a killed recording run are merged before anything replays
        trust.add_merge(merge_journals(model_dir(trust.config.cassettes, trust.config.model)))
        if trust.batch is not None:
            try:
                trust.collect_batches()
            except (openai.APIError, TrustError) as err:  # the batch records are kept for the next run
                raise pytest.UsageError(f"--trust-batch: the endpoint's Files/Batches API failed: {err}") from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "trust_item" not in metafunc.fixturenames:
        return
    suite = getattr(metafunc.module, "TRUST_SUITE", None)
    if suite not in SUITES:  # one message, no traceback
        pytest.fail(f"{metafunc.module.__file__}: TRUST_SUITE must be one of {', '.join(SUITES)}, not {suite!r}",
                    pytrace=False)
    if _deselected_by_markers(metafunc):  # `-m rules` need not load DecodingTrust's 125,000 items
        metafunc.parametrize("trust_item", [], ids=[])
        return
    try:
        items = _session(metafunc.config).items(suite)
    except TrustError as err:
        problem = str(err)
    else:
        metafunc.parametrize("trust_item", items, ids=[item.id for item in items])
        return
    pytest.fail(f"cannot load suite {suite}: {problem}", pytrace=False)  # one message, no chained traceback


def _deselected_by_markers(metafunc: pytest.Metafunc) -> bool:
    """True when ``-m`` deselects every item of this suite module (its markers are the module's)."""
    expression = metafunc.config.getoption("markexpr", "")
    if not expression:
        return False
    try:  # pytest's own -m evaluator; should its private home move, load the items as before
        from _pytest.mark.expression import Expression

        names = {mark.name for mark in metafunc.definition.iter_markers()}
        return not Expression.compile(expression).evaluate(lambda name, **kwargs: not kwargs and name in names)
    except Exception:  # noqa: BLE001 - any failure of a private API means: cannot tell, load the items
        return False


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: judge only what will run
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    trust = _session(config)
    by_benchmark: dict[str, list[pytest.Item]] = {}
    for item in items:
        trust_item = _trust_item(item)
        if trust_item is not None:
            by_benchmark.setdefault(trust_item.benchmark, []).append(item)
    if not by_benchmark:
        return
    if not trust.config.model:
        raise pytest.UsageError("no model named: pass --model NAME (or set PYTEST_TRUST_MODEL, or the "
                                "trust_model ini option); it selects cassettes/<NAME>/ and the requests' model")
    unrecorded = trust.unrecorded_benchmarks(sorted(by_benchmark))
    if len(unrecorded) == len(by_benchmark):  # nothing to replay: one line, not one miss per item
        raise pytest.UsageError(trust.no_recordings_message(unrecorded))
    recorded_only = trust.config.recorded_only and not trust.config.record_mode.can_record
    for name in unrecorded:
        marker = pytest.mark.skip(reason=trust.no_recordings_message([name]))
        for item in by_benchmark[name]:
            item.add_marker(marker)
        trust.unrecorded_lines.append(f"{name}: {len(by_benchmark[name])} items "
                                      f"{'deselected' if recorded_only else 'skipped'}, "
                                      + trust.no_recordings_message([name]))
    if recorded_only:
        _deselect_unrecorded(config, items, trust, skip=set(unrecorded))


def _deselect_unrecorded(config: pytest.Config, items: list[pytest.Item], trust: TrustSession, skip: set[str]) -> None:
    """--trust-recorded-only: replay what was recorded (say, a --trust-limit subset), deselect the rest."""
    recorder = trust.recorder
    assert recorder is not None
    keep, drop = [], []
    for item in items:
        trust_item = _trust_item(item)
        recorded = (trust_item is None or bool(trust_item.unavailable)
                    or (trust_item.benchmark not in skip
                        and recorder.has_recording(trust_item.benchmark, trust_item.scenario, trust_item.id)))
        (keep if recorded else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
        trust.unrecorded_lines.append(f"--trust-recorded-only: {len(drop)} items without a recording deselected")


@pytest.fixture(scope="session")
def trust_session(request: pytest.FixtureRequest) -> TrustSession:
    return _session(request.config)


@pytest.fixture
def trust_result(request: pytest.FixtureRequest, trust_item: Item, trust_session: TrustSession) -> Iterator[Any]:
    """Plays and scores the item during setup, so a miss, a model failure or a malformed case is a
    test ERROR with one clear message, and only the scorer's verdict can FAIL the test. A concurrent
    recording pass may have played it already (``--trust-concurrency``)."""
    if trust_item.unavailable:
        pytest.skip(trust_item.unavailable)
    nodeid = request.node.nodeid
    played = trust_session.played_ahead.pop(nodeid, None) or play(trust_session, trust_item,
                                                                   _record_hint(nodeid, trust_session))
    properties = request.node.user_properties
    if played.crash is not None:
        properties.append((ERROR_PROPERTY, {"kind": "internal", "benchmark": trust_item.benchmark}))
        raise played.crash
    if played.skipped is not None:
        properties.append((SKIP_PROPERTY, played.skipped))
        pytest.skip(played.skipped)
    if played.error is not None:
        kind, message = played.error
        properties.append((ERROR_PROPERTY, {"kind": kind, "benchmark": trust_item.benchmark, "message": message}))
        if played.endpoint_down:
            request.session.shouldstop = f"pytest-trust: {message}"
        pytest.fail(f"{kind}: {message}", pytrace=False)
    payload = {"benchmark": trust_item.benchmark, **played.result.to_dict()}
    if played.irregular:
        payload["irregular"] = played.irregular
    properties.append((RESULT_PROPERTY, payload))
    yield played.result


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[object]:
    """--trust-concurrency: play the run's items in threads first; pytest then reports them in order."""
    trust = _session(session.config)
    config = trust.config
    if (config.concurrency > 1 and config.record_mode.can_record and trust.worker is None and session.items
            and not session.config.option.collectonly):
        playable = [(item, _trust_item(item)) for item in session.items if not item.get_closest_marker("skip")]
        entries = [(item.nodeid, trust_item, _record_hint(item.nodeid, trust))
                   for item, trust_item in playable if trust_item is not None and not trust_item.unavailable]
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        write = reporter.write_line if reporter is not None else print
        write(f"pytest-trust: recording {len(entries)} items, {config.concurrency} at a time")
        trust.played_ahead = play_ahead(trust, entries, config.concurrency, write)
    return (yield)


def _trust_item(item: pytest.Item) -> Item | None:
    """The benchmark item a pytest item plays, if it is one of a suite's."""
    candidate = getattr(item, "callspec", None) and item.callspec.params.get("trust_item")
    return candidate if isinstance(candidate, Item) else None


def _record_hint(nodeid: str, trust: TrustSession) -> str:
    return (f"pytest '{nodeid}' --model {trust.config.model} --record-mode=new_episodes "
            "--trust-base-url URL")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    trust = _session(session.config)
    trust.close()
    merged = scorers.finish(merge=trust.worker is None)
    if trust.worker is not None:
        return
    trust.add_merge(merged)
    if trust.recorder is not None and trust.config.record_mode.can_record:
        trust.add_merge(trust.recorder.merge())  # this run's journals, its workers' included
    submitted = True
    if trust.batch is not None:
        try:
            trust.submit_batch()
        except (openai.APIError, TrustError) as err:
            trust.batch_lines.append(f"--trust-batch: no batch submitted, the endpoint's Files/Batches API failed "
                                     f"({err}); the next run queues the requests again")
            submitted = False
    trust.conclude()
    if trust.config.report is not None:
        json_report.write(trust.config.report, trust)
    session.exitstatus = _exit_status(trust, int(session.exitstatus))
    if not submitted and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


class _ReportListener:
    """Hooks that need the session object: outcomes as reported, and the workers' results."""

    def __init__(self, trust: TrustSession) -> None:
        self.trust = trust

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.trust.outcomes.add(report.nodeid, report.when, report.outcome)
        if report.when == "setup":
            for name, value in report.user_properties:
                if name == RESULT_PROPERTY:
                    self.trust.results[report.nodeid] = value
                elif name == SKIP_PROPERTY:
                    self.trust.skipped[report.nodeid] = value
                elif name == ERROR_PROPERTY:
                    self.trust.error_kinds[report.nodeid] = value["kind"]
                    if "message" in value:
                        self.trust.error_messages[report.nodeid] = value["message"]
                    self.trust.errored_in[report.nodeid] = value["benchmark"]

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        self.trust.lost.append(crashitem)  # its worker died while running it: no result, no report of ours

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.trust.recorder is not None:  # workers journal under the controller's run name
            node.workerinput["trust_run"] = self.trust.recorder.run


def _exit_status(trust: TrustSession, status: int) -> int:
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        return status  # interrupted, internal or usage errors keep pytest's status
    if trust.gates_failed:
        return pytest.ExitCode.TESTS_FAILED
    if status == pytest.ExitCode.TESTS_FAILED and trust.soft and trust.failures_are_verdicts():
        return pytest.ExitCode.OK
    return status


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> Iterator[None]:
    # outermost wrapper: printed after pytest's short test summary, right above the final line
    yield
    trust = _session(config)
    if trust.worker is None and trust.ran_items:
        terminal.write_summary(terminalreporter, trust)
