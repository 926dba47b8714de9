"""What may be recorded: a well-formed chat completion, and nothing else.

A status-200 answer that is not a completion (an HTML page from a proxy, an ``{"error": ...}`` body,
truncated JSON, no choices) is a failure of the endpoint, not an answer of the model: it is retried,
then reported, and never written to a cassette, where replay would serve it forever.
"""

from __future__ import annotations

import json
from typing import Any


def completion_problem(body: bytes | str, n: int = 1) -> str | None:
    """Why ``body`` is not a chat completion with ``n`` choices, or None when it is one."""
    try:
        data = json.loads(body)
    except ValueError as err:
        head = (body[:60].decode("utf-8", "replace") if isinstance(body, bytes) else body[:60]).strip()
        return f"a body that is not JSON ({err.msg} at character {err.pos}; it starts {head!r})"
    if not isinstance(data, dict):
        return f"JSON that is not an object ({type(data).__name__})"
    if "error" in data and "choices" not in data:
        return f"an error body: {_error_text(data['error'])}"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        return "no choices"
    if len(choices) != n:
        return f"{len(choices)} choices where {n} were asked for"
    for number, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            return f"choice {number} without a message"
        if not isinstance(message.get("content"), str | None):
            return f"choice {number} whose content is not text"
        if not isinstance(choice.get("finish_reason"), str | None):
            return f"choice {number} whose finish_reason is not text"
    return None


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error)[:200]
