"""One recording path's shared parts: the breaker, the conditions an answer reports as types, the stored response.

The model client and both remote scorers stop a run through the same ``Breaker``; what a transport found wrong
with an answer reaches the client as an ``InvalidAnswer`` or ``IgnoresN`` on the response, never as a header or
a message the client matches.
"""

from __future__ import annotations

import httpx2
import openai
import pytest

from pytest_trust.endpoint.breaker import LIMIT, Breaker
from pytest_trust.endpoint.client import Endpoint, Model
from pytest_trust.endpoint.conditions import IgnoresN, InvalidAnswer, condition_of
from pytest_trust.endpoint.formats import other_format
from pytest_trust.errors import EndpointDown, ModelError, RejectsN
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.recording.stored import stored_response
from pytest_trust.recording.transport import TrustTransport
from pytest_trust.scorers.moderation import ModerationScorer
from pytest_trust.scorers.perspective import PerspectiveScorer


def test_the_breaker_trips_at_its_limit_of_counted_failures_in_a_row():
    breaker = Breaker("calls", "check it")
    errors = [breaker.failed(f"failure {n}") for n in range(LIMIT)]
    assert [type(e) for e in errors] == [ModelError] * (LIMIT - 1) + [EndpointDown]
    assert str(errors[-1]) == f"failure {LIMIT - 1}; {LIMIT} calls in a row failed, so the run stops here: check it"
    breaker.succeeded()
    assert type(breaker.failed("again")) is ModelError


def test_a_failure_that_does_not_count_or_cannot_trip_never_stops_the_run():
    breaker = Breaker("calls", "check it")
    assert all(type(breaker.failed("a 400", counts=False)) is ModelError for _ in range(LIMIT + 1))
    assert breaker.in_a_row == 0
    assert all(type(breaker.failed("replaying", trips=False)) is ModelError for _ in range(LIMIT + 1))


def test_the_model_and_both_remote_scorers_share_the_breaker():
    model = Model("m", None, None)
    perspective, moderation = PerspectiveScorer(None), ModerationScorer(None)
    try:
        assert all(type(owner.breaker) is Breaker for owner in (model, perspective, moderation))
        assert [owner.breaker.counted for owner in (model, perspective, moderation)] == ["calls", "texts", "items"]
    finally:
        perspective.close()
        moderation.close()


def test_a_condition_travels_on_the_response_not_in_a_header():
    response = InvalidAnswer("no choices").response()
    assert response.status_code == 502 and response.headers["x-should-retry"] == "true"
    assert condition_of(response) == InvalidAnswer("no choices")
    assert not any(name.startswith("x-pytest-trust") for name in response.headers)
    assert condition_of(httpx2.Response(502, json={"error": {"message": "no choices"}})) is None
    assert condition_of(IgnoresN("1 choices where 3 were asked for").response()) == \
        IgnoresN("1 choices where 3 were asked for")


def test_a_stored_response_is_built_once_for_models_and_scorers():
    stored = {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": ["application/json"]},
              "body": {"string": '{"a": "\u00e9"}'}}
    response = stored_response(stored)
    assert (response.status_code, response.headers["content-type"], response.json()) == (200, "application/json",
                                                                                          {"a": "\u00e9"})


def record(tmp_path, server, n: int = 1, retries: int = 0) -> Model:
    recorder = Recorder(tmp_path, "m", RecordMode.NEW_EPISODES)
    model = Model.connect("m", recorder, Endpoint(server.base_url, max_retries=retries))
    recorder.begin("bench", "S", "item/1")
    try:
        return model.samples([{"role": "user", "content": "hi"}], n, temperature=1, seed=0)
    finally:
        recorder.end()
        model.close()


def test_an_endpoint_that_ignores_n_is_told_as_a_type_and_the_model_asks_for_seeded_answers(tmp_path, fake_model):
    server = fake_model(lambda body: f"seed {body.get('seed')}", ignore_n=True)
    answers = record(tmp_path, server, n=3)
    assert answers == ["seed 0", "seed 1", "seed 2"]


def test_an_endpoint_that_names_n_in_its_400s_param_rejects_n(tmp_path):
    recorder = Recorder(tmp_path, "m", RecordMode.NEW_EPISODES)
    refusal = {"error": {"message": "unsupported", "type": "invalid_request_error", "param": "n"}}
    transport = TrustTransport(recorder, "/v1", httpx2.MockTransport(lambda request: httpx2.Response(400, json=refusal)))
    client = openai.OpenAI(base_url="http://127.0.0.1:18401/v1", api_key="no-key", max_retries=0,
                           http_client=httpx2.Client(transport=transport))
    model = Model("m", lambda _: client, transport, where="http://127.0.0.1:18401/v1/chat/completions")
    recorder.begin("bench", "S", "item/1")
    try:
        with pytest.raises(RejectsN, match=r"HTTP 400 \(unsupported\)"):
            model._create([{"role": "user", "content": "hi"}], {"n": 2})
    finally:
        recorder.tape = None
        model.close()



@pytest.mark.parametrize("content_type, body, kind", [
    ("text/html; charset=utf-8", b"<p>hi</p>", "an HTML page (content-type text/html)"),
    ("", b"\n  <!DOCTYPE html><html>", "an HTML page (no content-type)"),
    ("application/json", b"<html><body>Sign in</body></html>", "an HTML page (content-type application/json)"),
    ("text/event-stream", b'data: {"choices": []}\n\n', "an event stream (content-type text/event-stream)"),
    ("application/json", b'data: {"choices": []}\n\ndata: [DONE]\n\n', "an event stream (content-type application/json)"),
    ("application/json", b'{"choices": []}', None),
    ("application/json", b"{'choices': [oops", None),  # broken JSON: retried as a broken answer, not this
])
def test_an_answer_in_another_format_is_known_by_its_content_type_or_how_it_starts(content_type, body, kind):
    found = other_format({"content-type": content_type} if content_type else {}, body)
    assert (found.what if found else None) == kind


def test_an_event_stream_is_no_other_format_for_a_request_that_streams():
    assert other_format({"content-type": "text/event-stream"}, b"data: {}\n\n", streaming=True) is None


def test_the_excerpt_of_an_answer_in_another_format_is_redacted_before_it_is_cut():
    secret = "s3cret-" + "x" * 120  # longer than the excerpt: cut first, it would escape an exact-match redaction
    found = other_format({"content-type": "text/html"}, f"<html>{secret}</html>".encode())
    line = found.line(lambda text: text.replace(secret, "[redacted]"))
    assert "it starts '<html>[redacted]</html>'" in line and "s3cret" not in line


def test_a_bounded_transport_read_outside_the_capture_still_ends_at_its_deadline():
    """The model's live transport has its body read by vcrpy inside the request; read by a plain client after the
    headers, a trickling body (~12 s) is still cut at the deadline."""
    import time

    from fault_server import FaultServer

    from pytest_trust.endpoint.deadline import BoundedTransport

    with FaultServer(trickle_seconds=0.05) as server, httpx2.Client(transport=BoundedTransport(1)) as client:
        server.always = "trickle"
        started = time.monotonic()
        with pytest.raises(httpx2.ReadTimeout):
            client.post(f"{server.base_url}/chat/completions", json={"model": "m", "messages": []})
        assert time.monotonic() - started < 2
