"""The openai client's HTTP transport: serves recorded answers, records missing ones when allowed.

Only a well-formed completion is kept. A status-200 answer that is not one becomes a 502 the
client retries, carrying an ``InvalidAnswer`` (endpoint/conditions.py) so the model client can say what
the endpoint sent.
"""

from __future__ import annotations

import json

import httpx2

from ..endpoint.conditions import IgnoresN, InvalidAnswer
from ..endpoint.pacing import Pace, estimated_tokens
from ..errors import CassetteMiss, CorruptCassette, Stopped
from .answers import completion_problem
from .batch import BatchQueue, Queued
from .capture import LiveCapture, scrub_uri
from .digest import canonical_float, endpoint_of, request_digest
from .recorder import Recorder
from .replay import current_tape, served, unreadable
from .stored import stored_response


class TrustTransport(httpx2.BaseTransport):
    def __init__(self, recorder: Recorder, base_path: str, live: httpx2.BaseTransport | None = None,
                 pace: Pace | None = None, batch: BatchQueue | None = None) -> None:
        self.recorder = recorder
        self.base_path = base_path
        self.capture = LiveCapture(live) if live is not None else None
        self.pace = pace or Pace()
        self.live_calls = 0  # attempts sent to the endpoint, for progress lines
        self.live_tokens = 0  # tokens of the answers recorded (their usage field)
        self.batch = batch  # --trust-batch: misses are queued for a batch instead of sent
        self.replay_only = live is None and batch is None  # nothing it is handed ever leaves the process

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        tape = current_tape(self.recorder)
        raw = request.read()
        endpoint = endpoint_of(request.url.path, self.base_path)
        body = json.loads(raw or b"{}", parse_float=canonical_float)  # whole floats as ints, as the digest wants
        digest = request_digest(request.method, endpoint, body, canonical=True)
        stored = served(tape, digest)
        if stored is not None:
            return stored_response(stored)
        if not tape.may_record or (self.capture is None and self.batch is None):
            raise CassetteMiss(self.recorder.miss_message(tape, digest))
        if self.batch is not None:
            raise self.batch.hold(Queued(
                cassette=tape.cassette.relative_to(self.recorder.model_root).as_posix(), item_id=tape.item_id,
                digest=digest, episode=tape.served.get(digest, 0),
                request={"method": request.method, "uri": scrub_uri(str(request.url)), "body": raw.decode("utf-8"),
                         "headers": {"content-type": ["application/json"]}}))
        self.pace.wait(estimated_tokens(body, len(raw)))
        if self.recorder.stopped:  # checked after the wait, which can be long; a retry comes here again
            raise Stopped("recording stopped (Ctrl-C): this item was not finished, the next run records it")
        self.live_calls += 1
        response, recorded_request, recorded_response = self.capture.send(request)
        if response.status_code == 429:
            self.pace.pause(response.headers)  # every thread waits, not only this one
        if recorded_response is None:
            return response  # a failed status: the client retries or reports it; nothing is kept
        n = body.get("n", 1)
        problem = completion_problem(response.read(), n)
        if problem is not None:
            response.close()
            if n > 1 and completion_problem(response.content, 1) is None:
                return IgnoresN(problem).response()
            return InvalidAnswer(problem).response()
        tape.keep(digest, recorded_request, recorded_response)
        self.live_tokens += _total_tokens(response.content)
        return response

    def unreadable_answer(self, problem: str) -> CorruptCassette:
        """The error for a recorded answer of this thread's item that cannot be served as a completion."""
        return unreadable(current_tape(self.recorder), problem)

    def close(self) -> None:
        if self.capture is not None:
            self.capture.close()


def _total_tokens(body: bytes) -> int:
    usage = json.loads(body).get("usage")
    return int(usage.get("total_tokens") or 0) if isinstance(usage, dict) else 0

