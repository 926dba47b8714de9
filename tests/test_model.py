"""The model client: samples with n or with seeds, errors, and replay of both."""

from __future__ import annotations

import pytest
from fake_model import FakeModelServer

from pytest_trust.endpoint.client import Endpoint, Model
from pytest_trust.errors import ModelError
from pytest_trust.recording import Recorder, RecordMode

MESSAGES = [{"role": "user", "content": "a poem"}]


def seeded(body: dict) -> str:
    return f"sample seed={body.get('seed')} n={body.get('n', 1)}"


def sample_once(tmp_path, mode, server=None, k=3):
    recorder = Recorder(tmp_path, "m", mode)
    model = Model.connect("m", recorder, Endpoint(server.base_url if server else None, max_retries=0))
    recorder.begin("bench", "S", "item/1")
    try:
        return model.samples(MESSAGES, k, temperature=1, seed=7), model
    finally:
        recorder.end()
        recorder.merge()
        model.close()


def test_samples_use_n_where_the_endpoint_accepts_it(tmp_path):
    with FakeModelServer(seeded) as server:
        answers, model = sample_once(tmp_path, RecordMode.NEW_EPISODES, server)
    assert answers == ["sample seed=7 n=3"] * 3 and len(server.requests) == 1 and model.n_supported is True
    replayed, _ = sample_once(tmp_path, RecordMode.NONE)
    assert replayed == answers


def test_samples_fall_back_to_distinct_seeds_where_n_is_rejected(tmp_path):
    with FakeModelServer(seeded, reject_n=True) as server:
        answers, model = sample_once(tmp_path, RecordMode.NEW_EPISODES, server)
    assert answers == ["sample seed=7 n=1", "sample seed=8 n=1", "sample seed=9 n=1"]
    assert [r.get("n") for r in server.requests] == [3, None, None, None] and model.n_supported is False
    replayed, replay_model = sample_once(tmp_path, RecordMode.NONE)  # the n=3 request misses, seeds replay
    assert replayed == answers and replay_model.n_supported is False


def test_samples_fall_back_to_distinct_seeds_where_n_is_ignored(tmp_path):
    """One answer to n=3 is neither retried nor an error: the endpoint is taken to reject n."""
    with FakeModelServer(seeded, ignore_n=True) as server:
        answers, model = sample_once(tmp_path, RecordMode.NEW_EPISODES, server)
    assert answers == ["sample seed=7 n=1", "sample seed=8 n=1", "sample seed=9 n=1"]
    assert [r.get("n") for r in server.requests] == [3, None, None, None] and model.n_supported is False
    replayed, _ = sample_once(tmp_path, RecordMode.NONE)
    assert replayed == answers


def test_endpoint_errors_are_model_errors_and_not_recorded(tmp_path, fake_model):
    server = fake_model(seeded, reject_n=True)
    recorder = Recorder(tmp_path, "m", RecordMode.NEW_EPISODES)
    model = Model.connect("m", recorder, Endpoint(server.base_url, max_retries=0))
    recorder.begin("bench", "S", "item/1")
    with pytest.raises(ModelError, match="HTTP 400"):
        model.chat(MESSAGES, n=2)
    recorder.end()
    assert recorder.merge().items == 0


def test_recording_needs_an_endpoint(tmp_path):
    with pytest.raises(ModelError, match="--trust-base-url"):
        Model.connect("m", Recorder(tmp_path, "m", RecordMode.ONCE), Endpoint(None))


def test_endpoint_host_never_carries_credentials():
    assert Endpoint("https://user:pw@api.example.com:8443/v1?key=x").host == "api.example.com"
    assert Endpoint(None).host == ""
