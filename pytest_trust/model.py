"""The model client benchmarks talk to: one openai client per session, over the recording transport.

Benchmarks call ``chat`` (one answer) or ``samples`` (k answers); they never see HTTP, cassettes or
credentials. Retries with backoff (honouring ``Retry-After``) and the per-request timeout are the
openai client's own; an exchange that still fails raises ``ModelError`` (a test ERROR), and since
only status-200 exchanges are kept, a failure is never recorded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2
import openai
from openai.types.chat import ChatCompletion

from .errors import CassetteError, ModelError
from .recording import Recorder, TrustTransport

REPLAY_BASE_URL = "http://replay.invalid/v1"  # replay never connects; the host only fills the URL
Message = Mapping[str, Any]


@dataclass(frozen=True)
class Endpoint:
    base_url: str | None
    timeout: float = 120.0
    max_retries: int = 4

    @property
    def host(self) -> str:
        """The endpoint's host for reports: never a path, query or credential."""
        return urlsplit(self.base_url).hostname or "" if self.base_url else ""


class Model:
    def __init__(self, name: str, client: openai.OpenAI, transport: TrustTransport) -> None:
        self.name = name
        self.client = client
        self.transport = transport
        self.n_supported: bool | None = None  # learnt on the first multi-sample request

    @classmethod
    def connect(cls, name: str, recorder: Recorder, endpoint: Endpoint) -> Model:
        recording = recorder.mode.can_record
        if recording and not endpoint.base_url:
            raise ModelError("recording needs an endpoint: pass --trust-base-url URL or set OPENAI_BASE_URL")
        base_url = endpoint.base_url if recording else (endpoint.base_url or REPLAY_BASE_URL)
        live = httpx2.HTTPTransport(retries=0) if recording else None
        transport = TrustTransport(recorder, urlsplit(base_url).path, live)
        client = openai.OpenAI(
            base_url=base_url,
            # The key comes from the environment only; a local server accepts any placeholder.
            api_key=os.environ.get("OPENAI_API_KEY") or "no-key",
            http_client=httpx2.Client(transport=transport, timeout=endpoint.timeout),
            max_retries=endpoint.max_retries if recording else 0,
            timeout=endpoint.timeout,
        )
        return cls(name, client, transport)

    def chat(self, messages: Sequence[Message], **decoding: Any) -> str:
        return self._create(messages, decoding)[0]

    def samples(self, messages: Sequence[Message], k: int, **decoding: Any) -> list[str]:
        """k answers in a fixed order: one request with ``n=k``, or k requests with seeds s..s+k-1
        where the endpoint rejects ``n > 1`` (learnt once per session)."""
        if k == 1:
            return [self.chat(messages, **decoding)]
        if self.n_supported is not False:
            try:
                answers = self._create(messages, {**decoding, "n": k})
                self.n_supported = True
                return answers
            except (ModelError, CassetteError) as err:
                if self.n_supported or not _rejects_n(err):
                    raise
                self.n_supported = False
        seed = int(decoding.get("seed", 0))
        return [self.chat(messages, **{**decoding, "seed": seed + i}) for i in range(k)]

    def _create(self, messages: Sequence[Message], decoding: Mapping[str, Any]) -> list[str]:
        # The body goes to the client's own POST as it is: ``chat.completions.create`` would first walk
        # every message through its TypedDict transform, which costs ~7.5 ms per 34-message request and
        # changes nothing in plain JSON messages. Auth, retries, timeouts and errors are the client's.
        body = {"model": self.name, "messages": list(messages), **decoding}
        try:
            completion = self.client.post("/chat/completions", body=body, cast_to=ChatCompletion,
                                          options={"security": {"bearer_auth": True}})
        except openai.APIStatusError as err:
            raise ModelError(f"the model endpoint answered HTTP {err.status_code}: {err.message}") from err
        except openai.APIError as err:
            raise ModelError(f"the model endpoint failed: {err}") from err
        return [choice.message.content or "" for choice in completion.choices]

    def close(self) -> None:
        self.client.close()


def _rejects_n(err: Exception) -> bool:
    # A miss on the n=k request (recorded as k seeded requests) or an HTTP 400 about `n`.
    cause = err.__cause__
    return isinstance(err, CassetteError) or (
        isinstance(cause, openai.BadRequestError) and "'n'" in str(cause.message)
    )
