"""An OpenAI-compatible endpoint on 127.0.0.1 that misbehaves on demand, for reliability tests.

Each request takes the next fault from a queue, else the next of a repeating ``cycle`` (e.g.
``["503", "ok"]``: every first attempt fails), else the standing ``always`` fault; with none it
answers a well-formed completion of ``responder(body)``. ``latency`` delays every answer, so the
same server measures concurrent recording. Faults are named as the failures met in practice:

    429, 429-retry-after (Retry-After: 0), 500, 502, 503     status errors a client retries
    hang                 answers after ``hang_seconds`` (set it past the client's timeout)
    trickle              a completion sent one byte every ``trickle_seconds``: each read is quick, the whole slow
    html, event-stream   status 200 in another format than JSON: a web page (text/html), a stream of events
                         (text/event-stream) though the request did not ask to stream
    redirect             307 to ``redirect_to`` + the request's path (a base URL that moved, e.g. to another host)
    close                sends half the body, then closes the connection
    malformed, truncated, error-body, empty-choices          status 200, not a completion
    lone-surrogate, invalid-utf8, oversized                  status 200, a completion whose text cannot be
                         stored faithfully: "\\ud800" in it, bytes that are not UTF-8, 3 MB of text
    empty-content, null-content, length, content_filter, tool_calls
                         well-formed completions a benchmark must score as what they are
    401-echo-key         401 whose message echoes the request's Authorization header, as some proxies do
                         (as ``always``, the Files and Batches APIs answer so too)
    set-cookie           a well-formed completion with a ``Set-Cookie: session=...`` header

``headers`` keeps each completion request's headers, so a test can check what the client sent back.
A POST to ``.../moderations`` is answered as OpenAI's moderation endpoint: ``moderator(text)`` is every
category's score of each input, or a dict of some categories' scores, the others 0 (the faults apply to it as
to completions).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

Responder = Callable[[dict], str]

STATUS_FAULTS = {"429": 429, "429-retry-after": 429, "500": 500, "502": 502, "503": 503}
BROKEN_200 = {"malformed", "truncated", "error-body", "empty-choices"}
OTHER_FORMATS = {"html", "event-stream"}
UNSTORABLE = {"lone-surrogate", "invalid-utf8", "oversized"}
IRREGULAR_ANSWERS = {"empty-content", "null-content", "length", "content_filter", "tool_calls"}
FAULTS = set(STATUS_FAULTS) | BROKEN_200 | OTHER_FORMATS | UNSTORABLE | IRREGULAR_ANSWERS | {
    "hang", "trickle", "redirect", "close", "401-echo-key", "set-cookie"}
OVERSIZED_BYTES = 3 * 1024 * 1024
SESSION_COOKIE = "session=fault-s3ss10n-c00kie"


def completion(body: dict, texts: list[str | None], finish_reason: str = "stop",
               tool_calls: list | None = None) -> dict:
    message_extra = {"tool_calls": tool_calls} if tool_calls else {}
    return {
        "id": "chatcmpl-fault", "object": "chat.completion", "created": 0, "model": body.get("model", "fault"),
        "choices": [{"index": i, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": text, **message_extra}}
                    for i, text in enumerate(texts)],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class FaultServer:
    def __init__(self, responder: Responder = lambda body: "ok", latency: float = 0.0,
                 hang_seconds: float = 5.0, trickle_seconds: float = 0.05) -> None:
        self.responder = responder
        self.moderator: Callable[[str], float | dict[str, float]] = lambda text: 0.1
        self.latency = latency
        self.hang_seconds = hang_seconds
        self.trickle_seconds = trickle_seconds
        self.redirect_to = ""  # the base URL a "redirect" points at
        self.always: str | None = None
        self.cycle: list[str] = []
        self.faults: deque[str] = deque()
        self.requests: list[dict] = []
        self.paths: list[str] = []  # request paths with their query strings
        self.headers: list[dict[str, str]] = []  # each request's headers, names lower-cased
        self.served: list[str] = []  # the fault (or "ok") each request got, in arrival order
        self.in_flight = self.max_in_flight = 0  # requests being answered at once, and the most seen
        # A fake of the OpenAI Files and Batches APIs: a batch stays in_progress for `batch_polls`
        # retrieves, then completes with an answer per request (status `batch_status` for the ones
        # whose custom_id is in `batch_failures`).
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.batch_polls = 0
        self.batch_failures: set[str] = set()
        self._lock = threading.Lock()
        self.httpd = _QuietServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def push(self, *faults: str) -> None:
        unknown = set(faults) - FAULTS - {"ok"}
        assert not unknown, f"unknown faults {unknown}"
        self.faults.extend(faults)

    def _next_fault(self, body: dict, path: str, headers: dict[str, str]) -> str:
        with self._lock:
            self.requests.append(body)
            self.paths.append(path)
            self.headers.append(headers)
            if self.faults:
                fault = self.faults.popleft()
            elif self.cycle:
                fault = self.cycle[len(self.served) % len(self.cycle)]
            else:
                fault = self.always or "ok"
            self.served.append(fault)
            return fault

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if server.always == "401-echo-key":
                    self._refuse_key()
                elif path.startswith("/v1/batches/"):
                    self._send(200, json.dumps(server._poll(path.rsplit("/", 1)[1])).encode())
                elif path.startswith("/v1/files/") and path.endswith("/content"):
                    self._send(200, server.files[path.split("/")[3]], content_type="application/jsonl")
                else:
                    self._send(404, b'{"error": {"message": "no such path"}}')

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["content-length"]))
                path = self.path.split("?")[0]
                if server.always == "401-echo-key" and path in ("/v1/files", "/v1/batches"):
                    self._refuse_key()
                    return
                if path == "/v1/files":
                    file_id = f"file-{len(server.files)}"
                    server.files[file_id] = _uploaded(self.headers["content-type"], raw)
                    self._send(200, json.dumps({"id": file_id, "object": "file", "bytes": len(raw), "created_at": 0,
                                                "filename": "batch.jsonl", "purpose": "batch"}).encode())
                    return
                if path == "/v1/batches":
                    self._send(200, json.dumps(server._create_batch(json.loads(raw))).encode())
                    return
                body = json.loads(raw)
                fault = server._next_fault(body, self.path, {k.lower(): v for k, v in self.headers.items()})
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if server.latency:
                        time.sleep(server.latency)
                    if path.endswith("/moderations") and fault in ("ok", "set-cookie", "hang"):
                        self._send(200, json.dumps(moderation(body, server.moderator)).encode())
                        return
                    texts = [server.responder(body) for _ in range(body.get("n", 1))]
                    self._answer(fault, body, texts)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _answer(self, fault: str, body: dict, texts: list[str]) -> None:
                if fault in STATUS_FAULTS:
                    headers = {"retry-after": "0"} if fault == "429-retry-after" else {}
                    error = {"error": {"message": f"injected {fault}", "type": "server_error", "code": fault}}
                    self._send(STATUS_FAULTS[fault], json.dumps(error).encode(), headers=headers)
                elif fault == "401-echo-key":
                    self._refuse_key()
                elif fault == "set-cookie":
                    self._send(200, json.dumps(completion(body, texts)).encode(),
                               headers={"set-cookie": f"{SESSION_COOKIE}; Path=/; HttpOnly"})
                elif fault == "hang":
                    time.sleep(server.hang_seconds)
                    self._send(200, json.dumps(completion(body, texts)).encode())
                elif fault == "trickle":
                    self._trickle(json.dumps(completion(body, texts)).encode())
                elif fault == "redirect":
                    location = server.redirect_to + self.path.removeprefix("/v1")
                    self._send(307, b"", headers={"location": location})
                elif fault == "event-stream":
                    self._send(200, _event_stream(texts), content_type="text/event-stream")
                elif fault == "close":
                    data = json.dumps(completion(body, texts)).encode()
                    self._send(200, data[: len(data) // 2], length=len(data))
                    self.close_connection = True
                elif fault in BROKEN_200:
                    self._send(200, _broken_body(fault, body, texts))
                elif fault == "html":
                    self._send(200, b"<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>",
                               content_type="text/html")
                elif fault in UNSTORABLE:
                    self._send(200, _unstorable_body(fault, body, texts))
                elif fault in IRREGULAR_ANSWERS:
                    self._send(200, json.dumps(_irregular(fault, body, texts)).encode())
                else:
                    self._send(200, json.dumps(completion(body, texts)).encode())

            def _trickle(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                for at in range(len(data)):  # a client that gave up closes its end: the write fails, the thread ends
                    self.wfile.write(data[at:at + 1])
                    self.wfile.flush()
                    time.sleep(server.trickle_seconds)

            def _refuse_key(self) -> None:
                echoed = f"Incorrect API key provided: {self.headers.get('authorization', '')}"
                error = {"error": {"message": echoed, "type": "invalid_request_error", "code": "invalid_api_key"}}
                self._send(401, json.dumps(error).encode())

            def _send(self, status: int, data: bytes, headers: dict | None = None,
                      content_type: str = "application/json", length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data) if length is None else length))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def log_message(self, *args) -> None:
                pass

        return Handler

    def _create_batch(self, request: dict) -> dict:
        batch_id = f"batch_{len(self.batches)}"
        self.batches[batch_id] = {"id": batch_id, "object": "batch", "endpoint": request["endpoint"],
                                  "input_file_id": request["input_file_id"], "completion_window": "24h",
                                  "status": "in_progress", "created_at": 0, "polls": 0,
                                  "output_file_id": None, "error_file_id": None}
        return {k: v for k, v in self.batches[batch_id].items() if k != "polls"}

    def _poll(self, batch_id: str) -> dict:
        batch = self.batches[batch_id]
        batch["polls"] += 1
        if batch["status"] == "in_progress" and batch["polls"] > self.batch_polls:
            lines = []
            for line in self.files[batch["input_file_id"]].decode().splitlines():
                entry = json.loads(line)
                body = entry["body"]
                if entry["custom_id"] in self.batch_failures:
                    response = {"status_code": 500, "body": {"error": {"message": "injected"}}}
                else:
                    texts = [self.responder(body) for _ in range(body.get("n", 1))]
                    response = {"status_code": 200, "body": completion(body, texts)}
                self.requests.append(body)
                lines.append(json.dumps({"id": f"resp-{entry['custom_id']}", "custom_id": entry["custom_id"],
                                         "response": response}))
            output = f"file-{len(self.files)}"
            self.files[output] = ("\n".join(lines) + "\n").encode()
            batch.update(status="completed", output_file_id=output)
        return {k: v for k, v in batch.items() if k != "polls"}

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        pass  # a client that gave up on a hung answer closed its end: expected here


MODERATION_CATEGORIES = ("harassment", "harassment/threatening", "hate", "hate/threatening", "illicit",
                         "illicit/violent", "self-harm", "self-harm/instructions", "self-harm/intent", "sexual",
                         "sexual/minors", "violence", "violence/graphic")


def moderation(body: dict, moderator: Callable[[str], float | dict[str, float]]) -> dict:
    """OpenAI's moderation answer of each input: every category scored ``moderator(text)``, or as its dict says."""
    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
    results = []
    for text in inputs:
        given = moderator(text)
        scores = {c: given.get(c, 0.0) if isinstance(given, dict) else given for c in MODERATION_CATEGORIES}
        results.append({"flagged": max(scores.values()) > 0.5, "categories": {c: v > 0.5 for c, v in scores.items()},
                        "category_scores": scores,
                        "category_applied_input_types": {c: ["text"] for c in MODERATION_CATEGORIES}})
    return {"id": "modr-0", "model": body.get("model", "omni-moderation-latest"), "results": results}


def _uploaded(content_type: str, raw: bytes) -> bytes:
    """The file part of a multipart/form-data upload."""
    from email.parser import BytesParser
    from email.policy import HTTP

    message = BytesParser(policy=HTTP).parsebytes(f"content-type: {content_type}\r\n\r\n".encode() + raw)
    for part in message.iter_parts():
        if part.get_filename():
            return part.get_payload(decode=True)
    raise ValueError("no file in the upload")


def _broken_body(fault: str, body: dict, texts: list[str]) -> bytes:
    whole = json.dumps(completion(body, texts))
    return {
        "malformed": b"{'choices': [oops",
        "truncated": whole[: len(whole) // 2].encode(),
        "error-body": json.dumps({"error": {"message": "injected error body", "type": "server_error"}}).encode(),
        "empty-choices": json.dumps({**completion(body, texts), "choices": []}).encode(),
    }[fault]


def _event_stream(texts: list[str]) -> bytes:
    """What an endpoint that streams sends: the answer's text in chunks, each an event, then [DONE]."""
    events = [{"choices": [{"index": 0, "delta": {"content": text}}], "object": "chat.completion.chunk"}
              for text in texts]
    return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events) + b"data: [DONE]\n\n"


def _unstorable_body(fault: str, body: dict, texts: list[str]) -> bytes:
    if fault == "lone-surrogate":  # json.dumps escapes it: "\\ud800", valid JSON
        return json.dumps(completion(body, [t + " \ud800" for t in texts])).encode()
    if fault == "invalid-utf8":
        return json.dumps(completion(body, [t + " MARK" for t in texts])).encode().replace(b"MARK", b"\xff\xfe")
    filler = "Hodor " * (OVERSIZED_BYTES // 6 // max(len(texts), 1))
    return json.dumps(completion(body, [t + filler for t in texts])).encode()


def _irregular(fault: str, body: dict, texts: Iterable[str]) -> dict:
    texts = list(texts)
    if fault == "empty-content":
        return completion(body, ["" for _ in texts])
    if fault == "null-content":
        return completion(body, [None for _ in texts])
    if fault == "length":
        return completion(body, [t[:3] for t in texts], finish_reason="length")
    if fault == "content_filter":
        return completion(body, [None for _ in texts], finish_reason="content_filter")
    call = [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    return completion(body, [None for _ in texts], finish_reason="tool_calls", tool_calls=call)


def main() -> None:
    """Serve in a process of its own (so a benchmark's client does not share its interpreter):
    prints the base URL, then answers every request with "ok" after ``--latency`` seconds."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    with FaultServer(latency=args.latency) as server:
        print(server.base_url, flush=True)
        server.thread.join()


if __name__ == "__main__":
    main()
