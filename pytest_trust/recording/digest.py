"""The one function that decides which recorded answer a request may be served.

A recorded answer is reused only for a request that would have produced it: the same endpoint and
the same body fields that influence the model's answer. Headers, hosts, ports and the API-version
prefix of the base URL take no part, so a recording made against one endpoint replays under another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

# Body fields that only label or route a request; every other field (model, messages, temperature,
# max_tokens, top_p, n, seed, stop, tools, response_format, penalties, ...) takes part in the digest.
ROUTING_FIELDS = frozenset({"user", "metadata", "store", "stream_options", "service_tier"})


def request_digest(method: str, endpoint: str, body: Mapping[str, Any], *, canonical: bool = False) -> str:
    """sha256 of the method, the endpoint (``/chat/completions``) and the answer-determining body.

    ``canonical``: the body was parsed with ``parse_float=canonical_float``, so no float in it is whole
    and the walk that makes them ints can be skipped (most of the digest's cost on a long conversation).
    """
    significant = {k: v if canonical else _canonical(v) for k, v in body.items() if k not in ROUTING_FIELDS}
    text = json.dumps(
        [method.upper(), endpoint, significant], sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def endpoint_of(url_path: str, base_path: str) -> str:
    """The request path relative to the client's base URL, e.g. ``/v1/chat/completions`` -> ``/chat/completions``."""
    base = base_path.rstrip("/")
    if base and url_path.startswith(base + "/"):
        return url_path[len(base) :]
    return url_path


def canonical_float(text: str) -> float | int:
    """``json.loads``'s ``parse_float`` giving what ``_canonical`` would make of the float."""
    value = float(text)
    return int(value) if value.is_integer() else value


def _canonical(value: Any) -> Any:
    # 0 and 0.0 ask the model the same thing; JSON would spell them differently.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value
