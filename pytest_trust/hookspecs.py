"""Hooks pytest-trust calls, for a deployment's top-level conftest.py to implement (registered by
``pytest_addhooks`` in plugin.py)."""

from __future__ import annotations

import pytest


@pytest.hookspec(firstresult=True)
def pytest_trust_system_prompt(config: pytest.Config) -> str | None:
    """The deployment's system prompt, for a deployment that builds it in code; None for no prompt.

    Called once per run, at configure time, on the controller (xdist workers get its text), so only a
    conftest.py pytest loads before configuring (the rootdir's, or one beside the test paths given) is
    asked. ``--trust-system-prompt FILE`` wins: with it the hook is not called. The rule that puts the
    prompt in front of each benchmark's messages is in pytest_trust/system_prompt.py and docs/decisions.md.
    """
