"""pytest hooks and fixtures of pytest-trust. Wiring only: the work is in session.py and below."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from .benchmarks import BENCHMARKS, SUITES
from .errors import CassetteMiss, InvalidItem, ModelError, NotRecorded, TrustError, Unavailable, UsageProblem
from .gates import load_thresholds
from .items import Item
from .options import MARKERS, RunConfig, add_options
from .recording.cassettes import model_dir
from .recording.journal import merge_journals
from .report import json_report, terminal
from .session import TrustSession

SESSION_KEY = pytest.StashKey[TrustSession]()
WORKER_OUTPUT = "pytest_trust_results"
ERROR_KINDS = {CassetteMiss: "miss", ModelError: "model error", InvalidItem: "invalid item"}


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    run = RunConfig.from_pytest(config)
    valid = [key for benchmark in BENCHMARKS.values() for key in benchmark.metric_keys()]
    try:
        thresholds = load_thresholds(run.thresholds, run.model, valid)
    except UsageProblem as err:
        raise pytest.UsageError(str(err)) from None
    if run.record_mode.can_record and not run.base_url:
        raise pytest.UsageError(f"--record-mode={run.record_mode.value} needs an endpoint to record from: "
                                "pass --trust-base-url URL or set OPENAI_BASE_URL")
    workerinput = getattr(config, "workerinput", {})
    trust = TrustSession(run, thresholds, workerinput.get("workerid"), workerinput.get("trust_run"))
    config.stash[SESSION_KEY] = trust
    config.pluginmanager.register(_ReportListener(trust), "pytest-trust-reports")


def _session(config: pytest.Config) -> TrustSession:
    return config.stash[SESSION_KEY]


def pytest_sessionstart(session: pytest.Session) -> None:
    trust = _session(session.config)
    if trust.worker is None and trust.config.model:
        # journals left by a killed recording run are merged before anything replays
        trust.merged_items += merge_journals(model_dir(trust.config.cassettes, trust.config.model))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "trust_item" not in metafunc.fixturenames:
        return
    suite = getattr(metafunc.module, "TRUST_SUITE", None)
    if suite not in SUITES:
        raise pytest.UsageError(f"{metafunc.module.__file__}: TRUST_SUITE must be one of {', '.join(SUITES)}")
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
    except Exception:
        return False


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: judge only what will run
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    trust = _session(config)
    by_benchmark: dict[str, list[pytest.Item]] = {}
    for item in items:
        trust_item = getattr(item, "callspec", None) and item.callspec.params.get("trust_item")
        if isinstance(trust_item, Item):
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
        trust_item = getattr(item, "callspec", None) and item.callspec.params.get("trust_item")
        recorded = (not isinstance(trust_item, Item) or bool(trust_item.unavailable)
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
    test ERROR with one clear message, and only the scorer's verdict can FAIL the test."""
    if trust_item.unavailable:
        pytest.skip(trust_item.unavailable)
    benchmark = BENCHMARKS[trust_item.benchmark]
    recorder = trust_session.recorder
    assert recorder is not None
    nodeid = request.node.nodeid
    problem = skipped = None
    try:
        recorder.begin(trust_item.benchmark, trust_item.scenario, trust_item.id,
                       hint=_record_hint(nodeid, trust_session))
        result = benchmark.run(trust_item, trust_session.connect())
    except (NotRecorded, Unavailable) as err:
        skipped = str(err)
    except TrustError as err:
        problem = ERROR_KINDS.get(type(err), "error"), str(err)
    except Exception:
        trust_session.error_kinds[nodeid] = "internal"
        raise
    finally:
        recorder.end()
    if skipped is not None:
        pytest.skip(skipped)
    if problem is not None:  # outside the except block: one message, no chained traceback
        trust_session.error_kinds[nodeid] = problem[0]
        pytest.fail(f"{problem[0]}: {problem[1]}", pytrace=False)
    trust_session.results[nodeid] = {"benchmark": trust_item.benchmark, **result.to_dict()}
    yield result


def _record_hint(nodeid: str, trust: TrustSession) -> str:
    return (f"pytest '{nodeid}' --model {trust.config.model} --record-mode=new_episodes "
            "--trust-base-url URL")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    trust = _session(session.config)
    trust.close()
    if trust.worker is not None:
        session.config.workeroutput[WORKER_OUTPUT] = json.dumps(
            {"results": trust.results, "error_kinds": trust.error_kinds})
        return
    if trust.recorder is not None and trust.config.record_mode.can_record:
        trust.merged_items += trust.recorder.merge()  # this run's journals, its workers' included
    trust.conclude()
    if trust.config.report is not None:
        json_report.write(trust.config.report, trust)
    session.exitstatus = _exit_status(trust, int(session.exitstatus))


class _ReportListener:
    """Hooks that need the session object: outcomes as reported, and the workers' results."""

    def __init__(self, trust: TrustSession) -> None:
        self.trust = trust

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.trust.outcomes.add(report.nodeid, report.when, report.outcome)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.trust.recorder is not None:  # workers journal under the controller's run name
            node.workerinput["trust_run"] = self.trust.recorder.run

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        payload = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
        if payload:
            self.trust.add_worker_output(json.loads(payload))


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
