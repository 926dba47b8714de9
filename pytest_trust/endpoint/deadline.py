"""A timeout that bounds a whole request, from connecting to the answer's last byte.

httpx's timeouts are per operation: each read may take up to the timeout, so an endpoint that trickles its
answer a byte at a time (a stalled proxy, an overloaded server) holds a request for as long as it likes, every
byte in time. ``BoundedTransport`` gives each request a deadline; its connections' network streams cap the
timeout of every connect, read and write at the time left, so an attempt past its deadline fails as httpx's
own timeout does (``ReadTimeout``...), and the client retries and reports it as any other timeout. The body is
read inside the request (vcrpy's capture reads it all, recording/capture.py), so the deadline covers it too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore2
import httpx2

_current = threading.local()  # the deadline of the request this thread is sending (one at a time per thread)


@contextmanager
def until(deadline: float) -> Iterator[None]:
    """The network I/O of this thread, until the block ends, must be done by ``deadline`` (``time.monotonic``)."""
    outer = getattr(_current, "deadline", None)
    _current.deadline = deadline
    try:
        yield
    finally:
        _current.deadline = outer


def _capped(timeout: float | None, late: type[httpcore2.TimeoutException]) -> float | None:
    """``timeout``, or the time left before this thread's deadline when that is shorter; ``late`` once it passed."""
    deadline = getattr(_current, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise late("the request's deadline passed (--trust-timeout bounds the whole request)")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _capped(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _capped(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        return _Stream(self.inner.start_tls(ssl_context, server_hostname, _capped(timeout, httpcore2.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _Backend(httpcore2.NetworkBackend):
    """httpcore's own synchronous sockets, each connect and stream capped by the deadline of the thread using it
    (a kept-alive connection serves one request at a time, in that request's thread)."""

    def __init__(self) -> None:
        self.inner = httpcore2.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        return _Stream(self.inner.connect_tcp(host, port, _capped(timeout, httpcore2.ConnectTimeout), local_address,
                                              socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        return _Stream(self.inner.connect_unix_socket(path, _capped(timeout, httpcore2.ConnectTimeout),
                                                      socket_options))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class BoundedTransport(httpx2.HTTPTransport):
    """httpx's transport (so vcrpy captures it as any other), every request of it done within ``seconds``."""

    def __init__(self, seconds: float) -> None:
        super().__init__(retries=0)
        self.seconds = seconds
        # httpx's transport takes no network backend: its pool, the one attribute it has, is made again with ours
        limits = httpx2.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's defaults
        self._pool = httpcore2.ConnectionPool(ssl_context=httpx2.create_ssl_context(), retries=0,
                                              max_connections=limits.max_connections,
                                              max_keepalive_connections=limits.max_keepalive_connections,
                                              keepalive_expiry=limits.keepalive_expiry, network_backend=_Backend())

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        deadline = time.monotonic() + self.seconds
        with until(deadline):
            response = super().handle_request(request)
        if isinstance(response.stream, httpx2.ByteStream):
            return response  # already read whole, within the deadline (vcrpy's capture reads every answer)
        return httpx2.Response(response.status_code, headers=response.headers, extensions=response.extensions,
                               stream=_Bounded(response.stream, deadline), request=request)


class _Bounded(httpx2.SyncByteStream):
    """A body left to read after the headers, read by the request's deadline."""

    def __init__(self, inner: Any, deadline: float) -> None:
        self.inner, self.deadline = inner, deadline

    def __iter__(self) -> Iterator[bytes]:
        with until(self.deadline):
            yield from self.inner

    def close(self) -> None:
        self.inner.close()
