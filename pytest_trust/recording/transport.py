"""The HTTP transport of every client whose answers are recorded: the model's and the remote scorers'.

One loop: a request is digested, its answer served from the item's tape by that digest; a missing one is sent
to the live endpoint when the tape may record, captured by vcrpy (capture.py) and kept, but only a well-formed
answer of a kept status: a status-200 body that is not one becomes a 502 the client retries, carrying an
``InvalidAnswer`` (endpoint/conditions.py) so the client can say what the endpoint sent; one in another format
(a web page, an event stream: endpoint/formats.py) a 502 it does not retry, carrying an ``OtherFormat``.
Subclasses say how a request is digested, what a well-formed answer is and what a miss says.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

from ..endpoint.conditions import Condition, IgnoresN, InvalidAnswer
from ..endpoint.formats import other_format
from ..endpoint.pacing import Pace, estimated_tokens
from ..errors import CassetteMiss, CorruptCassette, Stopped
from .answers import completion_problem
from .batch import BatchQueue, Queued
from .capture import CAPTURE, scrub_uri
from .digest import canonical_float, endpoint_of, request_digest
from .recorder import Recorder
from .replay import current_tape, served, unreadable
from .stored import stored_response
from .tape import Tape


class RecordingTransport(httpx2.BaseTransport):
    kept: tuple[int, ...] = (200,)  # statuses recorded (and served); any other is retried or reported

    def __init__(self, recorder: Recorder | None, live: httpx2.BaseTransport | None, pace: Pace) -> None:
        self.recorder = recorder
        self.live = live
        self.pace = pace
        self.live_calls = 0  # attempts sent to the endpoint, for progress lines and tests
        if live is not None:
            CAPTURE.attach()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        raw = request.read()
        body = self.parse(raw)
        digest = self.digest(request, body)
        tape = self.tape()
        stored = served(tape, digest, self.kept) if tape is not None else None
        if stored is not None:
            return stored_response(stored)
        self.unstored(tape, digest, request, raw)
        self.pace.wait(estimated_tokens(body, len(raw)))
        self.sending()
        self.live_calls += 1
        assert self.live is not None
        response, recorded_request, recorded_response = CAPTURE.send(self.live, request, self.kept)
        if response.status_code == 429:
            self.pace.pause(response.headers)  # every thread waits, not only this one
        if recorded_response is None:
            return response  # a failed status: the client retries or reports it; nothing is kept
        condition = self.condition(response, body) if response.status_code == 200 else None
        if condition is not None:
            response.close()
            return condition.response()
        if tape is not None:
            tape.keep(digest, recorded_request, recorded_response)
        self.kept_answer(response)
        return response

    def parse(self, raw: bytes) -> dict[str, Any]:
        return json.loads(raw or b"{}")

    def digest(self, request: httpx2.Request, body: dict[str, Any]) -> str:
        return request_digest(request.method, request.url.path, body)

    def tape(self) -> Tape | None:
        """The tape of the item this thread plays, where its answers are served from and kept."""
        return self.recorder.tape if self.recorder is not None else None

    def unstored(self, tape: Tape | None, digest: str, request: httpx2.Request, raw: bytes) -> None:
        """No recorded answer: ``CassetteMiss`` unless it may be sent live."""
        if self.live is None or (tape is not None and not tape.may_record):
            raise CassetteMiss(self.miss(tape, digest))

    def miss(self, tape: Tape | None, digest: str) -> str:
        raise NotImplementedError

    def sending(self) -> None:
        """Just before a live call, after the pace's wait."""

    def condition(self, response: httpx2.Response, body: dict[str, Any]) -> Condition | None:
        """Why a status-200 answer is not a well-formed one, as the condition its client reads; None if it is."""
        return None

    def kept_answer(self, response: httpx2.Response) -> None:
        """A live answer was kept."""

    def close(self) -> None:
        if self.live is not None:
            self.live.close()
            CAPTURE.detach()
            self.live = None


class TrustTransport(RecordingTransport):
    """The model client's transport: its requests are digested in canonical form, relative to the endpoint's
    base path (any host serves the same recordings); ``--trust-batch`` queues misses instead of sending them."""

    recorder: Recorder

    def __init__(self, recorder: Recorder, base_path: str, live: httpx2.BaseTransport | None = None,
                 pace: Pace | None = None, batch: BatchQueue | None = None) -> None:
        super().__init__(recorder, live, pace or Pace())
        self.base_path = base_path
        self.live_tokens = 0  # tokens of the answers recorded (their usage field)
        self.batch = batch  # --trust-batch: misses are queued for a batch instead of sent
        self.replay_only = live is None and batch is None  # nothing it is handed ever leaves the process

    def parse(self, raw: bytes) -> dict[str, Any]:
        return json.loads(raw or b"{}", parse_float=canonical_float)  # whole floats as ints, as the digest wants

    def digest(self, request: httpx2.Request, body: dict[str, Any]) -> str:
        return request_digest(request.method, endpoint_of(request.url.path, self.base_path), body, canonical=True)

    def tape(self) -> Tape:
        return current_tape(self.recorder)

    def unstored(self, tape: Tape | None, digest: str, request: httpx2.Request, raw: bytes) -> None:
        assert tape is not None
        if not tape.may_record or (self.live is None and self.batch is None):
            raise CassetteMiss(self.miss(tape, digest))
        if self.batch is not None:
            raise self.batch.hold(Queued(
                cassette=tape.cassette.relative_to(self.recorder.model_root).as_posix(), item_id=tape.item_id,
                digest=digest, episode=tape.served.get(digest, 0),
                request={"method": request.method, "uri": scrub_uri(str(request.url)), "body": raw.decode("utf-8"),
                         "headers": {"content-type": ["application/json"]}}))

    def miss(self, tape: Tape | None, digest: str) -> str:
        assert tape is not None
        return self.recorder.miss_message(tape, digest)

    def sending(self) -> None:
        if self.recorder.stopped:  # checked after the wait, which can be long; a retry comes here again
            raise Stopped("recording stopped (Ctrl-C): this item was not finished, the next run records it")

    def condition(self, response: httpx2.Response, body: dict[str, Any]) -> Condition | None:
        other = other_format(response.headers, response.read(), streaming=bool(body.get("stream")))
        if other is not None:
            return other  # not retried: a web page or an event stream is no passing fault
        n = body.get("n", 1)
        problem = completion_problem(response.content, n)
        if problem is None:
            return None
        if n > 1 and completion_problem(response.content, 1) is None:
            return IgnoresN(problem)
        return InvalidAnswer(problem)

    def kept_answer(self, response: httpx2.Response) -> None:
        self.live_tokens += _total_tokens(response.content)

    def unreadable_answer(self, problem: str) -> CorruptCassette:
        """The error for a recorded answer of this thread's item that cannot be served as a completion."""
        return unreadable(current_tape(self.recorder), problem)


def _total_tokens(body: bytes) -> int:
    usage = json.loads(body).get("usage")
    return int(usage.get("total_tokens") or 0) if isinstance(usage, dict) else 0
