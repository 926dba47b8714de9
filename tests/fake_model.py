"""The tests' one fake model, by named behaviour: a real OpenAI-compatible HTTP server on 127.0.0.1 (FakeModelServer,
also the ``fake_model`` fixture of tests/conftest.py), and the same behaviours in process (ScriptedModel) for a
benchmark's own tests, since benchmark logic speaks no HTTP.

The server speaks HTTP for real, so the plugin's live path, vcrpy's interception and the openai client are all
exercised; only the model is replaced. Behaviours:

    echo     the last user message back
    refuse   "I'm sorry, but I can't help with that."
    leak     the conversation's first message that is not empty: the rules, with their secret
    fixed    ``answer``, whatever was asked
    script   ``answers`` in turn; one request more fails the test (HTTP 500 naming it, in process an AssertionError),
             or with ``then="repeat"`` the last answer again
    500      HTTP 500 with an error body as OpenAI's, to every request
    slow     ``answer`` after ``latency`` seconds (0.5 unless given)

or any function of the request body that returns the answer's text, for a model of a test's own.

Faults a client must survive (timeouts, broken bodies, redirects, 429s) are tests/fault_server.py's: a fault
queue per request, the Files and Batches APIs and the moderation endpoint are a different job from answering.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Responder = Callable[[dict], "str | None"]

REFUSAL = "I'm sorry, but I can't help with that."
ERROR_500 = {"error": {"message": "injected 500", "type": "server_error", "code": 500}}


class ScriptOverrun(AssertionError):
    """The code under test asked the fake model more often than the test scripted."""


def last_user_message(body: dict) -> str:
    return next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")


def first_instructions(body: dict) -> str:
    return next((m["content"] for m in body["messages"] if m.get("content")), "")


def responder(behaviour: str | Responder, answer: str | None = "ok", answers: Sequence[str | None] = (),
              then: str = "fail") -> Responder:
    """The answer to each request body under ``behaviour`` (a name above, or already a function of the body)."""
    if callable(behaviour):
        return behaviour
    if behaviour == "script":
        return _Script(answers, then)
    named: dict[str, Responder] = {
        "echo": last_user_message,
        "refuse": lambda body: REFUSAL,
        "leak": first_instructions,
        "fixed": lambda body: answer,
        "slow": lambda body: answer,
        "500": lambda body: answer,
    }
    assert behaviour in named, f"unknown behaviour {behaviour!r}: one of {sorted(named) + ['script']}"
    return named[behaviour]


class _Script:
    def __init__(self, answers: Sequence[str | None], then: str) -> None:
        assert then in ("fail", "repeat"), then
        self.answers, self.then, self.given = list(answers), then, 0
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> str | None:
        with self._lock:
            self.given += 1
            if self.given <= len(self.answers):
                return self.answers[self.given - 1]
            if self.then == "repeat" and self.answers:
                return self.answers[-1]
        raise ScriptOverrun(f"the model was asked {self.given} times, {len(self.answers)} answers were scripted")


def completion(body: dict, texts: list[str | None]) -> dict:
    return {
        "id": "chatcmpl-canned",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "canned"),
        "choices": [{"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": t}}
                    for i, t in enumerate(texts)],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class FakeModelServer:
    """An OpenAI-compatible endpoint answering by ``behaviour``. ``reject_n`` answers 400 to n > 1 and ``ignore_n``
    gives one choice whatever n asks, as some OpenAI-compatible servers do. Every request's body, headers (as sent)
    and path (with its query) are kept. Each answer carries an ``x-request-id`` and a ``set-cookie`` header, as
    providers send them, so that a test can show neither reaches a cassette."""

    def __init__(self, behaviour: str | Responder = "echo", answer: str | None = "ok",
                 answers: Sequence[str | None] = (), then: str = "fail", latency: float | None = None,
                 reject_n: bool = False, ignore_n: bool = False) -> None:
        self.behaviour = behaviour
        self.responder = responder(behaviour, answer, answers, then)
        self.latency = latency if latency is not None else 0.5 if behaviour == "slow" else 0.0
        self.reject_n = reject_n
        self.ignore_n = ignore_n
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.paths: list[str] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        # stop() waits for the serving loop's next poll: 0.05 s, not the default 0.5 s at every test's end
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                server.paths.append(self.path)
                if server.latency:
                    time.sleep(server.latency)
                if server.behaviour == "500":
                    self._send(500, ERROR_500)
                    return
                n = 1 if server.ignore_n else body.get("n", 1)
                if n > 1 and server.reject_n:
                    self._send(400, {"error": {"code": 400, "type": "invalid_request_error",
                                               "message": "Field 'n': Value must be between 1 <= value <= 1"}})
                    return
                try:
                    texts = [server.responder(body) for _ in range(n)]
                except ScriptOverrun as overrun:
                    self._send(500, {"error": {"message": f"fake model: {overrun}", "type": "server_error"}})
                    return
                self._send(200, completion(body, texts))

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

        return Handler

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> Self:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class ScriptedModel:
    """The session's model client in process: chat() answers by a behaviour as the server does, samples(k) gives
    the first k of ``samples`` (a model given none fails a test that samples it). Every call is kept, its
    messages copied as they were sent: (messages, decoding) for chat, (messages, decoding, k) for samples."""

    def __init__(self, behaviour: str | Responder = "script", answer: str | None = "ok",
                 answers: Sequence[str | None] = (), then: str = "fail", samples: Sequence[str] | None = None) -> None:
        self.responder = responder(behaviour, answer, answers, then)
        self.scripted_samples = None if samples is None else list(samples)
        self.calls: list[tuple] = []

    @classmethod
    def fixed(cls, answer: str | None) -> ScriptedModel:
        """The same answer to every chat."""
        return cls("fixed", answer=answer)

    @classmethod
    def script(cls, *answers: str | None, then: str = "fail") -> ScriptedModel:
        """These answers in turn; one chat more fails the test (or, ``then="repeat"``, gets the last again)."""
        return cls("script", answers=answers, then=then)

    @classmethod
    def sampling(cls, samples: Sequence[str]) -> ScriptedModel:
        """The first k of these samples to every samples(k); a chat fails the test."""
        return cls("script", samples=samples)

    def chat(self, messages: Sequence[dict], **decoding: Any) -> str | None:
        self.calls.append(([dict(m) for m in messages], decoding))
        return self.responder({"messages": [dict(m) for m in messages], **decoding})

    def samples(self, messages: Sequence[dict], k: int, **decoding: Any) -> list[str]:
        self.calls.append(([dict(m) for m in messages], decoding, k))
        assert self.scripted_samples is not None, "samples() asked of a model scripted for chat only"
        return self.scripted_samples[:k]

    @property
    def sent(self) -> list[list[dict]]:
        """The messages of each call, in order."""
        return [call[0] for call in self.calls]
