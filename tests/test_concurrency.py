"""Concurrent recording: many items in flight, each still its own case, cassettes as if sequential."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import HODOR_SUITE
from fault_server import FaultServer

from pytest_trust.endpoint.pacing import Pace, estimated_tokens, retry_after


def reply(body: dict) -> str:
    """A deterministic answer that passes some Hodor cases and fails others, and depends on the turn."""
    text = json.dumps(body["messages"])
    return ["Hodor", "Hodor hodor.", "I am not Hodor", "What?"][hashlib.sha256(text.encode()).digest()[0] % 4]


def record(pytester: pytest.Pytester, folder: str, *args: str, server: FaultServer | None = None
           ) -> tuple[pytest.RunResult, FaultServer]:
    if server is None:
        with FaultServer(reply, latency=0.05) as own:
            return record(pytester, folder, *args, server=own)
    server.requests, server.max_in_flight = [], 0
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--model", "canned", "--record-mode=once", "--trust-base-url", server.base_url,
        "--trust-cassettes", folder, "--trust-limit", "16", "--trust-report", f"{folder}.json", *args)
    return result, server


@pytest.mark.slow
def test_concurrent_recording_gives_the_sequential_cassettes_and_verdicts(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply, latency=0.05) as server:  # one server: the recorded URI names its port
        record(pytester, "seq", server=server)
        sequential_requests, sequential_most = server.requests, server.max_in_flight
        concurrent, _ = record(pytester, "conc", "--trust-concurrency", "8", server=server)
    assert sequential_most == 1 and server.max_in_flight > 4
    assert sorted(map(json.dumps, sequential_requests)) == sorted(map(json.dumps, server.requests))
    seq_files = {p.relative_to(pytester.path / "seq"): p.read_bytes() for p in (pytester.path / "seq").rglob("*.json")}
    conc_files = {p.relative_to(pytester.path / "conc"): p.read_bytes()
                  for p in (pytester.path / "conc").rglob("*.json")}
    assert seq_files and seq_files == conc_files  # byte-identical
    reports = [json.loads((pytester.path / f"{name}.json").read_text()) for name in ("seq", "conc")]
    verdicts = [{i["nodeid"]: (i["outcome"], i["verdict"]["reason"]) for i in r["items"]} for r in reports]
    assert len(verdicts[0]) == 16 and verdicts[0] == verdicts[1]
    assert {outcome for outcome, _ in verdicts[0].values()} == {"passed", "failed"}
    assert reports[0]["metrics"] == reports[1]["metrics"]
    concurrent.stdout.fnmatch_lines(["pytest-trust: recording 16 items, 8 at a time",
                                     "recording: 16/16 items, * model calls, *"])


@pytest.mark.slow
def test_turns_of_one_conversation_stay_in_order_under_concurrency(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    _, server = record(pytester, "conc", "--trust-concurrency", "8")
    seen: dict[str, int] = {}
    for body in server.requests:  # every later turn of a conversation extends an earlier request
        first_user = json.dumps(body["messages"][:4])  # the rules' three opening messages, then the case's first
        turns = len(body["messages"])
        assert turns > seen.get(first_user, 0)
        seen[first_user] = turns
    assert max(len(b["messages"]) for b in server.requests) > 4  # some cases have several turns


@pytest.mark.slow
def test_a_429_pauses_and_the_run_still_records_everything(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply, latency=0.02) as server:
        server.cycle = ["429-retry-after", "ok", "ok"]
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--model", "canned", "--record-mode=once", "--trust-base-url", server.base_url,
            "--trust-limit", "8", "--trust-concurrency", "4")
    outcomes = result.parseoutcomes()
    assert outcomes.get("error", 0) == 0 and outcomes.get("passed", 0) + outcomes.get("failed", 0) == 8
    assert server.served.count("429-retry-after") >= 1


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_requests_are_spaced_to_the_per_minute_budget():
    clock = FakeClock()
    pace = Pace(rpm=120, clock=clock, sleep=clock.sleep)
    waits = [pace.wait(10) for _ in range(4)]
    assert waits == [0.0, 0.5, 0.5, 0.5] and clock.now == 1.5


def test_tokens_are_spaced_to_the_per_minute_budget():
    clock = FakeClock()
    pace = Pace(tpm=6000, clock=clock, sleep=clock.sleep)  # 100 tokens a second
    assert pace.wait(300) == 0.0 and pace.wait(50) == pytest.approx(3.0) and pace.wait(1) == pytest.approx(0.5)


def test_a_429_pauses_every_later_request_for_its_retry_after():
    clock = FakeClock()
    pace = Pace(clock=clock, sleep=clock.sleep)
    assert pace.pause({"retry-after": "2"}) == 2.0
    assert pace.wait(1) == pytest.approx(2.0)
    assert pace.pause({}) == 1.0 and pace.pause({"retry-after-ms": "250"}) == 0.25
    assert pace.pause({"retry-after": "9999"}) == 120.0


@pytest.mark.parametrize("headers, seconds", [({"retry-after": "3"}, 3.0), ({"retry-after-ms": "1500"}, 1.5),
                                              ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None), ({}, None)])
def test_retry_after_reads_seconds_and_milliseconds(headers, seconds):
    assert retry_after(headers) == seconds


def test_token_estimate_is_prompt_bytes_over_four_plus_the_answers_allowed():
    assert estimated_tokens({"max_tokens": 100, "n": 5}, 4000) == 1500
    assert estimated_tokens({}, 40) == 10


@pytest.mark.slow
def test_several_servers_of_one_model_share_the_load_and_the_cassettes_do_not_say_which(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply, latency=0.05) as first, FaultServer(reply, latency=0.05) as second:
        record(pytester, "one", server=first)
        single = (pytester.path / "one" / "canned" / "rules_v1" / "systematic.Hodor.json").read_bytes()
        first.requests = []
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--model", "canned", "--record-mode=once", "--trust-cassettes", "two",
            "--trust-base-url", f"{first.base_url},{second.base_url}", "--trust-limit", "16",
            "--trust-concurrency", "4")
    assert result.ret in (0, 1)
    assert first.requests and second.requests  # both served
    assert (pytester.path / "two" / "canned" / "rules_v1" / "systematic.Hodor.json").read_bytes() == single


@pytest.mark.slow
def test_a_recording_one_at_a_time_prints_progress_and_a_replay_does_not(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    with FaultServer(reply, latency=0.01) as server:
        recorded, _ = record(pytester, "seq", server=server)
        calls = len(server.requests)
        under_xdist, _ = record(pytester, "par", "-n", "2", server=server)
    # the fault server's usage is 2 tokens per answer; the last line comes with the last item
    recorded.stdout.fnmatch_lines([f"recording: 16/16 items, {calls} model calls, {2 * calls} tokens, *"])
    under_xdist.stdout.fnmatch_lines(["recording: 16/16 items, * items/s, *"])  # workers' calls are theirs
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--trust-cassettes", "seq",
                                             "--trust-limit", "16", "--block-network")
    replayed.assert_outcomes(passed=recorded.parseoutcomes().get("passed", 0),
                             failed=recorded.parseoutcomes().get("failed", 0))
    assert "recording:" not in replayed.stdout.str()
