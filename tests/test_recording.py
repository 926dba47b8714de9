"""The recording layer: cassette files, journals, record modes, scrubbing, replay by digest.

The live side here is an httpx2.MockTransport (vcrpy intercepts it like a real transport); the
plugin tests and the live-model test exercise real HTTP.
"""

from __future__ import annotations

import json
import os

import httpx2
import openai
import pytest
from canned_server import completion
from vcr.serialize import deserialize
from vcr.serializers import jsonserializer

from pytest_trust.errors import CassetteMiss, CorruptCassette
from pytest_trust.recording import Recorder, RecordMode, TrustTransport
from pytest_trust.recording.cassettes import read_cassette, scenario_file, write_cassette
from pytest_trust.recording.journal import Journal, merge_journals

MESSAGES = [{"role": "user", "content": "say hi"}]


class Live:
    """A MockTransport 'provider' that answers 'answer <k>' to its k-th request."""

    def __init__(self, status: int = 200) -> None:
        self.calls = 0
        self.status = status
        self.transport = httpx2.MockTransport(self.handle)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.calls += 1
        body = json.loads(request.read())
        return httpx2.Response(self.status, json=completion(body, [f"answer {self.calls}"]),
                               headers={"x-request-id": "req-1", "set-cookie": "a=b", "openai-organization": "org-x"})


def client(recorder: Recorder, live: Live | None) -> openai.OpenAI:
    transport = TrustTransport(recorder, "/v1", live.transport if live else None)
    return openai.OpenAI(base_url="http://provider.test/v1", api_key="sk-SECRET-KEY-123", max_retries=0,
                         http_client=httpx2.Client(transport=transport))


def ask(c: openai.OpenAI, content: str = "say hi") -> str:
    r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": content}], temperature=0)
    return r.choices[0].message.content


def record_item(tmp_path, item_id="suite/A/1", live=None, mode=RecordMode.NEW_EPISODES, asks=("say hi",)):
    recorder = Recorder(tmp_path, "m", mode)
    live = live or Live()
    c = client(recorder, live)
    recorder.begin("bench", "A", item_id)
    answers = [ask(c, q) for q in asks]
    recorder.end()
    merged = recorder.merge()
    return answers, merged, live


def test_record_then_replay_without_live_transport(tmp_path):
    answers, merged, live = record_item(tmp_path, asks=("say hi", "say hi", "other"))
    assert answers == ["answer 1", "answer 2", "answer 3"] and merged == 1 and live.calls == 3
    replayer = Recorder(tmp_path, "m", RecordMode.NONE)
    c = client(replayer, None)
    replayer.begin("bench", "A", "suite/A/1")
    # the same digest twice is two episodes, served in recorded order
    assert [ask(c, "say hi"), ask(c, "say hi"), ask(c, "other")] == answers
    replayer.end()


def test_cassette_holds_no_credentials_or_volatile_headers(tmp_path):
    record_item(tmp_path)
    text = scenario_file(tmp_path, "m", "bench", "A").read_text()
    for secret in ("sk-SECRET-KEY-123", "authorization", "x-stainless", "user-agent", "set-cookie",
                   "x-request-id", "openai-organization"):
        assert secret.lower() not in text.lower()


def test_vcrpy_reads_our_cassette_files(tmp_path):
    record_item(tmp_path, asks=("say hi", "other"))
    text = scenario_file(tmp_path, "m", "bench", "A").read_text()
    requests, responses = deserialize(text, jsonserializer)
    assert [r.method for r in requests] == ["POST", "POST"]
    assert json.loads(requests[1].body)["messages"][0]["content"] == "other"
    assert json.loads(responses[0]["body"]["string"])["choices"][0]["message"]["content"] == "answer 1"


def test_miss_names_item_digest_cassette_and_hint(tmp_path):
    record_item(tmp_path)
    replayer = Recorder(tmp_path, "m", RecordMode.NONE)
    c = client(replayer, None)
    replayer.begin("bench", "A", "suite/A/1", hint="pytest 'x::y' --record-mode=new_episodes")
    with pytest.raises(CassetteMiss) as err:
        ask(c, "never recorded")
    text = str(err.value)
    assert "suite/A/1" in text and "A.json" in text and "request digest" in text
    assert "--record-mode=new_episodes" in text and "1 interaction(s) recorded" in text


def test_failed_exchange_is_never_recorded(tmp_path):
    with pytest.raises(openai.InternalServerError):
        record_item(tmp_path, live=Live(status=500))
    assert read_cassette(scenario_file(tmp_path, "m", "bench", "A")) == {}


def test_record_modes(tmp_path):
    record_item(tmp_path, asks=("say hi",))
    # new_episodes: replays what is there, records only the missing request
    answers, _, live = record_item(tmp_path, asks=("say hi", "other"), live=Live())
    assert answers == ["answer 1", "answer 1"] and live.calls == 1
    # once: an item with recordings is replayed strictly; a miss is an error, not a recording
    with pytest.raises(CassetteMiss):
        record_item(tmp_path, asks=("third",), mode=RecordMode.ONCE)
    # once: an item with no recording is recorded
    answers, _, live = record_item(tmp_path, item_id="suite/A/2", asks=("say hi",), mode=RecordMode.ONCE)
    assert live.calls == 1
    # all: everything re-recorded, and the item's old interactions replaced
    answers, _, live = record_item(tmp_path, asks=("say hi",), mode=RecordMode.ALL, live=Live())
    assert live.calls == 1
    by_item = read_cassette(scenario_file(tmp_path, "m", "bench", "A"))
    assert [len(by_item[i]) for i in sorted(by_item)] == [1, 1]


def test_files_are_sorted_and_stable(tmp_path):
    path = tmp_path / "x.json"
    interactions = {"b": [{"item_id": "b", "episode": 0}], "a": [{"item_id": "a", "episode": 0},
                                                                 {"item_id": "a", "episode": 1}]}
    write_cassette(path, interactions)
    first = path.read_bytes()
    write_cassette(path, dict(reversed(list(interactions.items()))))
    assert path.read_bytes() == first
    assert [i["item_id"] for i in json.loads(first)["interactions"]] == ["a", "a", "b"]
    assert not list(tmp_path.glob(".*tmp"))


def test_corrupt_cassette_is_one_clear_error(tmp_path):
    path = tmp_path / "A.json"
    path.write_text('{"version": 1, "interactions": [')
    with pytest.raises(CorruptCassette, match="A.json cannot be read"):
        read_cassette(path)


def test_journal_of_a_killed_run_is_merged_without_the_item_in_flight(tmp_path):
    model_root = tmp_path / "m"
    cassette = model_root / "bench" / "A.json"
    journal = Journal(model_root, "run1", "gw0")
    journal.append(cassette, "suite/A/1", [{"item_id": "suite/A/1", "digest": "d", "episode": 0}])
    journal.close()
    with open(journal.path, "a") as fh:  # a SIGKILL mid-write leaves half a line
        fh.write('{"cassette": "bench/A.json", "item_id": "suite/A/2", "interac')
    dead = journal.path.with_name("run1-gw0-999999999.jsonl")
    os.replace(journal.path, dead)
    assert merge_journals(model_root, "another-run") == 1
    assert list(read_cassette(cassette)) == ["suite/A/1"]
    assert not dead.exists()


def test_journal_of_another_live_session_is_left_alone(tmp_path):
    model_root = tmp_path / "m"
    journal = Journal(model_root, "run1")  # named with this (alive) process's pid
    journal.append(model_root / "bench" / "A.json", "suite/A/1", [])
    assert merge_journals(model_root) == 0  # at start: only dead writers' journals
    assert merge_journals(model_root, "run2") == 0  # another session's end: not its journal
    assert merge_journals(model_root, "run1") == 1  # its own session's end
    journal.close()
