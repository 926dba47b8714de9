"""The deployment hook: how a deployment shapes every request before it is sent.

An application rarely sends a benchmark's turns as they are: it puts its system prompt first, wraps each
user message in a template, and may start every conversation with fixed messages (a greeting, examples).
The hook returns those three as a mapping; this module checks it (one usage error naming the conftest.py
and the fix) and turns it into the run's :class:`~pytest_trust.endpoint.system_prompt.SystemPrompt`, which applies
them and names the recordings folder after a digest of what the hook produced.

``pytest_trust_system_prompt`` is the deployment hook's shorthand for ``{"system_prompt": text}``: its text is
asked for only when the deployment hook gives no prompt, and becomes the deployment's prompt here, so there is
one deployment and one way it is checked, digested and applied.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

import pytest

HOOK = "pytest_trust_deployment"
PROMPT_HOOK = "pytest_trust_system_prompt"  # the shorthand for {"system_prompt": text}
KEYS = ("system_prompt", "user_template", "preamble")
PLACEHOLDER = "{user}"  # where a user turn's text goes in the template (str.replace: other braces are literal)
ROLES = ("system", "user", "assistant")


def from_hooks(config: pytest.Config, where: Callable[[str], str], ask_prompt: bool) -> dict[str, Any] | None:
    """The deployment the conftest.py hooks describe, checked: :func:`from_hook`'s mapping, its prompt taken from
    the shorthand hook when the deployment hook gives none and ``ask_prompt`` (no --trust-system-prompt), and
    ``"prompt_from"``, the file whose hook gave the prompt. ``where(hook)`` names a hook's conftest.py."""
    shaped = from_hook(config, where(HOOK))
    if shaped is not None and shaped["system_prompt"] is not None:
        return {**shaped, "prompt_from": where(HOOK)}
    text = config.hook.pytest_trust_system_prompt(config=config) if ask_prompt else None
    if text is None:
        return None if shaped is None else {**shaped, "prompt_from": None}
    prompt_from = where(PROMPT_HOOK)
    shaped = shaped or {"user_template": None, "preamble": ()}
    return {**shaped, "system_prompt": _shorthand_prompt(text, prompt_from), "prompt_from": prompt_from}


def _shorthand_prompt(text: Any, where: str) -> str:
    if not isinstance(text, str):
        raise pytest.UsageError(f"{PROMPT_HOOK} in {where} returned {type(text).__name__}, not the prompt's text: "
                                "return a str, or None for no system prompt")
    text = normalised(text)
    if not text.strip():
        raise pytest.UsageError(f"{PROMPT_HOOK} in {where} returned an empty prompt: return the prompt's text, "
                                "or None for no system prompt")
    return text


def from_hook(config: pytest.Config, where: str) -> dict[str, Any] | None:
    """The hook's deployment, checked: {"system_prompt": str | None, "user_template": str | None, "preamble":
    tuple of messages}; None when no conftest.py implements the hook or it returned None."""
    value = config.hook.pytest_trust_deployment(config=config)
    if value is None:
        return None
    fail = _failer(where)
    if not isinstance(value, Mapping):
        fail(f"returned {type(value).__name__}, not a dict of {', '.join(KEYS)}")
    unknown = [k for k in value if k not in KEYS]
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), KEYS, n=1)
        fail(f"returned the key {unknown[0]!r}" + (f"; did you mean {close[0]!r}?" if close else "")
             + f" (the keys: {', '.join(KEYS)})")
    if not any(value.get(k) for k in KEYS):
        fail("returned a deployment that changes nothing; return None for no deployment")
    prompt = value.get("system_prompt")
    if prompt is not None and (not isinstance(prompt, str) or not prompt.strip()):
        fail("system_prompt must be the prompt's text (a non-empty str), or None for none")
    template = value.get("user_template")
    if template is not None and (not isinstance(template, str) or template.count(PLACEHOLDER) != 1):
        fail(f"user_template must be a str holding {PLACEHOLDER} once, where each user turn's text goes "
             f"(e.g. 'Customer asks: {PLACEHOLDER}')")
    preamble = value.get("preamble") or ()
    if isinstance(preamble, (str, Mapping)) or not all(_is_message(m) for m in preamble):
        fail("preamble must be a list of messages, each {'role': 'system'|'user'|'assistant', 'content': str}")
    return {"system_prompt": normalised(prompt) if prompt else None, "user_template": template,
            "preamble": tuple({"role": m["role"], "content": m["content"]} for m in preamble)}


def _is_message(message: Any) -> bool:
    return (isinstance(message, Mapping) and set(message) == {"role", "content"} and message["role"] in ROLES
            and isinstance(message["content"], str))


def normalised(text: str) -> str:
    """As a prompt file's text: the same prompt from a file or a hook has the same digest."""
    return text.replace("\r\n", "\n").rstrip("\n")


def _failer(where: str):
    def fail(what: str) -> None:
        raise pytest.UsageError(f"{HOOK} in {where} {what}")

    return fail
