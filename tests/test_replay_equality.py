"""Replay without an HTTP client serves what the openai client over the recording transport served.

Every interaction of every committed cassette is asked again, in its item's file order, through both paths: the
client path (openai client, TrustTransport, the stored response parsed as a ChatCompletion) and the direct one
(recording/replay.py). Answers (text, finish reason, withheld, irregular) and failures (type and message) must be
equal. Hand-damaged answers check the failures the committed files never show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_trust.endpoint.client import Endpoint, Model
from pytest_trust.errors import CassetteError
from pytest_trust.recording import Recorder, RecordMode, request_digest
from pytest_trust.recording.cassettes import REPAIR, cassette_file, read_cassette, write_cassette

CASSETTES = Path(__file__).resolve().parent.parent / "cassettes"
FILES = sorted(CASSETTES.glob("*/*/*.json"))


def both_paths(root: Path, model: str) -> tuple[Model, Model]:
    """Two replay-only clients of the same cassettes: the one the session uses, and one made to post through
    the openai client and the transport as before."""
    direct = Model.connect(model, Recorder(root, model, RecordMode.NONE), Endpoint(None))
    through_client = Model.connect(model, Recorder(root, model, RecordMode.NONE), Endpoint(None))
    assert direct.replay is not None
    through_client.replay = None
    return direct, through_client


def ask(model: Model, body: dict) -> object:
    """What ``model`` makes of ``body``: its answers as plain values, or its failure's type and message."""
    decoding = {k: v for k, v in body.items() if k not in ("model", "messages")}
    model.name = body["model"]
    try:
        answers = model._create(body["messages"], decoding)
    except (CassetteError, ValueError) as err:
        return type(err).__name__, str(err)
    return [(str(a), a.finish_reason, a.withheld, a.irregular) for a in answers]


def played(model: Model, benchmark: str, cassette: str, item_id: str, bodies: list[dict]) -> list[object]:
    recorder = model.transport.recorder
    recorder.begin(benchmark, cassette, item_id)
    try:
        return [ask(model, body) for body in bodies]
    finally:
        recorder.tape = None  # nothing was recorded: no journal to write


@pytest.mark.skipif(not FILES, reason="no committed cassettes")
@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(CASSETTES).as_posix() for p in FILES])
def test_every_committed_answer_replays_as_the_client_path_replayed_it(path):
    model_folder, benchmark, cassette = path.relative_to(CASSETTES).with_suffix("").parts
    direct, through_client = both_paths(CASSETTES, model_folder)
    asked = 0
    try:
        for item_id, interactions in read_cassette(path).items():
            bodies = [json.loads(i["request"]["body"]) for i in interactions]
            new = played(direct, benchmark, cassette, item_id, bodies)
            old = played(through_client, benchmark, cassette, item_id, bodies)
            assert new == old, item_id
            assert all(isinstance(answers, list) for answers in new), (item_id, new)  # every committed one replays
            asked += len(bodies)
    finally:
        direct.close()
        through_client.close()
    assert asked


MESSAGES = [{"role": "user", "content": "hi"}]
DIGEST = request_digest("POST", "/chat/completions", {"model": "m", "messages": MESSAGES, "n": 2})


def damaged(tmp_path: Path, status: int, body: str) -> Path:
    interaction = {"item_id": "suite/A/1", "digest": DIGEST, "episode": 0,
                   "request": {"method": "POST", "uri": "http://x/v1/chat/completions", "body": "{}", "headers": {}},
                   "response": {"status": {"code": status, "message": ""}, "body": {"string": body},
                                "headers": {"content-type": ["application/json"]}}}
    path = cassette_file(tmp_path, "m", "bench", "A")
    write_cassette(path, {"suite/A/1": [interaction]})
    return path


def choice(**fields) -> dict:
    return {"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop", **fields}


CORRUPT = {  # answers the client path refused too: the same message either way
    "status 500": (500, '{"error": {}}', "has HTTP status 500, where only status-200 answers are recorded"),
    "not JSON": (200, "<html>502</html>", "is not a chat completion"),
    "choices not a list": (200, '{"choices": 5}', "is not a chat completion"),
    "no message": (200, json.dumps({"choices": [{"finish_reason": "stop"}] * 2}), "is not a chat completion"),
}


@pytest.mark.parametrize("status, body, problem", CORRUPT.values(), ids=CORRUPT)
def test_a_damaged_answer_fails_the_same_way_on_both_paths(tmp_path, status, body, problem):
    path = damaged(tmp_path, status, body)
    direct, through_client = both_paths(tmp_path, "m")
    request = {"model": "m", "messages": MESSAGES, "n": 2}
    new = played(direct, "bench", "A", "suite/A/1", [request])
    assert new == played(through_client, "bench", "A", "suite/A/1", [request])
    assert new == [("CorruptCassette", f"cassette {path}: the recorded answer of item suite/A/1 {problem}: {REPAIR}")]


STRICTER = {  # answers the client path served as they came (recording/answers.py never keeps them): now refused
    "content not text": json.dumps({"choices": [choice(message={"content": 5})] * 2}),
}


def test_fewer_choices_than_asked_for_replay_as_recorded_on_both_paths(tmp_path):
    """A run recorded elsewhere may hold fewer answers than it asked for (DecodingTrust's gpt-4-0314 privacy run
    holds 46 of 100 for some prompts): its replay serves what it holds, as the client path did."""
    damaged(tmp_path, 200, json.dumps({"choices": [choice()]}))
    direct, through_client = both_paths(tmp_path, "m")
    request = [{"model": "m", "messages": MESSAGES, "n": 2}]
    new = played(direct, "bench", "A", "suite/A/1", request)
    assert new == played(through_client, "bench", "A", "suite/A/1", request)
    assert new == [[("x", "stop", False, None)]]


@pytest.mark.parametrize("body", STRICTER.values(), ids=STRICTER)
def test_an_answer_that_is_no_completion_is_a_corrupt_cassette(tmp_path, body):
    path = damaged(tmp_path, 200, body)
    direct, _ = both_paths(tmp_path, "m")
    [(kind, message)] = played(direct, "bench", "A", "suite/A/1", [{"model": "m", "messages": MESSAGES, "n": 2}])
    assert kind == "CorruptCassette"
    assert message == f"cassette {path}: the recorded answer of item suite/A/1 is not a chat completion: {REPAIR}"


def test_a_miss_and_a_second_episode_fail_alike(tmp_path):
    damaged(tmp_path, 200, json.dumps({"choices": [choice(), choice(finish_reason="length")]}))
    direct, through_client = both_paths(tmp_path, "m")
    requests = [{"model": "m", "messages": MESSAGES, "n": 2}] * 2 + [{"model": "m", "messages": [], "n": 2}]
    new = played(direct, "bench", "A", "suite/A/1", requests)
    assert new == played(through_client, "bench", "A", "suite/A/1", requests)
    assert new[0] == [("x", "stop", False, None), ("x", "length", False, "length")]
    assert [kind for kind, _ in new[1:]] == ["CassetteMiss"] * 2 and "no recorded answer for item suite/A/1" in new[1][1]


def test_an_answer_without_finish_reason_or_content_reads_as_none_on_both_paths(tmp_path):
    damaged(tmp_path, 200, json.dumps({"choices": [{"message": {"content": "x"}}, {"message": {}}]}))
    direct, through_client = both_paths(tmp_path, "m")
    request = [{"model": "m", "messages": MESSAGES, "n": 2}]
    new = played(direct, "bench", "A", "suite/A/1", request)
    assert new == played(through_client, "bench", "A", "suite/A/1", request)
    assert new == [[("x", None, False, None), ("", None, True, "no content")]]


def test_outside_an_item_no_answer_is_served(tmp_path):
    direct, _ = both_paths(tmp_path, "m")
    with pytest.raises(CassetteError, match="outside a benchmark item"):
        direct.chat(MESSAGES)
