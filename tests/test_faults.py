"""Reliability against a misbehaving endpoint: what is recorded, retried, reported and scored."""

from __future__ import annotations

import json
import socket
import time

import pytest
from conftest import HODOR_SUITE
from fault_server import BROKEN_200, UNSTORABLE, FaultServer

from pytest_trust.endpoint.breaker import LIMIT as BREAKER
from pytest_trust.endpoint.client import Endpoint, Model
from pytest_trust.errors import EndpointDown, ModelError
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.recording.answers import completion_problem
from pytest_trust.recording.cassettes import cassette_file, read_cassette

MESSAGES = [{"role": "user", "content": "hello"}]


def connect(tmp_path, server_url: str | None, retries: int = 1, timeout: float = 10.0,
            mode: RecordMode = RecordMode.NEW_EPISODES, key_env: str = "OPENAI_API_KEY") -> tuple[Recorder, Model]:
    recorder = Recorder(tmp_path, "m", mode)
    return recorder, Model.connect("m", recorder, Endpoint(server_url, timeout=timeout, max_retries=retries,
                                                           key_env=key_env))


def ask(recorder: Recorder, model: Model, item: str = "item/1", **decoding):
    recorder.begin("bench", "S", item)
    try:
        return model.chat(MESSAGES, **decoding)
    finally:
        recorder.end()


def recorded_texts(tmp_path) -> list[str]:
    by_item = read_cassette(cassette_file(tmp_path, "m", "bench", "S"))
    return [json.loads(i["response"]["body"]["string"])["choices"][0]["message"]["content"]
            for interactions in by_item.values() for i in interactions]


@pytest.mark.parametrize("fault", sorted(BROKEN_200 | UNSTORABLE) + ["429", "429-retry-after", "500", "502", "503",
                                                                   "close"])
def test_a_failed_answer_is_retried_and_only_the_good_one_recorded(tmp_path, fault):
    with FaultServer() as server:
        server.push(fault)
        recorder, model = connect(tmp_path, server.base_url)
        assert ask(recorder, model) == "ok"
        model.close()
    assert server.served == [fault, "ok"]
    recorder.merge()
    assert recorded_texts(tmp_path) == ["ok"]


@pytest.mark.parametrize("fault, cause", [
    ("malformed", "status 200 with a body that is not JSON"),
    ("truncated", "status 200 with a body that is not JSON"),
    ("error-body", "status 200 with an error body: injected error body"),
    ("empty-choices", "status 200 with no choices"),
    ("lone-surrogate", "status 200 with choice 0 whose content is not valid Unicode (a lone surrogate at character 3)"),
    ("invalid-utf8", "status 200 with a body that is not UTF-8 text (byte "),
    ("oversized", "status 200 with an answer of 3,145,"),
    ("503", "HTTP 503 (injected 503)"),
])
def test_a_lasting_failure_is_one_error_naming_the_cause_and_the_url_and_nothing_is_recorded(tmp_path, fault, cause):
    with FaultServer() as server:
        server.always = fault
        recorder, model = connect(tmp_path, server.base_url)
        with pytest.raises(ModelError) as raised:
            ask(recorder, model)
        model.close()
    message = str(raised.value)
    assert message.startswith(f"{server.base_url}/chat/completions failed after 2 attempts: {cause}")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    assert len(server.served) == 2 and recorder.merge().items == 0
    assert not cassette_file(tmp_path, "m", "bench", "S").exists()


@pytest.mark.slow
def test_a_hung_endpoint_times_out_and_is_retried(tmp_path):
    with FaultServer(hang_seconds=3) as server:
        server.push("hang")
        recorder, model = connect(tmp_path, server.base_url, timeout=0.5)
        assert ask(recorder, model) == "ok"
        server.push("hang", "hang")
        with pytest.raises(ModelError, match="failed after 2 attempts: no complete answer within --trust-timeout 0.5 s"):
            ask(recorder, model, item="item/2")
        model.close()


@pytest.mark.slow
def test_the_timeout_bounds_a_whole_attempt_of_an_answer_that_trickles_in_and_counts_as_a_failure(tmp_path):
    """Each byte arrives well within the timeout (httpx's timeouts are per read), the whole answer would take
    ~12 s: every attempt is cut at 1 s, retried, and calls failing so trip the breaker. One that trickles in
    within the timeout is recorded."""
    with FaultServer(trickle_seconds=0.001) as server:
        recorder, model = connect(tmp_path, server.base_url, retries=1, timeout=1)
        server.push("trickle")
        assert ask(recorder, model, item="item/quick") == "ok"
        server.trickle_seconds, server.always = 0.05, "trickle"
        started = time.monotonic()
        with pytest.raises(ModelError, match=r"failed after 2 attempts: no complete answer within --trust-timeout "
                                             r"1 s \(each attempt, from connecting to the answer's last byte\)"):
            ask(recorder, model)
        assert time.monotonic() - started < 5  # two attempts of 1 s, the client's backoff between them
        for n in range(BREAKER - 2):
            with pytest.raises(ModelError) as raised:
                ask(recorder, model, item=f"item/{n}")
            assert not isinstance(raised.value, EndpointDown)
        with pytest.raises(EndpointDown, match=f"{BREAKER} calls in a row failed"):
            ask(recorder, model, item="item/last")
        model.close()
    assert server.served == ["trickle"] * (1 + 2 * BREAKER)
    recorder.merge()
    assert recorded_texts(tmp_path) == ["ok"]


@pytest.mark.parametrize("fault, what, excerpt, cause", [
    ("html", "an HTML page (content-type text/html)", "'<!doctype html><html><body><h1>502 Bad Gateway</h1>",
     "--trust-base-url may point at a web page rather than the API"),
    ("event-stream", "an event stream (content-type text/event-stream)",
     """'data: {"choices": [{"index": 0, "delta": {"content": "[redacted]"}}]""",
     "a proxy in front of the endpoint may stream every answer"),
])
def test_an_answer_in_another_format_is_not_retried_and_its_error_says_what_came_back(tmp_path, monkeypatch, fault,
                                                                                       what, excerpt, cause):
    key = "sk-proj-" + "k3y" * 12
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FaultServer(lambda body: key) as server:  # an excerpt shows no key, whatever the endpoint sent
        server.always = fault
        recorder, model = connect(tmp_path, server.base_url, retries=4)
        with pytest.raises(ModelError) as raised:
            ask(recorder, model)
        model.close()
    message = str(raised.value)
    assert message.startswith(f"{server.base_url}/chat/completions failed after 1 attempt: status 200 with {what} "
                              f"where the request asked for one JSON answer: it starts {excerpt}")
    assert cause in message and key not in message
    assert server.served == [fault] and recorder.merge().items == 0


def test_a_redirect_is_not_followed_and_its_error_says_where_it_points(tmp_path):
    with FaultServer() as elsewhere, FaultServer() as server:
        server.always = "redirect"
        server.redirect_to = elsewhere.base_url.replace("127.0.0.1", "localhost")  # another host
        recorder, model = connect(tmp_path, server.base_url, retries=4)
        errors = []
        for n in range(BREAKER):
            with pytest.raises(ModelError) as raised:
                ask(recorder, model, item=f"item/{n}")
            errors.append(raised.value)
        model.close()
    moved = server.redirect_to
    assert str(errors[0]) == (f"{server.base_url}/chat/completions failed after 1 attempt: HTTP 307, a redirect to "
                              f"{moved}/chat/completions: redirects are not followed, so that the key is not sent "
                              f"elsewhere; set --trust-base-url to the final address ({moved})")
    assert isinstance(errors[-1], EndpointDown)  # every call would meet it: the run stops
    assert server.served == ["redirect"] * BREAKER and elsewhere.served == []


@pytest.mark.parametrize("fault, finish_reason, withheld, irregular", [
    ("length", "length", False, "length"),
    ("content_filter", "content_filter", True, "content_filter"),
    ("tool_calls", "tool_calls", True, "tool_calls"),
    ("null-content", "stop", True, "no content"),
    ("empty-content", "stop", False, "empty"),
])
def test_irregular_answers_are_recorded_as_what_they_are_and_replay_so(tmp_path, fault, finish_reason, withheld,
                                                                       irregular):
    with FaultServer(lambda body: "a long answer") as server:
        server.always = fault
        recorder, model = connect(tmp_path, server.base_url)
        answer = ask(recorder, model)
        assert model.take_irregular() == ({irregular: 1} if irregular else {})
        model.close()
    recorder.merge()
    replayer, replay_model = connect(tmp_path, None, mode=RecordMode.NONE)
    replayed = ask(replayer, replay_model)
    for got in (answer, replayed):
        assert (str(got), got.finish_reason, got.withheld) == (
            "a l" if fault == "length" else "", finish_reason, withheld)


def test_the_breaker_stops_after_calls_failing_in_a_row_and_a_success_resets_it(tmp_path):
    with FaultServer() as server:
        recorder, model = connect(tmp_path, server.base_url, retries=0)
        server.push(*["503"] * (BREAKER - 1))
        for n in range(BREAKER - 1):
            with pytest.raises(ModelError) as raised:
                ask(recorder, model, item=f"item/{n}")
            assert not isinstance(raised.value, EndpointDown)
        assert ask(recorder, model, item="item/ok") == "ok"  # resets the count
        server.always = "503"
        for n in range(BREAKER - 1):
            with pytest.raises(ModelError):
                ask(recorder, model, item=f"item/again{n}")
        with pytest.raises(EndpointDown, match=f"{BREAKER} calls in a row failed, so the run stops"):
            ask(recorder, model, item="item/last")
        model.close()


def test_a_dead_endpoint_is_named_in_the_error(tmp_path):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    recorder, model = connect(tmp_path, f"http://user:pw@127.0.0.1:{port}/v1?api-key=Q", retries=0)
    with pytest.raises(ModelError) as raised:
        ask(recorder, model)
    assert str(raised.value).startswith(f"http://127.0.0.1:{port}/v1/chat/completions failed after 1 attempt: "
                                        "connection failed (ConnectError")
    assert "pw" not in str(raised.value) and "api-key" not in str(raised.value)


def test_a_key_the_endpoint_echoes_in_its_error_is_redacted_from_the_message(tmp_path, monkeypatch):
    key = "proxy-key-that-has-no-known-shape"  # only its exact value can find it
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FaultServer() as server:
        server.always = "401-echo-key"
        recorder, model = connect(tmp_path, server.base_url, retries=0)
        errors = []
        for n in range(BREAKER):
            with pytest.raises(ModelError) as raised:
                ask(recorder, model, item=f"item/{n}")
            errors.append(str(raised.value))
        model.close()
    assert server.headers[0]["authorization"] == f"Bearer {key}"  # the endpoint did echo it
    assert errors[0] == (f"{server.base_url}/chat/completions failed after 1 attempt: "
                         "HTTP 401 (Incorrect API key provided: Bearer [redacted]): the endpoint refused the key read "
                         "from $OPENAI_API_KEY; set it to this endpoint's key (--trust-api-key-env VAR reads it from "
                         "another variable)")
    assert "calls in a row failed" in errors[-1]  # EndpointDown's message too
    assert not [e for e in errors if key in e]


def test_a_key_read_from_another_variable_is_sent_named_when_refused_and_redacted(tmp_path, monkeypatch):
    key = "gateway-key-of-another-shape"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ACME_GATEWAY_KEY", key)
    with FaultServer() as server:
        server.always = "401-echo-key"
        recorder, model = connect(tmp_path, server.base_url, retries=0, key_env="ACME_GATEWAY_KEY")
        with pytest.raises(ModelError) as raised:
            ask(recorder, model)
        model.close()
    assert server.headers[0]["authorization"] == f"Bearer {key}"  # read from the variable named
    assert "refused the key read from $ACME_GATEWAY_KEY" in str(raised.value) and key not in str(raised.value)


def test_a_cookie_the_endpoint_sets_is_never_sent_back(tmp_path):
    with FaultServer() as server:
        server.push("set-cookie", "ok")
        recorder, model = connect(tmp_path, server.base_url)
        assert ask(recorder, model, item="item/1") == ask(recorder, model, item="item/2") == "ok"
        model.close()
        server.push("set-cookie", "ok")  # nor by the client of the Files and Batches APIs
        with Endpoint(server.base_url).plain_client() as plain:
            for _ in range(2):
                plain.chat.completions.create(model="m", messages=MESSAGES)
    assert server.served == ["set-cookie", "ok"] * 2
    assert [headers.get("cookie") for headers in server.headers] == [None] * 4


def test_a_query_string_in_the_base_url_reaches_the_endpoint_and_keeps_the_path(tmp_path):
    with FaultServer() as server:
        recorder, model = connect(tmp_path, server.base_url + "?api-version=2024-06-01&api-key=Q")
        assert ask(recorder, model) == "ok"
        model.close()
    assert server.paths == ["/v1/chat/completions?api-version=2024-06-01&api-key=Q"]


@pytest.mark.parametrize("body, problem", [
    ('{"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]}', None),
    ('{"choices": [{"message": {"content": null}, "finish_reason": "content_filter"}]}', None),
    ("", "a body that is not JSON"),
    ("[1, 2]", "JSON that is not an object (list)"),
    ('{"error": {"message": "quota"}}', "an error body: quota"),
    ('{"choices": {}}', "no choices"),
    ('{"choices": [{"message": "x"}]}', "choice 0 without a message"),
    ('{"choices": [{"message": {"content": 3}}]}', "choice 0 whose content is not text"),
    ('{"choices": [{"message": {"content": "x"}, "finish_reason": 1}]}', "choice 0 whose finish_reason is not text"),
])
def test_completion_problem_names_what_is_wrong(body, problem):
    found = completion_problem(body.encode())
    assert found == problem if problem is None or not problem.endswith("JSON") else found.startswith(problem)


def test_fewer_choices_than_asked_is_not_a_completion():
    body = json.dumps({"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}]})
    assert completion_problem(body, n=3) == "1 choices where 3 were asked for"


# --- inside pytest: scoring, stopping, the error-rate gate, a dead worker -------------------------

HODOR = HODOR_SUITE.replace("import json\n", "import json\nimport os\n").replace(
    "def test_hodor(trust_result):\n", """def test_hodor(trust_result, request):
    if request.node.callspec.id == os.environ.get("CRASH_ON"):
        os._exit(3)  # the worker dies with this item in flight
""")


@pytest.fixture
def hodor(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_suite=HODOR)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", *args)


@pytest.mark.slow
def test_a_content_filter_fails_rules_cases_as_invalid_and_the_summary_says_so(hodor):
    with FaultServer(lambda body: "Hodor") as server:
        server.always = "content_filter"
        result = run(hodor, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-limit", "2",
                     "--trust-report", "report.json")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*the endpoint withheld the answer (finish_reason content_filter)*",
                                 "answers of rules_v1 that were not plain text: 2 withheld by a content filter"])
    report = json.loads((hodor.path / "report.json").read_text())
    assert report["irregular_answers"] == {"rules_v1": {"content_filter": 2}}
    verdict = report["items"][0]["verdict"]
    assert (verdict["passed"], verdict["invalid"], verdict["refused"]) == (False, True, True)
    assert run(hodor, "--trust-limit", "2", "--block-network").parseoutcomes() == {"failed": 2}  # replays so


@pytest.mark.slow
def test_a_down_endpoint_stops_the_run_with_one_message(hodor):
    with FaultServer() as server:
        server.always = "503"
        result = run(hodor, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-retries", "0")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert len(server.served) == BREAKER  # not one call per item of the suite
    result.stdout.fnmatch_lines([(f"*Interrupted: pytest-trust: {server.base_url}/chat/completions failed after "
                                  f"1 attempt: HTTP 503 (injected 503); {BREAKER} calls in a row failed*")])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.slow
def test_an_answer_that_trickles_in_stops_the_run_at_the_timeout_and_help_says_what_it_bounds(hodor):
    with FaultServer(lambda body: "Hodor", trickle_seconds=0.05) as server:
        server.always = "trickle"
        started = time.monotonic()
        result = run(hodor, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-retries", "0",
                     "--trust-timeout", "1")
        took = time.monotonic() - started
    assert result.ret == pytest.ExitCode.INTERRUPTED and len(server.served) == BREAKER
    result.stdout.fnmatch_lines([(f"*Interrupted: pytest-trust: {server.base_url}/chat/completions failed after "
                                  "1 attempt: no complete answer within --trust-timeout 1 s*calls in a row failed*")])
    assert took < 20  # 3 attempts of 1 s, not the ~12 s each answer would take to trickle in
    help_text = " ".join(run(hodor, "--help").stdout.str().split())
    assert "--trust-timeout=SECONDS seconds each attempt of a request may take when recording, from connecting " \
           "to the answer's last byte" in help_text


@pytest.mark.slow
def test_errored_items_are_left_out_of_metrics_counted_and_gated(hodor):
    with FaultServer(lambda body: "Hodor") as server:
        server.push("503")  # the first item errors, the others record
        run(hodor, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-retries", "0",
            "--trust-limit", "6")
    hodor.path.joinpath("thresholds.yaml").write_text("default:\n  rules_v1.error_rate: {max: 0.0}\n")
    result = run(hodor, "--trust-limit", "6", "--block-network", "--trust-report", "report.json")
    report = json.loads((hodor.path / "report.json").read_text())
    assert report["counts"] == {"passed": 5, "error": 1}
    assert report["metrics"]["rules_v1.systematic"]["n"] == 5
    assert report["metrics"]["rules_v1.error_rate"]["value"] == pytest.approx(1 / 6)
    assert report["gates"][0]["status"] == "FAIL" and result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.slow
def test_a_dead_worker_loses_only_the_item_it_was_running(hodor, monkeypatch):
    with FaultServer(lambda body: "Hodor") as server:
        run(hodor, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-limit", "12")
    ids = sorted(line.split("[", 1)[1].rstrip("]") for line in
                 run(hodor, "--trust-limit", "12", "--collect-only", "-q").stdout.lines if "::test_hodor[" in line)
    assert len(ids) == 12
    monkeypatch.setenv("CRASH_ON", ids[-1])
    result = run(hodor, "--trust-limit", "12", "-n", "2", "--block-network", "--trust-report", "report.json")
    report = json.loads((hodor.path / "report.json").read_text())
    assert report["metrics"]["rules_v1.systematic"]["n"] == 11  # every result its workers finished
    assert report["lost"] == [f"test_suite.py::test_hodor[{ids[-1]}]"]
    assert report["metrics"]["rules_v1.error_rate"]["value"] == pytest.approx(1 / 12)
    result.stdout.fnmatch_lines(["lost: 1 item(s) whose xdist worker died while running them*"])


@pytest.mark.slow
def test_a_corrupt_cassette_errors_its_items_naming_it_and_rewrite_repairs_it(hodor):
    with FaultServer(lambda body: "Hodor") as server:
        run(hodor, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-limit", "2")
        cassette = hodor.path / "cassettes" / "canned" / "rules_v1" / "systematic.Hodor.json"
        cassette.write_text(cassette.read_text()[:100])
        broken = run(hodor, "--trust-limit", "2", "--block-network")
        broken.assert_outcomes(errors=2)
        broken.stdout.fnmatch_lines([f"*corrupt cassette: cassette {cassette} cannot be read*--record-mode=rewrite*",
                                     "*items: 2 error (errors: 2 corrupt cassette)*"])
        assert "Traceback" not in broken.stdout.str() and "During handling" not in broken.stdout.str()
        run(hodor, "--record-mode=rewrite", "--trust-base-url", server.base_url, "--trust-limit", "2")
    run(hodor, "--trust-limit", "2", "--block-network").assert_outcomes(passed=2)


@pytest.mark.slow
def test_a_cassette_of_another_version_errors_its_items_naming_it_and_the_versions_read(hodor):
    with FaultServer(lambda body: "Hodor") as server:
        run(hodor, "--record-mode=once", "--trust-base-url", server.base_url, "--trust-limit", "2")
    cassette = hodor.path / "cassettes" / "canned" / "rules_v1" / "systematic.Hodor.json"
    cassette.write_text(cassette.read_text().replace('{"version": 1,', '{"version": 99,', 1))
    result = run(hodor, "--trust-limit", "2", "--block-network")
    result.assert_outcomes(errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([(f"corrupt cassette, 2 items errored: cassette {cassette} has version 99, but this "
                                  "release of pytest-trust reads version 1 only*--record-mode=rewrite*"),
                                 "*items: 2 error (errors: 2 corrupt cassette)*"])
    assert result.stdout.str().count("corrupt cassette, ") == 1  # the summary names the file once
    assert "Traceback" not in result.stdout.str() and "During handling" not in result.stdout.str()


def test_requests_the_endpoint_rejects_one_by_one_do_not_trip_the_breaker(tmp_path, fake_model):
    server = fake_model("fixed", answer="ok", reject_n=True)
    recorder, model = connect(tmp_path, server.base_url, retries=0)
    for n in range(BREAKER + 2):  # e.g. threads probing n=k before the fallback to seeds is learnt
        with pytest.raises(ModelError) as raised:
            ask(recorder, model, item=f"item/{n}", n=3)
        assert not isinstance(raised.value, EndpointDown) and "HTTP 400" in str(raised.value)
    model.close()
