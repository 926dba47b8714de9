"""Several endpoints of one model used as one: each request goes to the one with the fewest in flight.

The local llama.cpp server answers temperature-0 requests reproducibly only with a single slot
(parallel slots batch neighbours together and change the answers), so concurrency against it means
several single-slot server processes. The client still sees one base URL (the first); this
transport moves each request to a chosen endpoint, and the recording keeps the first's URI, so a
cassette does not depend on which server answered.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from urllib.parse import urlsplit

import httpx2

from .deadline import BoundedTransport


class Spread(httpx2.BaseTransport):
    def __init__(self, base_url: str, urls: Sequence[str], timeout: float) -> None:
        self.base_path = urlsplit(base_url).path.rstrip("/")
        self.targets = [httpx2.URL(url) for url in urls]
        self.inner = BoundedTransport(timeout)
        self.in_flight = [0] * len(self.targets)
        self.sent = [0] * len(self.targets)  # requests sent to each endpoint, for measurements
        self._lock = threading.Lock()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        with self._lock:
            chosen = min(range(len(self.targets)), key=self.in_flight.__getitem__)
            self.in_flight[chosen] += 1
            self.sent[chosen] += 1
        try:
            target = self.targets[chosen]
            tail = request.url.path.removeprefix(self.base_path)
            request.url = request.url.copy_with(scheme=target.scheme, host=target.host, port=target.port,
                                                path=target.path.rstrip("/") + tail)
            request.headers["host"] = target.netloc.decode("ascii")
            return self.inner.handle_request(request)
        finally:
            with self._lock:
                self.in_flight[chosen] -= 1

    def close(self) -> None:
        self.inner.close()
