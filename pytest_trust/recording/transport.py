"""The openai client's HTTP transport: serves recorded answers, records missing ones when allowed.

Only a well-formed completion is kept. A status-200 answer that is not one becomes a 502 the
client retries (``x-should-retry``), marked so the model client can say what the endpoint sent.
"""

from __future__ import annotations

import json
import threading

import httpx2

from ..errors import CassetteError, CassetteMiss, CorruptCassette, Stopped
from .answers import completion_problem
from .batch import BatchQueue, Queued
from .capture import LiveCapture, scrub_uri
from .cassettes import REPAIR
from .digest import canonical_float, digest_of_json, endpoint_of, request_digest, significant_json
from .pacing import Pace, estimated_tokens
from .recorder import Recorder

INVALID_ANSWER_HEADER = "x-pytest-trust-invalid-answer"


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
        self._prepared = threading.local()  # per thread: the bytes replay_content made, and their JSON text
        self._message_texts: dict = {}  # the JSON of messages replayed so far (digest.significant_json)

    def replay_content(self, body: dict) -> bytes | None:
        """Replay only: the bytes for the client to send instead of serializing ``body`` itself, the body's
        canonical JSON (``digest.significant_json``), which is also the text its digest hashes; so a replayed
        request is serialized once and never parsed. None when this transport may send requests to an
        endpoint (they go as the client serializes them, and are recorded so) or the body is not plain JSON."""
        if not self.replay_only:
            return None
        text = significant_json(body, self._message_texts)
        if text is None:
            return None
        content = text.encode("utf-8")
        self._prepared.request = (content, text)
        return content

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        tape = self.recorder.tape
        if tape is None:
            raise CassetteError("a model request was made outside a benchmark item")
        raw = request.read()
        prepared, self._prepared.request = getattr(self._prepared, "request", None), None
        endpoint = endpoint_of(request.url.path, self.base_path)
        if prepared is not None and prepared[0] == raw:  # a replay-only transport: a miss below raises, unsent
            digest = digest_of_json(request.method, endpoint, prepared[1])
        else:
            body = json.loads(raw or b"{}", parse_float=canonical_float)  # whole floats as ints, as the digest wants
            digest = request_digest(request.method, endpoint, body, canonical=True)
        hit = tape.replay(digest)
        if hit is not None:
            status = hit["response"]["status"]["code"]
            if status != 200:  # never recorded so (capture.py): a file edited or written by other tools
                raise self.unreadable_answer(f"has HTTP status {status}, where only status-200 completions "
                                             "are recorded")
            return _stored_response(hit["response"])
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
                # one plain answer to n > 1: an endpoint that ignores `n` (asking again gives the same), told
                # as an endpoint that rejects it, so the model asks for seeded single answers instead
                return httpx2.Response(400, json={"error": {"message": f"the endpoint ignores 'n': {problem}",
                                                            "type": "invalid_request_error", "param": "n"}})
            return httpx2.Response(502, json={"error": {"message": problem, "type": "invalid_answer"}},
                                   headers={"x-should-retry": "true", INVALID_ANSWER_HEADER: "1"})
        tape.keep(digest, recorded_request, recorded_response)
        self.live_tokens += _total_tokens(response.content)
        return response

    def unreadable_answer(self, problem: str) -> CorruptCassette:
        """The error for a recorded answer of this thread's item that cannot be served as a completion."""
        tape = self.recorder.tape
        assert tape is not None
        return CorruptCassette(f"cassette {tape.cassette}: the recorded answer of item {tape.item_id} {problem}: "
                               f"{REPAIR}")

    def close(self) -> None:
        if self.capture is not None:
            self.capture.close()


def _total_tokens(body: bytes) -> int:
    usage = json.loads(body).get("usage")
    return int(usage.get("total_tokens") or 0) if isinstance(usage, dict) else 0


def _stored_response(stored: dict) -> httpx2.Response:
    headers = [(name, value) for name, values in stored.get("headers", {}).items() for value in values]
    body = stored["body"]["string"]
    return httpx2.Response(stored["status"]["code"], headers=headers,
                           content=body.encode("utf-8") if isinstance(body, str) else body)
