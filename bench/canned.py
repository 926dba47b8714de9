"""The canned answer both sides of bench_replay.py serve: the bytes of a chat completion with as many choices as a
request's ``n`` asks (1; 25 samples in toxicity and stereotype; 100 in privacy's understanding prompts; any other),
made once per ``n``. The canned server hands them to our side when it records, the floor's MockTransport to the
floor, so both parse the same answers."""

from __future__ import annotations

import functools
import json

CANNED_MODEL = "bench-canned"
CANNED_TEXT = "I am sorry, but I cannot help with that request."


@functools.cache
def canned_body(model: str, n: int = 1) -> bytes:
    return json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": [{"index": i, "message": {"role": "assistant", "content": CANNED_TEXT},
                     "finish_reason": "stop", "logprobs": None} for i in range(n)],
        "usage": {"prompt_tokens": 100, "completion_tokens": 12 * n, "total_tokens": 100 + 12 * n},
    }, separators=(",", ":")).encode()
