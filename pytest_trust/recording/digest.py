"""The one function that decides which recorded answer a request may be served.

A recorded answer is reused only for a request that would have produced it: the same endpoint and
the same body fields that influence the model's answer. Headers, hosts, ports and the API-version
prefix of the base URL take no part, so a recording made against one endpoint replays under another.
"""

from __future__ import annotations

import functools
import hashlib
import json
import json.encoder
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
    return digest_of_json(method, endpoint, _dumps(significant))


def significant_json(body: Mapping[str, Any], texts: dict[Any, str] | None = None) -> str | None:
    """The part of ``request_digest``'s text that is the body: its answer-determining fields as canonical JSON,
    for a body of plain JSON values (str keys; str, int, float, bool, None, list, dict); None for any other
    (a tuple, an enum, a date: ``request_digest`` of the parsed request decides those). Replay digests a body
    from this text, which it also hands to the client as the request's bytes, instead of parsing the bytes
    the client serialized and serializing them again.

    ``texts`` keeps the JSON of messages seen before (a few-shot prompt's demonstrations, a conversation's earlier
    turns), so a long list of messages is serialized message by message, each once: JSON encodes a list item
    by item and an object key by key, so the joined text is the one the whole would give."""
    significant: dict[str, Any] = {}
    messages = None
    for key, value in body.items():
        if key in ROUTING_FIELDS:
            continue
        if key == "messages" and _plain_messages(value):
            if texts is not None and len(value) >= MESSAGES_CACHED:
                messages = value
            else:
                significant[key] = value  # text only: nothing to canonicalize
            continue
        try:
            significant[key] = _plain(value)
        except _NotPlain:
            return None
    if messages is None:
        return _dumps(significant, allow_nan=False)  # as the client's serializer, which refuses NaN and infinity
    assert texts is not None
    listed = ",".join([_message_json(message, texts) for message in messages])
    before = _dumps({k: v for k, v in significant.items() if k < "messages"}, allow_nan=False)[1:-1]
    after = _dumps({k: v for k, v in significant.items() if k > "messages"}, allow_nan=False)[1:-1]
    return "{" + ",".join(part for part in (before, f'"messages":[{listed}]', after) if part) + "}"


MESSAGES_CACHED = 8  # from this many messages on, each message's JSON is kept (fewer: one call encodes them all)
TEXTS_KEPT = 4096  # messages whose JSON is kept at most; then they are forgotten and kept anew


def _message_json(message: dict[str, str], texts: dict[Any, str]) -> str:
    key = tuple(message.items())
    text = texts.get(key)
    if text is None:
        if len(texts) >= TEXTS_KEPT:
            texts.clear()
        text = texts[key] = _dumps(message)
    return text


def digest_of_json(method: str, endpoint: str, significant: str) -> str:
    """sha256 of ``[method, endpoint, significant]`` in canonical JSON, the significant body given as its text:
    JSON encodes a list item by item, so the text is the one ``request_digest`` hashes."""
    return hashlib.sha256(f"{_head(method, endpoint)}{significant}]".encode()).hexdigest()


@functools.lru_cache(maxsize=64)
def _head(method: str, endpoint: str) -> str:
    return f"[{_dumps(method.upper())},{_dumps(endpoint)},"


def _dumps(value: Any, allow_nan: bool = True) -> str:
    """``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=allow_nan)``,
    through the C encoder json.dumps itself uses, without the Python layers it builds on every call."""
    if _c_encoder is None:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=allow_nan)
    return "".join(_c_encoder({}, _ENCODER.default, _encode_string, None, ":", ",", True, False, allow_nan)(value, 0))


_c_encoder = json.encoder.c_make_encoder
_encode_string = json.encoder.encode_basestring  # ensure_ascii=False: the string as it is, escaped
_ENCODER = json.JSONEncoder()  # its ``default``: what json.dumps raises for a value it cannot encode


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


class _NotPlain(Exception):
    pass


def _plain_messages(messages: Any) -> bool:
    """A list of messages whose keys and values are all text (no whole float to make an int)."""
    if type(messages) is not list:
        return False
    for message in messages:
        if type(message) is not dict:
            return False
        for key, value in message.items():
            if not (isinstance(key, str) and isinstance(value, str)):
                return False
    return True


def _plain(value: Any) -> Any:
    """``_canonical`` of a value made of plain JSON types only; raises ``_NotPlain`` for any other."""
    if isinstance(value, str) or value is None or type(value) in (int, bool):
        return value
    if type(value) is float:
        return int(value) if value.is_integer() else value
    if type(value) is list:
        return [_plain(v) for v in value]
    if type(value) is dict and all(isinstance(k, str) for k in value):
        return {k: _plain(v) for k, v in value.items()}
    raise _NotPlain


def _canonical(value: Any) -> Any:
    # 0 and 0.0 ask the model the same thing; JSON would spell them differently.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value
