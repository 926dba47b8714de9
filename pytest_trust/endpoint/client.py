"""The model client benchmarks talk to: one openai client per session, over the recording transport.

Benchmarks call ``chat`` (one answer) or ``samples`` (k answers); they never see HTTP, cassettes or
credentials. Answers are ``Answer`` strings that carry their finish reason. A replay-only session reads
each recorded answer by its request digest (recording/replay.py), with no HTTP client in between;
recording, and a body that is not plain JSON, go through the client. Retries with backoff (honouring
``Retry-After``) are the openai client's own; the timeout bounds each attempt from connecting to the last
byte (endpoint/deadline.py), and one past it is a failed attempt like any other. A status-200 answer that
is not a completion is retried the same way (the transport answers a retryable 502 carrying an
``InvalidAnswer``, endpoint/conditions.py); one in another format (a web page, an event stream) and a
redirect are not: asking again gets the same. An exchange that still fails raises ``ModelError`` naming
the endpoint (a test ERROR, never recorded), its credentials redacted (an endpoint may echo the key it
refused); ``RejectsN`` when it refused ``n`` > 1; after the breaker's limit of failing calls in a row
(endpoint/breaker.py), ``EndpointDown`` stops the run. The client keeps no cookie an endpoint sets, and
follows no redirect (the key would go with it).
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ..errors import CassetteError, ModelError, RejectsN
from ..items import Answer
from ..recording import Recorder
from ..recording.batch import BatchQueue
from ..recording.redact import known, redact
from ..recording.replay import Replay
from .breaker import Breaker
from .pacing import Pace
from .system_prompt import SystemPrompt

# The HTTP stack is imported when a transport or a client is made: a replay makes neither (the openai client
# 0.4 s and 40 MB, httpx2 and the transports 7.5 MB)
if TYPE_CHECKING:
    import openai

    from ..recording.transport import TrustTransport

REPLAY_BASE_URL = "http://replay.invalid/v1"  # replay never connects; the host only fills the URL
Message = Mapping[str, Any]


@dataclass(frozen=True)
class Endpoint:
    base_url: str | None
    timeout: float = 120.0
    max_retries: int = 4
    others: tuple[str, ...] = ()  # more servers of the same model, sharing the load (Spread)
    rpm: float | None = None  # requests per minute allowed by the provider (None: no budget)
    tpm: float | None = None  # tokens per minute
    label: str | None = None  # how messages name it when it is not a URL of the user's (an application target)
    key_env: str = "OPENAI_API_KEY"  # the variable its key is read from (--trust-api-key-env)

    @property
    def host(self) -> str:
        """The endpoint's host for reports: never a path, query or credential."""
        return urlsplit(self.base_url).hostname or "" if self.base_url else ""

    @property
    def shown(self) -> str:
        """The base URL as messages show it: scheme, host, port and path; no credential, no query."""
        if not self.base_url:
            return ""
        parts = urlsplit(self.base_url)
        netloc = parts.hostname or ""
        netloc = f"[{netloc}]" if ":" in netloc else netloc
        netloc += f":{parts.port}" if parts.port else ""
        return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))

    def plain_client(self) -> openai.OpenAI:
        """A client of the endpoint outside the recording layer, for its Files and Batches APIs."""
        import openai

        from ..recording.capture import no_cookies

        base_url, query = self.client_url()
        return openai.OpenAI(base_url=base_url, api_key=os.environ.get(self.key_env) or "no-key",
                             default_query=query or None, max_retries=self.max_retries, timeout=self.timeout,
                             http_client=openai.DefaultHttpxClient(cookies=no_cookies(), timeout=self.timeout))

    def client_url(self) -> tuple[str, dict[str, str]]:
        """The base URL without its query string, and that query as the client's default query:
        the client appends request paths to the base URL, which a query in it would mangle."""
        assert self.base_url
        parts = urlsplit(self.base_url)
        return urlunsplit((*parts[:3], "", "")), dict(parse_qsl(parts.query, keep_blank_values=True))


class Model:
    """``transport`` is the client's, or the function that makes it when it is first needed; ``replay``, when
    replaying only, reads recorded answers by digest, not through the client (recording/replay.py)."""

    def __init__(self, name: str, client: Callable[[TrustTransport], openai.OpenAI],
                 transport: TrustTransport | Callable[[], TrustTransport] | None, where: str = "",
                 deployment: SystemPrompt | None = None, secrets: tuple[str, ...] = (), max_retries: int = 0,
                 replay: Replay | None = None, timeout: float | None = None) -> None:
        self.name = name
        self.timeout = timeout  # seconds each attempt may take, as failure messages name it
        self.secrets = secrets  # the run's credentials, redacted from failure messages
        self.deployment = deployment  # the deployment's prompt (and template, preamble) on every request
        self._make_client = client
        self._client: openai.OpenAI | None = None
        self.max_retries = max_retries
        self._transport = transport
        self.replay = replay
        self.where = where  # the endpoint as messages name it
        self.n_supported: bool | None = None  # learnt on the first multi-sample request
        self.breaker = Breaker("calls", "check that the endpoint is up, then run again (recordings so far are kept)")
        self.key_env = "OPENAI_API_KEY"  # the variable the key was read from, for a refused key's message
        self._local = threading.local()  # per thread: the item it plays
        self._lock = threading.Lock()

    @property
    def transport(self) -> TrustTransport:
        """The client's transport, made when first needed (a replay may make none)."""
        if callable(self._transport):
            with self._lock:
                if callable(self._transport):
                    self._transport = self._transport()
        assert self._transport is not None
        return self._transport

    @property
    def client(self) -> openai.OpenAI:
        """The openai client, made at the first request that goes through it (a replay may make none)."""
        if self._client is None:
            transport = self.transport
            with self._lock:
                if self._client is None:
                    self._client = self._make_client(transport)
        return self._client

    @property
    def irregular(self) -> Counter[str]:
        """This thread's answers since ``take_irregular`` that were not plain text, by finish reason."""
        if not hasattr(self._local, "irregular"):
            self._local.irregular = Counter()
        return self._local.irregular

    def take_irregular(self) -> dict[str, int]:
        """The counts of filtered, truncated, tool-calling and empty answers since the last call."""
        counts, self._local.irregular = dict(self.irregular), Counter()
        return counts

    @classmethod
    def connect(cls, name: str, recorder: Recorder, endpoint: Endpoint, batch: BatchQueue | None = None,
                deployment: SystemPrompt | None = None) -> Model:
        """The session's client; with ``batch``, missing answers are queued for a batch, never sent; with
        ``deployment``, every request is shaped as the deployment sends it (system_prompt.py)."""
        recording = recorder.mode.can_record
        if recording and not endpoint.base_url:
            raise ModelError("recording needs an endpoint: pass --trust-base-url URL or set OPENAI_BASE_URL")
        base_url, query = endpoint.client_url() if recording else (REPLAY_BASE_URL, {})

        def transport() -> TrustTransport:
            from ..recording.transport import TrustTransport
            from .deadline import BoundedTransport
            from .spread import Spread

            live = None
            if recording and batch is None:  # each attempt, connect to last byte, within the timeout
                urls = [base_url, *(Endpoint(url).client_url()[0] for url in endpoint.others)]
                live = Spread(base_url, urls, endpoint.timeout) if endpoint.others else BoundedTransport(endpoint.timeout)
            return TrustTransport(recorder, urlsplit(base_url).path, live, Pace(endpoint.rpm, endpoint.tpm), batch)

        max_retries = endpoint.max_retries if recording else 0

        def client(transport: TrustTransport) -> openai.OpenAI:
            import httpx2
            import openai

            from ..recording.capture import no_cookies

            return openai.OpenAI(
                base_url=base_url,
                # The key comes from the environment only; a local server accepts any placeholder.
                api_key=os.environ.get(endpoint.key_env) or "no-key",
                default_query=query or None,
                http_client=httpx2.Client(transport=transport, timeout=endpoint.timeout, cookies=no_cookies()),
                max_retries=max_retries,
                timeout=endpoint.timeout,
            )

        where = (endpoint.label or f"{endpoint.shown}/chat/completions") if recording else ""
        secrets = known(endpoint.base_url, *endpoint.others, variables=(endpoint.key_env,)) if recording else ()
        if recording or batch is not None:
            model = cls(name, client, transport(), where, deployment, secrets, max_retries, timeout=endpoint.timeout)
        else:
            model = cls(name, client, transport, where, deployment, secrets, max_retries, replay=Replay(recorder))
        model.key_env = endpoint.key_env
        if endpoint.label:
            model.breaker.advice = (f"check {endpoint.label} and the services it calls, then run again (recordings "
                                    "so far are kept)")
        return model

    def chat(self, messages: Sequence[Message], **decoding: Any) -> Answer:
        return self._create(messages, decoding)[0]

    def samples(self, messages: Sequence[Message], k: int, **decoding: Any) -> list[Answer]:
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

    def _create(self, messages: Sequence[Message], decoding: Mapping[str, Any]) -> list[Answer]:
        if self.deployment is not None:
            messages = self.deployment.apply(messages)
        body = {"model": self.name, "messages": list(messages), **decoding}
        choices = self.replay.choices(body) if self.replay is not None else None
        if choices is not None:  # replay: the recorded answer for the body's digest, as the client would read it
            answers = [Answer(content, finish_reason) for content, finish_reason in choices]
        else:
            answers = self._post(body)
        self.breaker.succeeded()
        self.irregular.update(a.irregular for a in answers if a.irregular)
        return answers

    def _post(self, body: dict[str, Any]) -> list[Answer]:
        # The body goes to the client's own POST as it is: ``chat.completions.create`` would first walk
        # every message through its TypedDict transform, which costs ~7.5 ms per 34-message request and
        # changes nothing in plain JSON messages. Auth, retries, timeouts and errors are the client's.
        import openai
        from openai.types.chat import ChatCompletion

        try:
            completion = self.client.post("/chat/completions", cast_to=ChatCompletion, body=body,
                                          options={"security": {"bearer_auth": True}})
            return [Answer(choice.message.content, choice.finish_reason) for choice in completion.choices]
        except openai.APIError as err:
            self._failed(_failure(err, self.timeout, self._redact, self.key_env), retried=_retryable(err),
                         endpoint_wide=_endpoint_wide(err), refuses_n=_refuses_n(err))
        except (ValueError, TypeError, AttributeError):  # a live answer is checked before it is kept
            # (recording/answers.py), so this one was replayed: its cassette was damaged or written by hand
            raise self.transport.unreadable_answer("is not a chat completion") from None
        raise AssertionError("unreachable: _failed raises")

    def _failed(self, cause: str, retried: bool, endpoint_wide: bool, refuses_n: bool = False) -> None:
        attempts = self.max_retries + 1 if retried else 1
        where = f"{self.where} " if self.where else "the model endpoint "
        message = f"{where}failed after {attempts} attempt{'s' * (attempts > 1)}: {self._redact(cause)}"
        if refuses_n:
            raise RejectsN(message) from None
        # one request's own problem (a 400) says nothing about the endpoint; only a recording run stops
        raise self.breaker.failed(message, counts=endpoint_wide, trips=bool(self.where)) from None

    def _redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        elif self._transport is not None and not callable(self._transport):
            self._transport.close()


def _failure(err: openai.APIError, timeout: float | None, clean: Callable[[str], str],
             key_env: str = "OPENAI_API_KEY") -> str:
    """One line saying what went wrong with an exchange, from the client's error; ``clean`` redacts an excerpt
    of the answer before it is cut."""
    import openai

    from .conditions import InvalidAnswer, OtherFormat, condition_of

    if isinstance(err, openai.APIStatusError):
        condition = condition_of(err.response)
        if isinstance(condition, InvalidAnswer):
            return condition.line()
        if isinstance(condition, OtherFormat):
            return condition.line(clean)
        if 300 <= err.status_code < 400:
            return _redirect(err.response)
        if err.status_code == 401:
            given = "the key read from" if os.environ.get(key_env) else "no key: nothing is set in"
            return (f"HTTP 401 ({_error_message(err)}): the endpoint refused {given} ${key_env}; set it to this "
                    "endpoint's key (--trust-api-key-env VAR reads it from another variable)")
        return f"HTTP {err.status_code} ({_error_message(err)})"
    if isinstance(err, openai.APITimeoutError):
        within = f"--trust-timeout {timeout:g} s" if timeout else "the timeout (--trust-timeout)"
        return f"no complete answer within {within} (each attempt, from connecting to the answer's last byte)"
    if isinstance(err, openai.APIConnectionError):
        cause = err.__cause__
        return f"connection failed ({type(cause).__name__}: {cause})" if cause else "connection failed"
    return f"the answer could not be read ({err})"


def _redirect(response: Any) -> str:
    """A redirect's failure line: where it points (no credential, no query, as every URL a run shows) and what
    to do, since the client follows none (the key would go with the request, wherever it points)."""
    status = f"HTTP {response.status_code}, a redirect"
    location = response.headers.get("location")
    if not location:
        return f"{status} without a Location: set --trust-base-url to the endpoint's final address"
    target = Endpoint(str(response.request.url.join(location))).shown
    final = f" ({target.removesuffix('/chat/completions')})" if target.endswith("/chat/completions") else ""
    return (f"{status} to {target}: redirects are not followed, so that the key is not sent elsewhere; "
            f"set --trust-base-url to the final address{final}")


def _retryable(err: openai.APIError) -> bool:
    """Whether the client retried this kind of failure (its own rule: what an ``x-should-retry`` header says,
    else timeouts, connection errors, 408, 409, 429 and 5xx)."""
    import openai

    if isinstance(err, openai.APIStatusError):
        said = err.response.headers.get("x-should-retry")
        if said in ("true", "false"):
            return said == "true"
        return err.status_code in (408, 409, 429) or err.status_code >= 500
    return isinstance(err, openai.APIConnectionError)


def _endpoint_wide(err: openai.APIError) -> bool:
    """Whether a failure says the endpoint is unusable for every item (down, overloaded, the key refused, an
    answer in another format, a redirect), not that one request was wrong (400, 413, 422: e.g. an `n` the
    endpoint rejects, a prompt too long)."""
    import openai

    if isinstance(err, openai.APIStatusError):
        status = err.status_code
        return status >= 500 or 300 <= status < 400 or status in (401, 403, 404, 408, 409, 429)
    return True


def _error_message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        return str(body.get("message", body))[:200]
    return str(body or err.message)[:200]


def _refuses_n(err: openai.APIError) -> bool:
    """Whether the endpoint refused a request for ``n`` > 1 answers: a 400 the transport marked ``IgnoresN``, or
    the endpoint's own 400 naming the parameter (in the error's ``param``, or as 'n' in its message)."""
    import openai

    from .conditions import IgnoresN, condition_of

    if not isinstance(err, openai.APIStatusError) or err.status_code != 400:
        return False
    if isinstance(condition_of(err.response), IgnoresN):
        return True
    body = err.body if isinstance(err.body, dict) else {}
    return body.get("param") == "n" or "'n'" in _error_message(err)


def _rejects_n(err: Exception) -> bool:
    # A miss on the n=k request (recorded as k seeded requests), or an endpoint that refused `n`.
    return isinstance(err, CassetteError | RejectsN)
