"""Batch recording against a local fake of the OpenAI Files and Batches APIs (tests/fault_server.py)."""

from __future__ import annotations

import json

import pytest
from conftest import HODOR_SUITE
from fault_server import FaultServer

from pytest_trust.recording.cassettes import read_cassette


def reply(body: dict) -> str:
    return ["Hodor", "Hodor hodor.", "I am not Hodor"][len(json.dumps(body["messages"])) % 3]


def run(pytester: pytest.Pytester, server: FaultServer, folder: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--trust-cassettes", folder,
                                         "--trust-limit", "6", "--trust-base-url", server.base_url, *args)


def answers(folder) -> dict:
    found = {}
    for path in folder.rglob("*.json"):
        if ".batches" in path.parts:
            continue
        for item_id, interactions in read_cassette(path).items():
            for i in interactions:
                body = json.loads(i["response"]["body"]["string"])
                found[item_id, i["digest"], i["episode"]] = body["choices"][0]["message"]["content"]
    return found


@pytest.mark.slow
def test_batches_record_what_live_calls_record_one_turn_per_batch(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply) as server:
        first = run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch", "-rs")
        first.assert_outcomes(skipped=6)
        assert server.requests == [] and len(server.batches) == 1  # nothing sent one by one
        first.stdout.fnmatch_lines(["*queued for a batch*", "items: 6 skipped",
                                    "batch batch_0: submitted with 6 requests*"])
        server.batch_polls = 1
        waiting = run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch")
        waiting.assert_outcomes(skipped=6)
        waiting.stdout.fnmatch_lines(["batch batch_0: in_progress, 6 requests waiting"])
        assert len(server.batches) == 1  # nothing new to queue while the batch runs
        rounds = 0
        while (pytester.path / "batched" / "canned" / ".batches").glob("*.json") and rounds < 6:
            outcome = run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch")
            rounds += 1
            if not list((pytester.path / "batched" / "canned" / ".batches").glob("*.json")):
                break
        assert "skipped" not in outcome.parseoutcomes()  # every item answered: one batch per turn
        assert len(server.batches) >= 2  # a conversation's later turns went in later batches
        live = run(pytester, server, "live", "--record-mode=new_episodes")
    assert answers(pytester.path / "batched") == answers(pytester.path / "live")
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--trust-cassettes",
                                             "batched", "--trust-limit", "6", "--block-network")
    assert replayed.parseoutcomes() == live.parseoutcomes()


@pytest.mark.slow
def test_failed_batch_answers_are_queued_again(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply) as server:
        server.batch_failures = {"r0"}
        run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch")
        second = run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch")
        second.stdout.fnmatch_lines(["batch batch_0: completed, 5 answers collected, 1 requests to queue again",
                                     "batch batch_1: submitted with *"])
        queued = json.loads((pytester.path / "batched" / "canned" / ".batches" / "batch_1.json").read_text())
        first = json.loads(server.files["file-0"].decode().splitlines()[0])
        assert first["body"] in [json.loads(r["request"]["body"]) for r in queued["requests"]]


@pytest.mark.slow
def test_batch_mode_needs_a_recording_mode_and_one_process(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply) as server:
        assert run(pytester, server, "x", "--trust-batch").ret == pytest.ExitCode.USAGE_ERROR
        assert run(pytester, server, "x", "--trust-batch", "--record-mode=once", "-n", "2").ret == \
            pytest.ExitCode.USAGE_ERROR


@pytest.mark.slow
def test_a_key_the_files_and_batches_apis_echo_reaches_no_message(pytester, monkeypatch):
    key = "sk-batch-" + "Z9yX8wV7uT6sR5qP4oN3mL2k"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply) as server:
        server.always = "401-echo-key"  # the submission at the end is refused
        refused = run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch")
        server.always = None
        run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch")  # submitted
        server.always = "401-echo-key"  # the collection at the start is refused
        collecting = run(pytester, server, "batched", "--record-mode=new_episodes", "--trust-batch")
    assert ("--trust-batch: no batch submitted, the endpoint's Files/Batches API failed (Error code: 401 - "
            "Incorrect API key provided: Bearer [redacted])") in refused.stdout.str()
    assert collecting.ret == pytest.ExitCode.USAGE_ERROR
    assert "--trust-batch: the endpoint's Files/Batches API failed" in collecting.stderr.str()
    for result in (refused, collecting):
        assert key not in result.stdout.str() + result.stderr.str()
