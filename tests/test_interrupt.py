"""Ctrl-C under --trust-concurrency: the run stops within seconds as pytest's INTERRUPTED, keeps every item it
finished, and the next run resumes from them."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import HODOR_SUITE, ctrl_c_as_in_a_terminal, hodor_ids
from fake_model import FakeModelServer

from pytest_trust.benchmarks import BENCHMARKS
from pytest_trust.endpoint.client import Endpoint, Model
from pytest_trust.items import Item
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.recording.cassettes import cassette_file, read_cassette
from pytest_trust.run.playing import play
from pytest_trust.run.services import Services

MODEL, WORKERS = "canned", 4


def pytest_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--model", MODEL,
            "--trust-report", "report.json", *args]


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_"))}
    return {**env, "OPENAI_API_KEY": "sk-fake-interrupt"}


def journaled(folder: Path) -> set[str]:
    """The items in the journals: what the run finished (the last line may be half-written)."""
    lines = [line for path in (folder / "cassettes" / MODEL / ".journal").glob("*.jsonl")
             for line in path.read_text().splitlines() if line.endswith("}")]
    return {json.loads(line)["item_id"] for line in lines}


def recorded(folder: Path) -> dict[str, list[dict]]:
    return {item: interactions for path in (folder / "cassettes" / MODEL).rglob("*.json")
            for item, interactions in read_cassette(path).items()}


def canonical(body: dict) -> str:
    return json.dumps(body, sort_keys=True)


@pytest.mark.slow
def test_ctrl_c_stops_a_concurrent_recording_at_once_keeps_what_finished_and_the_next_run_resumes(tmp_path):
    (tmp_path / "test_suite.py").write_text(HODOR_SUITE)
    with FakeModelServer("slow", answer="Hodor") as server, ctrl_c_as_in_a_terminal():
        process = subprocess.Popen(
            pytest_command("--record-mode=once", "--trust-concurrency", str(WORKERS), "--trust-base-url",
                           server.base_url), cwd=tmp_path, env=environment(), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 120
        while len(journaled(tmp_path)) < WORKERS and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        finished, requests_then = journaled(tmp_path), len(server.requests)
        assert finished and process.poll() is None, "the run ended (or never journaled) before the interrupt"
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        try:
            output = process.communicate(timeout=60)[0]
        finally:
            process.kill()
        took = time.monotonic() - interrupted
        requests_at_exit = len(server.requests)

        assert (process.returncode, "Traceback" in output) == (2, False), output
        assert took < 5, f"took {took:.1f} s to stop\n{output}"
        last = output.strip().splitlines()[-1]
        reported = sum(int(count) for count in re.findall(r"(\d+) (?:passed|failed)", last))
        assert "no tests ran" not in last and reported >= 1, output  # the items finished before it are reported
        assert requests_at_exit <= requests_then + WORKERS  # only the requests in flight at the interrupt
        kept = recorded(tmp_path)
        assert finished <= set(kept) and set(kept) < set(hodor_ids())
        assert reported <= len(kept)  # an item is reported only when its answers were kept
        assert not journaled(tmp_path)  # merged into the cassettes at session end

        replay = subprocess.run(pytest_command("--trust-recorded-only", "--block-network"), cwd=tmp_path,
                                env=environment(), capture_output=True, text=True, timeout=300, check=False)
        items = json.loads((tmp_path / "report.json").read_text())["items"]
        assert replay.returncode in (0, 1), replay.stdout + replay.stderr
        assert sorted(item["id"] for item in items if "verdict" in item) == sorted(kept)

        server.requests = []
        resume = subprocess.run(pytest_command("--record-mode=once", "--trust-concurrency", str(WORKERS),
                                               "--trust-base-url", server.base_url), cwd=tmp_path,
                                env=environment(), capture_output=True, text=True, timeout=300, check=False)
    assert resume.returncode in (0, 1), resume.stdout + resume.stderr
    items = json.loads((tmp_path / "report.json").read_text())["items"]
    assert sorted(item["id"] for item in items if "verdict" in item) == sorted(hodor_ids())
    asked_before = {canonical(json.loads(interaction["request"]["body"]))
                    for interactions in kept.values() for interaction in interactions}
    assert server.requests and not asked_before & {canonical(body) for body in server.requests}
    assert {item: recorded(tmp_path)[item] for item in kept} == kept  # what the interrupted run kept, unchanged


def test_an_item_cut_by_ctrl_c_in_the_middle_of_its_conversation_is_not_journaled(tmp_path, monkeypatch):
    """One item at a time, Ctrl-C lands in the item itself: its first turns kept would replay as recorded
    under ``once``, and its later turns would miss for good instead of being recorded by the next run."""

    class TwoTurns:
        needs = ()  # no service

        def run(self, item, model):
            model.chat([{"role": "user", "content": "hello"}])  # the first turn is answered and kept on the tape
            raise KeyboardInterrupt  # Ctrl-C while the second turn is asked

    monkeypatch.setitem(BENCHMARKS, "bench", TwoTurns())
    with FakeModelServer() as server:
        recorder = Recorder(tmp_path, "m", RecordMode.ONCE)
        model = Model.connect("m", recorder, Endpoint(server.base_url))
        with pytest.raises(KeyboardInterrupt):
            play(SimpleNamespace(recorder=recorder, connect=lambda: model, services=Services()),
                 Item("item/1", "bench", "S", {}, {}), "")
        model.close()
    recorder.merge()
    assert len(server.requests) == 1 and not read_cassette(cassette_file(tmp_path, "m", "bench", "S"))
