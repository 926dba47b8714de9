"""What may be recorded: a well-formed chat completion, and nothing else.

A status-200 answer that is not a completion (an HTML page from a proxy, an ``{"error": ...}`` body,
truncated JSON, no choices) is a failure of the endpoint, not an answer of the model: it is retried,
then reported, and never written to a cassette, where replay would serve it forever. So is text that
cannot be stored and sent back faithfully: bytes that are not UTF-8, a lone surrogate (``"\\ud800"`` is
valid JSON but no Unicode text, and the next turn's request could not be encoded), or an answer larger
than any benchmark asks for (an endpoint ignoring ``max_tokens``).
"""

from __future__ import annotations

import json
from typing import Any

from .cassettes import parse_json

MAX_ANSWER_BYTES = 2 * 1024 * 1024  # one response body; the largest a benchmark asks for (25 x 150 tokens) is ~100 kB


def completion_problem(body: bytes | str, n: int = 1) -> str | None:
    """Why ``body`` is not a chat completion with ``n`` choices, or None when it is one."""
    if len(body) > MAX_ANSWER_BYTES:
        return (f"an answer of {len(body):,} bytes, more than the {MAX_ANSWER_BYTES:,} one answer may take "
                "(does the endpoint ignore max_tokens?)")
    try:
        data = json.loads(body)
    except UnicodeDecodeError as err:
        return f"a body that is not UTF-8 text (byte {err.start} is {err.object[err.start:err.start + 1]!r})"
    except ValueError as err:
        head = (body[:60].decode("utf-8", "replace") if isinstance(body, bytes) else body[:60]).strip()
        return f"a body that is not JSON ({err.msg} at character {err.pos}; it starts {head!r})"
    return _data_problem(data, n)


def recorded_choices(body: str) -> list[tuple[str | None, str | None]] | None:
    """The (content, finish_reason) of each choice of a recorded completion, what the model client reads of
    one (either may be absent: None, as the openai client reads it); None when ``completion_problem`` finds
    no completion. However many choices it holds are served: a run recorded elsewhere may hold fewer than it
    asked for (DecodingTrust's gpt-4-0314 privacy run: 46 answers to some prompts that asked for 100), and its
    replay is that run's."""
    if len(body) > MAX_ANSWER_BYTES:
        return None
    try:
        data = parse_json(body)
    except ValueError:
        return None
    if _data_problem(data, None) is not None:
        return None
    return [(choice["message"].get("content"), choice.get("finish_reason")) for choice in data["choices"]]


def _data_problem(data: Any, n: int | None) -> str | None:
    if not isinstance(data, dict):
        return f"JSON that is not an object ({type(data).__name__})"
    if "error" in data and "choices" not in data:
        return f"an error body: {_error_text(data['error'])}"
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        return "no choices"
    if n is not None and len(choices) != n:
        return f"{len(choices)} choices where {n} were asked for"
    for number, choice in enumerate(choices):
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            return f"choice {number} without a message"
        content = message.get("content")
        if not isinstance(content, str | None):
            return f"choice {number} whose content is not text"
        surrogate = None if not content or content.isascii() else _lone_surrogate(content)
        if surrogate is not None:
            return f"choice {number} whose content is not valid Unicode (a lone surrogate at character {surrogate})"
        if not isinstance(choice.get("finish_reason"), str | None):
            return f"choice {number} whose finish_reason is not text"
    return None


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error)[:200]


def _lone_surrogate(text: str) -> int | None:
    """Where ``text`` holds half of a UTF-16 surrogate pair, which no UTF-8 encoder takes."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return err.start
    return None
