"""Hooks pytest-trust calls, for a deployment's top-level conftest.py to implement (registered by
``pytest_addhooks`` in plugin.py)."""

from __future__ import annotations

import pytest


@pytest.hookspec(firstresult=True)
def pytest_trust_system_prompt(config: pytest.Config) -> str | None:
    """The deployment's system prompt, for a deployment that builds it in code; None for no prompt.

    The shorthand of :func:`pytest_trust_deployment` for a deployment that is a system prompt alone: returning
    ``text`` here is returning ``{"system_prompt": text}`` there (same checks, digest and recordings folder).
    Asked only when the deployment hook gives no system prompt. Called once per run, at configure time, on the controller (xdist workers get its text), so only a
    conftest.py pytest loads before configuring (the rootdir's, or one beside the test paths given) is
    asked. ``--trust-system-prompt FILE`` wins: with it the hook is not called. The rule that puts the
    prompt in front of each benchmark's messages is in pytest_trust/endpoint/system_prompt.py and docs/decisions.md.
    """


@pytest.hookspec(firstresult=True)
def pytest_trust_deployment(config: pytest.Config) -> dict | None:
    """How the deployment shapes every request before it is sent; None for as the benchmarks send them.

    A dict of any of: "system_prompt" (a str, put first as --trust-system-prompt's text is), "user_template"
    (a str holding {user} once: each user turn's text goes there), "preamble" (a list of messages, each
    {"role": "system"|"user"|"assistant", "content": str}, after the benchmark's system message). Recordings
    go to cassettes/<model>+deploy-<sha256[:12]>/, the digest of what this returned (a system prompt alone:
    +prompt-, as from a file). Called once per run on the controller; --trust-system-prompt FILE replaces
    its system_prompt, and its system_prompt wins over pytest_trust_system_prompt.
    """


@pytest.hookspec(firstresult=True)
def pytest_trust_target(config: pytest.Config) -> object | None:
    """The application under test, for one built in code: a callable ``function(messages, params)`` returning
    the answer's text (or a list of ``params["n"]`` texts), sync or async, or ``(callable, "version")``.

    A recording run calls it instead of a model endpoint (served behind a local OpenAI-compatible server, so
    retries, timeouts, --trust-concurrency and the recordings work as for an endpoint); a replay serves what it
    answered and never calls it. Recordings go to cassettes/<model>+app-<sha256[:12]>/, the digest of its name
    and the declared version, else its module's source. ``--trust-target module:function`` wins over it.
    """
