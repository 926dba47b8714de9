"""The application as the target (--trust-target, pytest_trust_target): its answers are what the benchmarks
judge. The parts with hand-written applications; the whole with the real local model behind a small
retrieval-style application, sync and async, recorded, then replayed with the model server stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import HODOR_SUITE, ROOT, hodor_ids, local_model_healthy, require_local_model

from pytest_trust.endpoint.target import FOLDER_MARK, TargetFault, answers, digest

MODEL = "smollm2-135m-instruct"
PORT = "18182"  # not the recording port (18080) nor test_live_model's
BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0, "max_tokens": 5}


def never(awaitable):
    raise AssertionError("a sync target is not awaited")


def test_the_application_is_called_with_the_conversation_and_the_decoding_parameters():
    seen = []

    def app(messages, params):
        seen.append((messages, params))
        return "hello"

    assert answers(app, BODY, never) == ["hello"]
    assert seen == [(BODY["messages"], {"temperature": 0, "max_tokens": 5})]  # no model: the target is the model


def test_one_text_for_n_answers_calls_the_application_n_times_in_order_and_a_list_is_taken_whole():
    texts = iter(["a", "b", "c"])
    assert answers(lambda m, p: next(texts), {**BODY, "n": 3}, never) == ["a", "b", "c"]
    assert answers(lambda m, p: ["x", "y"], {**BODY, "n": 2}, never) == ["x", "y"]


@pytest.mark.parametrize("app, message", [
    (lambda m, p: 42, "the application returned int 42; return the answer's text (a str)"),
    (lambda m, p: ["only one"], ("the application returned list ['only one']; return the answer's text (a str), or "
                                "a list of 2 texts when params['n'] is 2")),
    (lambda m, p: {}["missing"], "the application raised KeyError: 'missing'"),
])
def test_what_the_application_does_wrong_is_a_fault_naming_it(app, message):
    with pytest.raises(TargetFault) as raised:
        answers(app, {**BODY, "n": 2} if "list" in message else BODY, never)
    assert str(raised.value).startswith(message)


def test_the_folder_is_named_by_the_declared_version_else_by_the_module_source():
    assert digest("app:reply", "v3", "source one") == digest("app:reply", "v3", "source two")
    assert digest("app:reply", None, "source one") != digest("app:reply", None, "source two")
    assert digest("app:reply", "v3", None) != digest("app:other", "v3", None)


APP = '''
import os

from openai import AsyncOpenAI, OpenAI

open(os.path.join(os.path.dirname(__file__), "imported.flag"), "w").close()  # a replay must never import it

FAQ = "Acme's help desk answers questions about Acme's products."  # the retrieved context, every time


def _conversation(messages):
    return [{"role": "system", "content": "Context: " + FAQ}, *messages]


def reply(messages, params):
    client = OpenAI(base_url=os.environ["APP_MODEL_URL"], api_key="local")
    answer = client.chat.completions.create(model="local", messages=_conversation(messages),
                                            max_tokens=params.get("max_tokens") or 64, temperature=0)
    return answer.choices[0].message.content


async def areply(messages, params):
    async with AsyncOpenAI(base_url=os.environ["APP_MODEL_URL"], api_key="local") as client:
        answer = await client.chat.completions.create(model="local", messages=_conversation(messages),
                                                      max_tokens=params.get("max_tokens") or 64, temperature=0)
    return answer.choices[0].message.content


def broken(messages, params):
    raise ConnectionError("the vector store at http://10.0.0.9:6333 is down")
'''


@pytest.mark.live
@pytest.mark.slow
def test_an_application_over_the_local_model_records_then_replays_without_it(pytester, tmp_path):
    require_local_model()
    env = {**os.environ, "PYTEST_TRUST_SERVER_DIR": str(tmp_path)}
    script = [sys.executable, str(ROOT / "scripts" / "local_model.py")]
    pytester.makepyfile(test_suite=HODOR_SUITE, app=APP)
    limit = ["-p", "no:cacheprovider", "--model", MODEL, "--trust-limit", "1", "-rE"]
    record = [*limit, "--record-mode=once", "--trust-report", "recorded.json"]
    started = subprocess.run([*script, "start", "--port", PORT], env=env, capture_output=True, text=True,
                             timeout=300, check=False)
    assert started.returncode == 0, started.stderr
    os.environ["APP_MODEL_URL"] = f"http://127.0.0.1:{PORT}/v1"  # the application's own endpoint, not ours
    try:
        assert local_model_healthy(PORT)
        synced = pytester.runpytest_subprocess(*record, "--trust-target", "app:reply")
        awaited = pytester.runpytest_subprocess(*record, "--trust-target", "app:areply", "--trust-concurrency", "2")
        raising = pytester.runpytest_subprocess(*record, "--trust-target", "app:broken", "--trust-report",
                                                "broken.json", "--trust-limit", "3")  # 3 failures in a row
        pytester.path.joinpath("app.py").write_text(APP + "\n# edited: a new prompt in the retrieval step\n")
        edited = pytester.runpytest_subprocess(*record, "--trust-target", "app:reply")
    finally:
        os.environ.pop("APP_MODEL_URL", None)
        subprocess.run([*script, "stop", "--port", PORT], env=env, capture_output=True, timeout=120, check=False)
    assert not local_model_healthy(PORT)
    items = len(set(hodor_ids()))
    for run in (synced, awaited, edited):
        outcomes = run.parseoutcomes()
        assert outcomes.get("passed", 0) + outcomes.get("failed", 0) >= 1 and "error" not in outcomes, run.outlines
    folders = sorted(p.name for p in (pytester.path / "cassettes").iterdir() if FOLDER_MARK in p.name)
    assert len(folders) == 3 and all(name.startswith(f"{MODEL}{FOLDER_MARK}") for name in folders)  # sync, async, edited
    assert any("application app:reply" in line and "recordings in" in line for line in synced.outlines)

    broken = json.loads((pytester.path / "broken.json").read_text())
    errored = [item for item in broken["items"] if "error" in item]
    assert errored and all(item["error"] == "model error" for item in errored)
    assert "the application raised ConnectionError: the vector store at" in errored[0]["error_message"]
    assert raising.ret == pytest.ExitCode.INTERRUPTED and "calls in a row failed" in raising.stdout.str()
    assert broken["run"]["target"]["name"] == "app:broken" and len(folders) == 3  # nothing of it was recorded

    recorded = json.loads((pytester.path / "recorded.json").read_text())  # the edited application's run
    flag = pytester.path / "imported.flag"
    flag.unlink()
    replayed = pytester.runpytest_subprocess(*limit, "--block-network", "--trust-target", "app:reply",
                                             "--trust-report", "replayed.json")
    assert replayed.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), replayed.outlines
    assert not flag.exists()  # served from the recordings: the application was neither imported nor called
    again = json.loads((pytester.path / "replayed.json").read_text())
    verdicts = {i["id"]: i["verdict"]["passed"] for i in recorded["items"] if "verdict" in i}
    assert verdicts and {i["id"]: i["verdict"]["passed"] for i in again["items"] if "verdict" in i} == verdicts
    assert again["run"]["target"] == recorded["run"]["target"] and items >= len(verdicts)

