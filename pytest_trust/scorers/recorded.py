"""Scores of a remote scorer served from its own cassettes, and recorded when missing and allowed.

Shared by the scorers that call a service (Perspective, OpenAI's moderation endpoint): each answer is kept in
the scores' own cassettes, in the item's logical cassette, keyed by the request digest; replay serves it with
no key and no network. The loop is the model's (recording/transport.py): only answers of the kept statuses are
recorded, a status-200 body that is not an answer of the service becomes a retryable 502 carrying an
``InvalidAnswer``, and nothing recorded holds a key (recording/capture.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx2

from ..endpoint.conditions import InvalidAnswer, condition_of
from ..endpoint.pacing import Pace
from ..items import Item
from ..recording import Recorder
from ..recording.tape import Tape
from ..recording.transport import RecordingTransport

SHOWN = 200  # characters of an error body in a message


def in_item_tape(recorder: Recorder | None, item: Item | None,
                 score: Callable[[Sequence[str]], list[float | None]], texts: Sequence[str]) -> list[float | None]:
    """``score(texts)`` with the item's logical cassette open, where its recorded answers live."""
    if recorder is None or item is None:
        return score(texts)
    recorder.begin(item.benchmark, item.cassette, item.id)
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


class ScoreTransport(RecordingTransport):
    """A remote scorer's transport: answers served from and kept in the item's tape, when there is one (a score
    asked outside an item is sent live, or misses)."""

    def __init__(self, recorder: Recorder | None, live: httpx2.BaseTransport | None, pace: Pace,
                 problem: Callable[[bytes], str | None], miss: Callable[[str, str], str],
                 kept: tuple[int, ...] = (200,)) -> None:
        super().__init__(recorder, live, pace)
        self.problem = problem  # why a status-200 body is not the service's answer, or None
        self.miss_text = miss  # (where, request digest) -> the message of a score neither recorded nor fetchable
        self.kept = kept

    def miss(self, tape: Tape | None, digest: str) -> str:
        where = f" for item {tape.item_id} in {tape.cassette}" if tape is not None else ""
        return self.miss_text(where, digest)

    def condition(self, response: httpx2.Response, body: dict[str, Any]) -> InvalidAnswer | None:
        problem = self.problem(response.read())
        return InvalidAnswer(problem) if problem is not None else None
