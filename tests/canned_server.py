"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted answers, for plugin tests.

It speaks HTTP for real (the plugin's live path, vcrpy's interception and the openai client are all
exercised); only the model is replaced by a function of the request body.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

Responder = Callable[[dict], str]


def completion(body: dict, texts: list[str]) -> dict:
    return {
        "id": "chatcmpl-canned",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "canned"),
        "choices": [{"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": t}}
                    for i, t in enumerate(texts)],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class CannedServer:
    def __init__(self, responder: Responder, reject_n: bool = False, ignore_n: bool = False) -> None:
        self.responder = responder
        self.reject_n = reject_n
        self.ignore_n = ignore_n  # one choice whatever n asks, as some OpenAI-compatible servers answer
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                n = 1 if server.ignore_n else body.get("n", 1)
                if n > 1 and server.reject_n:
                    self._send(400, {"error": {"code": 400, "type": "invalid_request_error",
                                               "message": "Field 'n': Value must be between 1 <= value <= 1"}})
                    return
                self._send(200, completion(body, [server.responder(body) for _ in range(n)]))

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("x-request-id", "req-volatile-123")
                self.send_header("set-cookie", "session=secret-cookie")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
