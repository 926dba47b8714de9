"""Scores of a remote scorer served from its own cassettes, and recorded when missing and allowed.

Shared by the scorers that call a service (Perspective, OpenAI's moderation endpoint): each answer is kept in
the scores' own cassettes, in the item's logical cassette, keyed by the request digest; replay serves it with
no key and no network. Only answers of the kept statuses are recorded, and a status-200 body that is not an
answer of the service becomes a retryable 502 carrying an ``InvalidAnswer``, never recorded. Nothing recorded
holds a key: only the content-type header is kept, and no query string.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx2

from ..endpoint.conditions import InvalidAnswer, condition_of
from ..endpoint.pacing import Pace
from ..errors import CassetteMiss
from ..items import Item
from ..recording import Recorder, request_digest
from ..recording.capture import KEPT_HEADERS, scrub_uri
from ..recording.stored import stored_response

SHOWN = 200  # characters of an error body in a message


def in_item_tape(recorder: Recorder | None, item: Item | None,
                 score: Callable[[Sequence[str]], list[float | None]], texts: Sequence[str]) -> list[float | None]:
    """``score(texts)`` with the item's logical cassette open, where its recorded answers live."""
    if recorder is None or item is None:
        return score(texts)
    recorder.begin(item.benchmark, item.scenario, item.id)
    try:
        return score(texts)
    finally:
        recorder.end()


def failure_line(response: httpx2.Response) -> str:
    """One line saying what a failed answer was: the status and the service's message, or the invalid body."""
    condition = condition_of(response)
    if isinstance(condition, InvalidAnswer):
        return condition.line()
    text = response.read().decode("utf-8", "replace")
    try:
        text = json.loads(text)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        pass
    return f"HTTP {response.status_code} ({text[:SHOWN].strip()})"


class ScoreTransport(httpx2.BaseTransport):
    """Serves recorded answers from the item's tape; sends and records missing ones when it may."""

    def __init__(self, recorder: Recorder | None, live: httpx2.BaseTransport | None, pace: Pace,
                 problem: Callable[[bytes], str | None], miss: Callable[[str, str], str],
                 kept: tuple[int, ...] = (200,)) -> None:
        self.recorder = recorder
        self.live = live
        self.pace = pace
        self.problem = problem  # why a status-200 body is not the service's answer, or None
        self.miss = miss  # (where, request digest) -> the message of a score neither recorded nor fetchable
        self.kept = kept
        self.live_calls = 0

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.read() or b"{}")
        digest = request_digest(request.method, request.url.path, body)
        tape = self.recorder.tape if self.recorder is not None else None
        if tape is not None:
            hit = tape.replay(digest)
            if hit is not None:
                return stored_response(hit["response"])
        if self.live is None or (tape is not None and not tape.may_record):
            where = f" for item {tape.item_id} in {tape.cassette}" if tape is not None else ""
            raise CassetteMiss(self.miss(where, digest))
        self.pace.wait(0)
        self.live_calls += 1
        response = self.live.handle_request(request)
        if response.status_code == 429:
            self.pace.pause(response.headers)
        if response.status_code not in self.kept:
            return response  # retried or reported by the client; never recorded
        content = response.read()
        problem = self.problem(content) if response.status_code == 200 else None
        if problem is not None:
            return InvalidAnswer(problem).response()
        if tape is not None:
            tape.keep(digest, _recorded_request(request, body), _recorded_response(response, content))
        return response

    def close(self) -> None:
        if self.live is not None:
            self.live.close()


def _recorded_request(request: httpx2.Request, body: dict) -> dict[str, Any]:
    """vcrpy's request record, as the model's recordings hold it: no query string (the key), no header but
    content-type."""
    headers = {name: [value] for name, value in request.headers.items() if name.lower() in KEPT_HEADERS}
    return {"body": json.dumps(body, ensure_ascii=False, separators=(",", ":")), "headers": headers,
            "method": request.method, "uri": scrub_uri(str(request.url))}


def _recorded_response(response: httpx2.Response, content: bytes) -> dict[str, Any]:
    headers: dict[str, list[str]] = {}
    for name, value in response.headers.items():
        if name.lower() in KEPT_HEADERS:
            headers.setdefault(name.lower(), []).append(value)
    return {"body": {"string": content.decode("utf-8")}, "headers": headers,
            "status": {"code": response.status_code, "message": response.reason_phrase}}
