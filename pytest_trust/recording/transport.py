"""The openai client's HTTP transport: serves recorded answers, records missing ones when allowed."""

from __future__ import annotations

import json

import httpx2

from ..errors import CassetteError, CassetteMiss
from .capture import LiveCapture
from .digest import endpoint_of, request_digest
from .recorder import Recorder


class TrustTransport(httpx2.BaseTransport):
    def __init__(self, recorder: Recorder, base_path: str, live: httpx2.BaseTransport | None = None) -> None:
        self.recorder = recorder
        self.base_path = base_path
        self.capture = LiveCapture(live) if live is not None else None

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        tape = self.recorder.tape
        if tape is None:
            raise CassetteError("a model request was made outside a benchmark item")
        body = json.loads(request.read() or b"{}")
        digest = request_digest(request.method, endpoint_of(request.url.path, self.base_path), body)
        hit = tape.replay(digest)
        if hit is not None:
            return _stored_response(hit["response"])
        if self.capture is None or not tape.may_record:
            raise CassetteMiss(self.recorder.miss_message(tape, digest))
        response, recorded_request, recorded_response = self.capture.send(request)
        if recorded_response is not None:
            tape.keep(digest, recorded_request, recorded_response)
        return response

    def close(self) -> None:
        if self.capture is not None:
            self.capture.close()


def _stored_response(stored: dict) -> httpx2.Response:
    headers = [(name, value) for name, values in stored.get("headers", {}).items() for value in values]
    body = stored["body"]["string"]
    return httpx2.Response(stored["status"]["code"], headers=headers,
                           content=body.encode("utf-8") if isinstance(body, str) else body)
