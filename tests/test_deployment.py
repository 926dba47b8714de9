"""The pytest_trust_deployment hook: a deployment's system prompt, user-turn template and preamble on every
request, recordings in a folder named by the digest of what the hook produced, the report naming it."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import HODOR_SUITE
from fake_model import FakeModelServer

from pytest_trust.endpoint.system_prompt import SEPARATOR, SystemPrompt

PROMPT = "You are Acme's support assistant."
TEMPLATE = "Customer (verified account) writes:\n{user}\nAnswer politely."
PREAMBLE = [{"role": "assistant", "content": "Hello! How can I help you today?"}]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def conftest(prompt: str | None = PROMPT, template: str | None = TEMPLATE, preamble: list | None = None) -> str:
    shaped = {"system_prompt": prompt, "user_template": template, "preamble": PREAMBLE if preamble is None else preamble}
    return f"def pytest_trust_deployment(config):\n    return {shaped!r}\n"


def test_the_template_wraps_each_user_turn_and_the_preamble_follows_the_system_message():
    shaped = SystemPrompt(PROMPT, "conftest.py", user_template=TEMPLATE, preamble=tuple(PREAMBLE))
    conversation = [{"role": "system", "content": "The rules."}, {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "Hodor"}, {"role": "user", "content": "why?"}]
    assert shaped.apply(conversation) == [
        {"role": "system", "content": PROMPT + SEPARATOR + "The rules."}, *PREAMBLE,
        {"role": "user", "content": TEMPLATE.replace("{user}", "hi")}, {"role": "assistant", "content": "Hodor"},
        {"role": "user", "content": TEMPLATE.replace("{user}", "why?")}]
    # no system message of the benchmark's: the prompt first, then the preamble; braces in a turn stay as they are
    assert shaped.apply([{"role": "user", "content": "{x}"}]) == [
        {"role": "system", "content": PROMPT}, *PREAMBLE, {"role": "user", "content": TEMPLATE.replace("{user}", "{x}")}]
    template_only = SystemPrompt(None, "conftest.py", user_template="[{user}]")
    assert template_only.apply(conversation[:2]) == [conversation[0], {"role": "user", "content": "[hi]"}]


def test_the_folder_is_the_digest_of_what_the_deployment_produced():
    prompt_only = SystemPrompt(PROMPT, "conftest.py")
    assert prompt_only.folder("m") == f"m+prompt-{digest(PROMPT)[:12]}"  # as --trust-system-prompt with this text
    shaped = SystemPrompt(PROMPT, "conftest.py", user_template=TEMPLATE)
    other = SystemPrompt(PROMPT, "conftest.py", user_template=TEMPLATE + " ")
    assert shaped.folder("m").startswith("m+deploy-") and shaped.folder("m") != other.folder("m")
    assert SystemPrompt(PROMPT, "elsewhere.py", user_template=TEMPLATE).folder("m") == shaped.folder("m")


class Hooks:
    """What ``config.hook`` answers for the two deployment hooks, with the calls it was asked."""

    def __init__(self, deployment: object = None, prompt: object = None):
        self.answers = {"pytest_trust_deployment": deployment, "pytest_trust_system_prompt": prompt}
        self.asked: list[str] = []

    def __getattr__(self, name: str):
        def call(config):
            self.asked.append(name)
            return self.answers[name]

        return call


def shaped_by(deployment: object = None, prompt: object = None, ask_prompt: bool = True):
    from types import SimpleNamespace

    from pytest_trust.endpoint.deployment import from_hooks

    hooks = Hooks(deployment, prompt)
    return from_hooks(SimpleNamespace(hook=hooks), lambda hook: f"{hook}.py", ask_prompt), hooks.asked


def test_the_prompt_hook_is_the_deployment_hooks_shorthand_for_its_system_prompt():
    by_shorthand, asked = shaped_by(prompt=PROMPT + "\r\n")
    by_deployment, _ = shaped_by(deployment={"system_prompt": PROMPT})
    assert asked == ["pytest_trust_deployment", "pytest_trust_system_prompt"]
    assert by_shorthand == {**by_deployment, "prompt_from": "pytest_trust_system_prompt.py"}
    assert by_deployment["prompt_from"] == "pytest_trust_deployment.py"
    # with a template but no prompt, the shorthand's prompt joins it; the deployment's own prompt wins
    joined, _ = shaped_by(deployment={"user_template": TEMPLATE}, prompt=PROMPT)
    assert (joined["system_prompt"], joined["user_template"]) == (PROMPT, TEMPLATE)
    both, asked = shaped_by(deployment={"system_prompt": "theirs"}, prompt=PROMPT)
    assert both["system_prompt"] == "theirs" and asked == ["pytest_trust_deployment"]
    # --trust-system-prompt given: the shorthand is not asked
    assert shaped_by(prompt=PROMPT, ask_prompt=False) == (None, ["pytest_trust_deployment"])
    with pytest.raises(pytest.UsageError, match="pytest_trust_system_prompt in pytest_trust_system_prompt.py "
                                                "returned an empty prompt"):
        shaped_by(prompt="  \n")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--trust-limit", "4", *args)


@pytest.mark.slow
def test_every_request_is_shaped_recorded_in_its_folder_replayed_and_named(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    pytester.makeconftest(conftest())
    with FakeModelServer("fixed", answer="Hodor") as server:
        recorded = run(pytester, "-n", "2", "--record-mode=once", "--trust-base-url", server.base_url)
    assert recorded.ret == 0, recorded.stdout.str()
    assert len(server.requests) >= 4
    for body in server.requests:  # every process sent the controller's deployment
        messages = body["messages"]
        assert messages[0]["content"] == PROMPT and messages[1] == PREAMBLE[0]  # RuLES v1: an empty system message
        users = [m["content"] for m in messages if m["role"] == "user"]
        assert users and all(u.startswith("Customer (verified account) writes:\n") for u in users)
    sha = SystemPrompt(PROMPT, "conftest.py", user_template=TEMPLATE, preamble=tuple(PREAMBLE)).sha256
    assert [p.name for p in (pytester.path / "cassettes").iterdir()] == [f"canned+deploy-{sha[:12]}"]

    replayed = run(pytester, "--block-network", "--trust-report", "r.json")
    assert replayed.ret == 0, replayed.stdout.str()
    named = f"conftest.py (system prompt, user template, preamble of 1 message(s); sha256 {sha[:12]})"
    replayed.stdout.fnmatch_lines([f"pytest-trust: deployment {named}; recordings in *canned+deploy-{sha[:12]}",
                                   f"deployment {named}*"])
    run_section = json.loads((pytester.path / "r.json").read_text())["run"]
    assert run_section["system_prompt"] == {"source": "conftest.py", "sha256": sha, "chars": len(PROMPT),
                                            "shapes": ["system prompt", "user template", "preamble of 1 message(s)"]}
    assert run_section["deviations"]["deployment"] == named

    pytester.makeconftest(conftest(template="Customer writes: {user}"))  # another template: other recordings
    changed = run(pytester, "--block-network")
    assert changed.ret == pytest.ExitCode.USAGE_ERROR
    changed.stderr.fnmatch_lines([("*no recordings of canned with deployment conftest.py (system prompt, user "
                                  "template, preamble of 1 message(s); sha256 *) for rules_v1 in *canned+deploy-*")])


@pytest.mark.slow
def test_the_option_replaces_the_deployments_prompt_and_keeps_its_template(pytester):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    pytester.makeconftest(conftest(preamble=[]))
    pytester.path.joinpath("candidate.txt").write_text("A candidate prompt.\n")
    with FakeModelServer("fixed", answer="Hodor") as server:
        result = run(pytester, "--record-mode=once", "--trust-base-url", server.base_url,
                     "--trust-system-prompt", "candidate.txt", "--trust-report", "r.json")
    assert result.ret == 0, result.stdout.str()
    first = server.requests[0]["messages"]
    assert first[0]["content"] == "A candidate prompt." and first[1]["content"].startswith("Customer (verified")
    assert json.loads((pytester.path / "r.json").read_text())["run"]["system_prompt"]["source"] == \
        "candidate.txt + conftest.py"


@pytest.mark.parametrize("returned, expected", [
    ("42", "returned int, not a dict of system_prompt, user_template, preamble"),
    ("{'user_templte': '{user}'}", "returned the key 'user_templte'; did you mean 'user_template'?"),
    ("{'user_template': 'no placeholder'}", "user_template must be a str holding {user} once"),
    ("{'preamble': [{'role': 'bot', 'content': 'hi'}]}", "preamble must be a list of messages"),
    ("{'system_prompt': ''}", "returned a deployment that changes nothing; return None"),
])
@pytest.mark.slow
def test_a_bad_deployment_is_one_usage_error_naming_the_conftest(pytester, returned, expected):
    pytester.makepyfile(test_suite=HODOR_SUITE)
    pytester.makeconftest(f"def pytest_trust_deployment(config):\n    return {returned}\n")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest_trust_deployment in conftest.py {expected}*"])
    assert "Traceback" not in result.stderr.str()
