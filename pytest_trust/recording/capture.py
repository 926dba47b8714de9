"""Live exchanges captured by vcrpy, scrubbed of everything but what replay needs.

vcrpy patches httpx2's transports while its cassette is entered, records the request and response
in its own serialized form, and hands both back, from any number of threads at once. The cassette never touches disk here: new
recordings go to the journal, and replay is served from our digest index instead of vcrpy's linear
matcher scan. What is recorded keeps no credential: headers by allow-list, and the URI without
userinfo or query string.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2

# The only headers a recording keeps. An allow-list, so credentials (authorization, api-key,
# cookies), client fingerprints (user-agent, x-stainless-*), organisation ids and request ids
# can never be written, whatever a provider adds.
KEPT_HEADERS = frozenset({"content-type"})


def no_cookies() -> CookieJar:
    """The cookie jar of every live client: it accepts none. A cookie an endpoint (or its proxy, its load
    balancer) sets would otherwise go back with every later request: a credential nobody gave the run."""
    return CookieJar(DefaultCookiePolicy(allowed_domains=[]))


class _NoDisk:
    @staticmethod
    def load_cassette(cassette_path: str, serializer: Any) -> Any:
        from vcr.persisters.filesystem import CassetteNotFoundError

        raise CassetteNotFoundError()

    @staticmethod
    def save_cassette(cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        return None


def _scrub_request(request: Any) -> Any:
    request.headers = {k: v for k, v in request.headers.items() if k.lower() in KEPT_HEADERS}
    request.uri = scrub_uri(request.uri)
    return request


def scrub_uri(uri: str) -> str:
    """Scheme, host, port and path only: userinfo (``user:pw@``) and the query (``?api-key=...``) can
    carry credentials, and replay matches on method, endpoint path and body, never on either."""
    parts = urlsplit(uri)
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def _scrub_headers(response: dict[str, Any]) -> dict[str, Any]:
    response["headers"] = {k: v for k, v in response["headers"].items() if k.lower() in KEPT_HEADERS}
    return response


class LiveCapture:
    """Sends requests through real transports inside one vcrpy cassette and returns what it recorded.

    One per process (``CAPTURE``), shared by every transport that records, the model's and the scorers':
    vcrpy patches httpx2's transport class while its cassette is open, and two cassettes open at once would
    restore each other's patches out of order when they close. The cassette is entered when the first transport
    that may send attaches, and left when the last one detaches. Each thread's recorded exchange is caught in
    thread-local storage by the before-record hooks, which return nothing for vcrpy to keep: the journal
    keeps it.
    """

    def __init__(self) -> None:
        self._caught = threading.local()
        self._open: ExitStack | None = None
        self._users = 0
        self._lock = threading.Lock()

    def _catch_request(self, request: Any) -> Any:
        self._caught.request = _scrub_request(request)
        return self._caught.request

    def _catch_response(self, response: dict[str, Any]) -> None:
        self._caught.response = response
        # nothing piles up in vcrpy's in-memory cassette

    def _enter(self) -> ExitStack:
        """vcrpy's cassette, entered; vcrpy is imported only by a run that sends something (a replay never does)."""
        import vcr

        recorder = vcr.VCR(record_mode="all", before_record_request=self._catch_request,
                           before_record_response=self._catch_response, decode_compressed_response=True)
        recorder.register_persister(_NoDisk)
        stack = ExitStack()
        stack.enter_context(recorder.use_cassette("pytest-trust-live"))
        return stack

    def attach(self) -> None:
        """A transport that will send through the capture; ``detach`` when it closes. The cassette opens here, so
        that no live request pays for it (a paced first request would arrive late)."""
        with self._lock:
            self._users += 1
            if self._open is None:
                self._open = self._enter()

    def detach(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users <= 0 and self._open is not None:
                self._open.close()
                self._open = None

    def send(self, live: httpx2.BaseTransport, request: httpx2.Request,
             kept: tuple[int, ...] = (200,)) -> tuple[httpx2.Response, dict | None, dict | None]:
        """``live``'s answer to ``request``, with the recorded request and response when its status is one of
        ``kept`` (failed exchanges are retried or reported, never recorded)."""
        self._caught.request = self._caught.response = None
        uri = scrub_uri(str(request.url))  # as the client addressed it, before a Spread moves it
        response = live.handle_request(request)
        recorded_request, recorded_response = self._caught.request, self._caught.response
        if recorded_response is None or recorded_request is None or recorded_response["status"]["code"] not in kept:
            return response, None, None
        from vcr.serializers import compat

        recorded = compat.convert_to_unicode(recorded_request._to_dict())
        recorded["uri"] = uri
        return response, recorded, compat.convert_to_unicode(_scrub_headers(recorded_response))


CAPTURE = LiveCapture()
