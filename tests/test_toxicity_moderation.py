"""OpenAI's moderation endpoint as a recorded toxicity scorer, against the project's fault server: the request
through the openai client, the score it stands for, recording in its own namespace and offline replay, and the
faults (status errors, 429 with Retry-After, malformed answers, the breaker)."""

from __future__ import annotations

import json

import pytest
from fault_server import FaultServer

from pytest_trust import scorers
from pytest_trust.errors import CassetteMiss, EndpointDown, ModelError
from pytest_trust.items import Item
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.recording.cassettes import read_cassette
from pytest_trust.scorers.moderation import MODEL, SCORES_FOLDER, ModerationScorer

KEY = "sk-test-moderation-0123456789abcdef"
ITEM = Item(id="toxic-template-0/7", benchmark="toxicity", cassette="toxic-template-0", inputs={}, decoding={})


@pytest.fixture
def server():
    with FaultServer() as fake:
        fake.moderator = lambda text: {"You idiot.": {"harassment": 0.91, "violence": 0.99},
                                       "Lovely day.": {"hate/threatening": 0.02, "sexual": 0.7}}.get(text, 0.05)
        yield fake


def scorer(server: FaultServer, recorder: Recorder | None = None, key: str | None = KEY, **kwargs) -> ModerationScorer:
    return ModerationScorer(key, recorder, base_url=server.base_url, **kwargs)


def test_one_request_per_item_through_the_openai_client_scores_the_highest_harassment_or_hate(server):
    moderation = scorer(server)
    assert moderation.score(["You idiot.", "", "Lovely day.", "You idiot."]) == [0.91, None, 0.02, 0.91]
    moderation.close()
    assert server.requests == [{"model": MODEL, "input": ["You idiot.", "Lovely day."]}]
    assert server.paths[0].split("?")[0].endswith("/moderations")
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"  # violence and sexual do not count


def test_answers_record_in_their_own_namespace_and_replay_offline_without_the_key(server, tmp_path):
    recorder = Recorder(tmp_path / "m", SCORES_FOLDER, RecordMode.NEW_EPISODES)
    live = scorer(server, recorder)
    assert live.score(["You idiot.", "Lovely day."], ITEM) == [0.91, 0.02]
    live.close()
    recorder.merge()
    cassette = tmp_path / "m" / SCORES_FOLDER / "toxicity" / "toxic-template-0.json"
    text = cassette.read_text()
    assert KEY not in text and "authorization" not in text.lower()
    assert len(read_cassette(cassette)[ITEM.id]) == 1
    server.always = "500"  # a replay never asks
    replay = scorer(server, Recorder(tmp_path / "m", SCORES_FOLDER, RecordMode.NONE), key=None)
    assert replay.score(["You idiot.", "Lovely day."], ITEM) == [0.91, 0.02]
    with pytest.raises(CassetteMiss, match=r"no recorded moderation for item toxic-template-0/7 .*OPENAI_API_KEY"):
        replay.score(["Something new."], ITEM)
    replay.close()
    assert len(server.requests) == 1


@pytest.mark.slow
def test_429_with_retry_after_and_a_5xx_are_retried_by_the_client(server):
    server.faults.extend(["429-retry-after", "503"])
    moderation = scorer(server, max_retries=2)
    assert moderation.score(["You idiot."]) == [0.91]
    moderation.close()
    assert server.served == ["429-retry-after", "503", "ok"]


@pytest.mark.parametrize("fault", ["malformed", "error-body", "empty-choices", "html"])
def test_a_malformed_answer_is_retried_never_recorded_then_one_clear_error(server, tmp_path, fault):
    server.always = fault
    recorder = Recorder(tmp_path / "m", SCORES_FOLDER, RecordMode.NEW_EPISODES)
    moderation = scorer(server, recorder, max_retries=1)
    with pytest.raises(ModelError, match=r"^OpenAI's moderation endpoint failed: status 200 with a body without "
                                         r"results\[\]\.category_scores"):
        moderation.score(["You idiot."], ITEM)
    moderation.close()
    recorder.merge()
    assert len(server.requests) == 2 and not list((tmp_path / "m").rglob("*.json"))


def test_a_failure_names_the_status_redacts_the_key_and_three_items_in_a_row_stop_the_run(server):
    server.always = "401-echo-key"
    moderation = scorer(server, max_retries=0)
    with pytest.raises(ModelError) as first:
        moderation.score(["a"])
    assert "HTTP 401" in str(first.value) and KEY not in str(first.value)
    with pytest.raises(ModelError):
        moderation.score(["b"])
    with pytest.raises(EndpointDown, match="3 items in a row failed, so the run stops here"):
        moderation.score(["c"])
    moderation.close()


def test_the_session_selects_it_and_its_items_name_it_and_its_model(server, tmp_path):
    chosen = scorers.choose("openai-moderation", cassettes=tmp_path, model="m", moderation_url=server.base_url,
                            record_mode=RecordMode.NEW_EPISODES, environ={"OPENAI_API_KEY": KEY})
    try:
        assert chosen.scorer().score(["You idiot."], ITEM) == [0.91]
        assert chosen.identity() == scorers.Identity("openai-moderation", f"openai {MODEL}")
    finally:
        chosen.finish()
    assert json.loads((tmp_path / "m" / SCORES_FOLDER / "toxicity" / "toxic-template-0.json").read_text())
