"""pytest hooks and fixtures of pytest-trust. Wiring only: the work is in run/ (session.py and its parts) and below."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
import pytest_recording  # noqa: F401  before vcr: it marks vcr.matchers for assertion rewriting, which warns

# "Module already imported" in every run where pytest happens to load this plugin before pytest-recording's
from . import scorers
from .benchmarks import PROBLEMS, SUITES, gate_keys
from .endpoint import system_prompt
from .errors import TrustError, UsageProblem
from .items import Item
from .options import RunConfig, add_options, resolve_path
from .recording.cassettes import model_dir
from .recording.journal import merge_journals
from .report import terminal
from .report.junit import gate_cases, item_properties
from .results import shards
from .results.gates import load_thresholds
from .results.records import INTERNAL
from .run import services
from .run.concurrency import Interrupted, Progress, play_ahead
from .run.gc_policy import GcPolicy
from .run.hints import run_selection
from .run.player import Player
from .run.playing import play
from .run.selection import marker_lines, split_recorded
from .run.session import TrustSession

SESSION_KEY = pytest.StashKey[TrustSession]()
# an item's curated properties (pytest_runtest_makereport), made once for its call and teardown reports: the number
# of its properties they were made from, and the list
CURATED_KEY = pytest.StashKey[tuple[int, list[tuple[str, Any]]]]()
EVERY_SUITE = "*"  # TRUST_SUITE of a module whose cases are every registered suite's items (pytest_trust/suites)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    if PROBLEMS or scorers.PROBLEMS:  # an installed package that cannot take part: say so before anything runs
        raise pytest.UsageError("; ".join(PROBLEMS + scorers.PROBLEMS))
    for suite in SUITES.values():
        config.addinivalue_line("markers", f"{suite.name}: {suite.marker}")
    cfg = RunConfig.from_pytest(config)
    env_data = resolve_path(config.invocation_params.dir, os.environ.get("PYTEST_TRUST_DATA"))
    if env_data is not None:  # resolved once: subprocesses started elsewhere (xdist, pytester) see the same mirror
        os.environ["PYTEST_TRUST_DATA"] = str(env_data)
    try:
        thresholds = load_thresholds(cfg.thresholds, cfg.model, gate_keys())
    except UsageProblem as err:
        raise pytest.UsageError(str(err)) from None
    if cfg.record_mode.can_record and not cfg.base_url and cfg.target is None:
        raise pytest.UsageError(f"--record-mode={cfg.record_mode.value} needs an endpoint to record from: "
                                "pass --trust-base-url URL or set OPENAI_BASE_URL (or --trust-target MODULE:FUNCTION "
                                "to record your application's answers)")
    if cfg.batch and not cfg.record_mode.can_record:
        raise pytest.UsageError("--trust-batch records: pass --record-mode=new_episodes (or once) with it")
    if cfg.batch and (config.getoption("numprocesses", None) or getattr(config, "workerinput", None)):
        raise pytest.UsageError("--trust-batch queues requests in one process: run it without -n")
    workerinput = getattr(config, "workerinput", {})
    trust = TrustSession(cfg, thresholds, workerinput.get("workerid"), workerinput.get("trust_session_id"))
    config.stash[SESSION_KEY] = trust
    if cfg.model:  # the services its benchmarks need (a toxicity scorer: its calls record beside the model's)
        try:
            trust.player.services, merged = services.of_run(cfg, trust.player.recorder.session_id, trust.worker)
        except UsageProblem as err:
            raise pytest.UsageError(str(err)) from None
        trust.ledger.add_merge(merged)
    config.pluginmanager.register(_ReportListener(trust), "pytest-trust-reports")
    config.pluginmanager.register(GcPolicy(config), "pytest-trust-gc")


def _session(config: pytest.Config) -> TrustSession:
    return config.stash[SESSION_KEY]


def pytest_report_header(config: pytest.Config) -> list[str]:
    cfg = _session(config).config
    if (cfg.system_prompt is None and cfg.target is None) or cfg.recordings is None:
        return []
    where = model_dir(cfg.cassettes, cfg.recordings)
    named = [f"{cfg.system_prompt.label} {cfg.system_prompt.describe()}"] if cfg.system_prompt is not None else []
    named += [f"application {cfg.target.describe()}"] if cfg.target is not None else []
    return [f"pytest-trust: {', '.join(named)}; recordings in {where}"]


def pytest_sessionstart(session: pytest.Session) -> None:
    trust = _session(session.config)
    try:
        trust.ledger.load_baseline()
    except UsageProblem as err:
        raise pytest.UsageError(str(err)) from None
    if trust.worker is None and trust.config.model:
        # journals left by a killed recording run are merged before anything replays
        trust.ledger.add_merge(merge_journals(model_dir(trust.config.cassettes, trust.config.recordings)))
        player = trust.player
        if player.batch is not None:
            import openai  # only a batch run talks to the endpoint here

            try:
                player.collect_batches()
            except (openai.APIError, TrustError) as err:  # the batch records are kept for the next run
                raise pytest.UsageError("--trust-batch: the endpoint's Files/Batches API failed: "
                                        + player.redacted(str(err))) from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "trust_item" not in metafunc.fixturenames:
        return
    suite = getattr(metafunc.module, "TRUST_SUITE", None)
    if suite == EVERY_SUITE:
        _parametrize_every_suite(metafunc)
        return
    if suite not in SUITES:  # one message, no traceback
        pytest.fail(f"{metafunc.module.__file__}: TRUST_SUITE must be one of {', '.join(SUITES)} (or "
                    f"{EVERY_SUITE!r}, every one), not {suite!r}", pytrace=False)
    _session(metafunc.config).selection.suites_seen.add(suite)
    if _deselected_by_markers(metafunc):  # `-m rules` need not load DecodingTrust's 259,000 items
        metafunc.parametrize("trust_item", [], ids=[])
        return
    items = _suite_items(metafunc, suite)
    _note_emptied(metafunc, items)
    metafunc.parametrize("trust_item", items, ids=[item.id for item in items])


def _note_emptied(metafunc: pytest.Metafunc, params: list[Any]) -> None:
    """A function whose items --trust-shard or --trust-recorded-only left out every one of: pytest makes one
    placeholder of it (an 'empty parameter set' skip), which the collection hook deselects, as nothing of it runs."""
    selection = _session(metafunc.config).selection
    if not params and selection.filters:
        selection.emptied.add(metafunc.definition.nodeid)


def _parametrize_every_suite(metafunc: pytest.Metafunc) -> None:
    """``TRUST_SUITE = "*"`` (the packaged ``pytest_trust.suites``): the items of every registered suite, each
    case marked with its suite's marker, so ``-m`` selects a benchmark as it does among suite modules."""
    params = []
    _session(metafunc.config).selection.suites_seen.update(SUITES)
    for name in SUITES:
        if not _deselected_by_markers(metafunc, also=name):
            mark = getattr(pytest.mark, name)
            params += [pytest.param(item, id=item.id, marks=mark) for item in _suite_items(metafunc, name)]
    _note_emptied(metafunc, params)
    metafunc.parametrize("trust_item", params)


def _suite_items(metafunc: pytest.Metafunc, suite: str) -> list[Item]:
    try:
        return _session(metafunc.config).source.items(suite)
    except UsageProblem as err:  # the user's to fix: a usage error once collection is done (the other suites load)
        _session(metafunc.config).selection.unusable.setdefault(suite, str(err))
        return []
    except TrustError as err:
        problem = str(err)
    pytest.fail(f"cannot load suite {suite}: {problem}", pytrace=False)  # one message, no chained traceback


def _deselected_by_markers(metafunc: pytest.Metafunc, also: str | None = None) -> bool:
    """True when ``-m`` deselects every item of this suite module (its markers are the module's, and ``also``)."""
    expression = metafunc.config.getoption("markexpr", "")
    if not expression:
        return False
    try:  # pytest's own -m evaluator; should its private home move, load the items as before
        from _pytest.mark.expression import Expression

        names = {mark.name for mark in metafunc.definition.iter_markers()} | ({also} if also else set())
        return not Expression.compile(expression).evaluate(lambda name, **kwargs: not kwargs and name in names)
    except Exception:  # noqa: BLE001 - any failure of a private API means: cannot tell, load the items
        return False


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: judge only what will run
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    trust = _session(config)
    selection = trust.selection
    if selection.unusable:  # a suite this run collects cannot be built from what the user wrote
        raise pytest.UsageError("\n".join(dict.fromkeys(selection.unusable.values())))
    if selection.emptied:
        placeholders = [item for item in items
                        if item.nodeid.split("[", 1)[0] in selection.emptied and _trust_item(item) is None]
        _deselect(config, items, placeholders)
    if selection.suites_seen and trust.worker is None:  # -m selected nothing, or named a marker nobody registered
        selection.marker_lines = marker_lines(config.getoption("markexpr", ""), config.getini("markers"), len(items))
    if selection.shard is not None:  # benchmark items of other shards were never built: here, other tests
        def key(item: pytest.Item) -> str:
            trust_item = _trust_item(item)
            return shards.item_key(trust_item) if trust_item is not None else item.nodeid

        _deselect(config, items, shards.select(items, selection.shard, key)[1])
    by_benchmark: dict[str, list[pytest.Item]] = {}
    for item in items:
        trust_item = _trust_item(item)
        if trust_item is not None:
            by_benchmark.setdefault(trust_item.benchmark, []).append(item)
    if not by_benchmark:
        return
    if config.option.collectonly:  # listing what would run needs no model, nor its recordings
        return
    if not trust.config.model:
        raise pytest.UsageError("no model named: pass --model NAME (or set PYTEST_TRUST_MODEL, or the "
                                "trust_model ini option); it selects cassettes/<NAME>/ and the requests' model")
    unrecorded = trust.source.unrecorded_benchmarks(sorted(by_benchmark))
    paths = run_selection(config)
    hints = trust.hints
    if len(unrecorded) == len(by_benchmark):  # nothing to replay: one line, not one miss per item
        raise pytest.UsageError(hints.no_recordings_message(unrecorded, paths))
    recorded_only = selection.recorder is not None
    for name in unrecorded:
        marker = pytest.mark.skip(reason=hints.no_recordings_message([name], paths))
        for item in by_benchmark[name]:
            item.add_marker(marker)
        if recorded_only:
            selection.benchmark_lines.append(f"{name}: {len(by_benchmark[name])} items deselected, "
                                             + hints.no_recordings_message([name], paths))
        else:  # selected means required: a CI job whose recordings are missing must not pass
            selection.missing.append(
                f"{name}: {len(by_benchmark[name])} items selected without recordings, so the run fails: "
                + hints.no_recordings_message([name], paths)
                + " (or pass --trust-recorded-only to replay only what is recorded)")
    if recorded_only:  # the items of benchmarks with recordings but none of their own were never built
        dropped = split_recorded(items, _trust_item, lambda found: True, lambda benchmark: benchmark not in unrecorded)[1]
        _deselect(config, items, dropped)
        selection.unrecorded += len(dropped)


def _deselect(config: pytest.Config, items: list[pytest.Item], dropped: list[pytest.Item]) -> None:
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(map(id, dropped))
        items[:] = [item for item in items if id(item) not in gone]


@pytest.fixture(scope="session")
def trust_session(request: pytest.FixtureRequest) -> TrustSession:
    return _session(request.config)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # the item whose fixtures are set up next: trust_result's node, without the ``request`` fixture, which
    # pytest builds anew (a FixtureDef and a signature) every time a fixture asks for it
    _session(item.config).player.running = item


@pytest.fixture
def trust_result(trust_item: Item, trust_session: TrustSession) -> Any:
    """Plays and scores the item during setup, so a miss, a model failure or a malformed case is a
    test ERROR with one clear message, and only the scorer's verdict can FAIL the test. A concurrent
    recording pass may have played it already (``--trust-concurrency``)."""
    if trust_item.unavailable:
        pytest.skip(trust_item.unavailable)
    player = trust_session.player
    node = player.running
    nodeid = node.nodeid
    played = (player.played_ahead.pop(nodeid, None) if player.played_ahead else None) or play(
        player, trust_item, partial(trust_session.hints.record_hint, node))  # the hint only if it misses
    node.user_properties.append(played.as_property(trust_item))
    if played.crash is not None:
        raise played.crash
    if played.skipped is not None:
        pytest.skip(played.skipped)
    if played.error is not None:
        kind, message = played.error
        if played.stops_run:
            node.session.shouldstop = f"pytest-trust: {message}"
        pytest.fail(f"{kind}: {message}", pytrace=False)
    return played.result  # returned, not yielded: nothing to tear down, and pytest keeps no generator an item


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outside GcPolicy's: items played ahead run at the default threshold
def pytest_runtestloop(session: pytest.Session) -> Iterator[object]:
    """A replay learns how many items of each cassette file it will play, to let each file's answers go after its last;
    --trust-concurrency plays the run's items in threads first, and pytest then reports them in order."""
    trust = _session(session.config)
    config = trust.config
    recorder = trust.player.recorder
    if recorder is not None and not config.record_mode.can_record:
        recorder.expect(Counter((found.benchmark, found.cassette) for found in map(_trust_item, session.items)
                                if found is not None and not found.unavailable))
    if (config.concurrency > 1 and config.record_mode.can_record and trust.worker is None and session.items
            and not session.config.option.collectonly):
        _play_ahead(session, trust)
    return (yield)


def _play_ahead(session: pytest.Session, trust: TrustSession) -> None:
    """--trust-concurrency: the run's items played in threads, before pytest runs them; Ctrl-C reports those
    finished, then ends the run as interrupted."""
    concurrency, player = trust.config.concurrency, trust.player
    playable = [(item, _trust_item(item)) for item in session.items if not item.get_closest_marker("skip")]
    entries = [(item.nodeid, trust_item, trust.hints.record_hint(item))
               for item, trust_item in playable if trust_item is not None and not trust_item.unavailable]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    write = reporter.write_line if reporter is not None else print
    write(f"pytest-trust: recording {len(entries)} items, {concurrency} at a time")
    try:
        player.played_ahead = play_ahead(player, entries, concurrency, write)
    except Interrupted as stop:  # the items finished before Ctrl-C are reported, then the run ends as interrupted
        player.played_ahead = stop.played
        finished = [item for item in session.items if item.nodeid in stop.played]
        for item, next_item in zip(finished, [*finished[1:], None]):
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=next_item)
        raise


def _trust_item(item: pytest.Item) -> Item | None:
    """The benchmark item a pytest item plays, if it is one of a suite's."""
    candidate = getattr(item, "callspec", None) and item.callspec.params.get("trust_item")
    return candidate if isinstance(candidate, Item) else None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    trust = _session(session.config)
    player, ledger = trust.player, trust.ledger
    player.close()
    merged = player.services.finish(merge=trust.worker is None)
    if trust.worker is not None:
        return
    ledger.add_merge(merged)
    if player.recorder is not None and trust.config.record_mode.can_record:
        ledger.add_merge(player.recorder.merge())  # this run's journals, its workers' included
    submitted = True
    if player.batch is not None:
        import openai

        try:
            player.submit_batch()
        except (openai.APIError, TrustError) as err:
            player.batch_lines.append("--trust-batch: no batch submitted, the endpoint's Files/Batches API failed "
                                      f"({player.redacted(str(err))}); the next run queues the requests again")
            submitted = False
    report = ledger.conclude()
    try:
        ledger.update_baseline()
        ledger.write_reports()
    except OSError as err:  # a full disk, a read-only folder: the summary still prints, the run fails
        ledger.unwritten.append(f"{err.filename or 'a report'} cannot be written ({err.strerror or err}): free space "
                                "on that disk or make its folder writable, then run again")
    gate_cases(session.config, report, str(trust.config.thresholds or "thresholds"))
    session.exitstatus = trust.exit_status(int(session.exitstatus), submitted)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """The result payload rides on the setup report only (it carries the result to the controller); the call and
    teardown reports, which --junitxml reads properties from, carry the curated properties instead."""
    report = yield
    properties = report.user_properties
    if report.when == "setup" or not properties or not any(name in INTERNAL for name, _ in properties):
        return report
    trust_item = _trust_item(item)
    if trust_item is not None:
        made = item.stash.get(CURATED_KEY, None)
        if made is None or made[0] != len(properties):  # the call's list serves the teardown, unless one was added
            made = item.stash[CURATED_KEY] = (len(properties), [(n, v) for n, v in properties if n not in INTERNAL]
                                              + item_properties(trust_item, properties))
        report.user_properties = made[1]
    return report


class _ReportListener:
    """Hooks that need the session object: outcomes as reported, and the workers' results."""

    def __init__(self, trust: TrustSession) -> None:
        self.trust = trust
        self.progress: Progress | None = None  # recording one item at a time (or under -n): a line every 10 s

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:  # under -n the controller collects nothing: its workers say how many
            self._start_progress(session.config, len(session.items), self.trust.player)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self._start_progress(node.config, len(ids), None)

    def _start_progress(self, config: pytest.Config, total: int, local: Player | None) -> None:
        cfg = self.trust.config
        if (self.progress is not None or self.trust.worker is not None or not cfg.record_mode.can_record
                or cfg.concurrency > 1 or config.option.collectonly):
            return  # replay stays quiet; --trust-concurrency prints its own lines
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        transport = (lambda: local.model.transport if local is not None and local.model is not None else None)
        self.progress = Progress(total, lambda line: _own_line(reporter, line),
                                 calls=(lambda: getattr(transport(), "live_calls", 0)) if local else None,
                                 tokens=(lambda: getattr(transport(), "live_tokens", 0)) if local else None)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = self.trust.ledger.record(report.nodeid)
        record.report(report.when, report.outcome)
        if report.when == "teardown" and self.progress is not None:
            self.progress.tick()
        if report.when == "setup":
            record.take(report.user_properties)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        # its worker died while running it: no result, no report of ours
        self.trust.ledger.record(crashitem).lost = True

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        recorder = self.trust.player.recorder
        if recorder is not None:  # workers journal under the controller's session id
            node.workerinput["trust_session_id"] = recorder.session_id
        if self.trust.config.system_prompt is not None:  # and send the controller's prompt, not their own
            node.workerinput[system_prompt.WORKER_KEY] = self.trust.config.system_prompt.to_worker()


def _own_line(reporter: Any, line: str) -> None:
    """A line of its own, also after the progress dots xdist writes without ending their line."""
    if reporter.config.get_terminal_writer().width_of_current_line:
        reporter.write("\n")
    reporter.write_line(line)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> Iterator[None]:
    # outermost wrapper: benchmark items' failures are taken out of pytest's FAILURES section and short test
    # summary first (the summary's account replaces them), then printed right above the final line
    trust = _session(config)
    folded = terminal.fold_item_failures(terminalreporter, trust.ledger.records) if trust.worker is None else None
    try:
        yield
    finally:
        terminal.unfold(terminalreporter, folded)
    if trust.ledger.report is not None and trust.ran_items:
        terminal.write_summary(terminalreporter, trust.ledger.report, trust.hints.notes())
    for line in trust.selection.marker_lines:
        terminalreporter.write_line(line, yellow=True)
