"""Live exchanges captured by vcrpy, scrubbed of everything but what replay needs.

vcrpy patches httpx2's transports while its cassette is entered, records the request and response
in its own serialized form, and hands both back. The cassette never touches disk here: new
recordings go to the journal, and replay is served from our digest index instead of vcrpy's linear
matcher scan (see DESIGN section 5).
"""

from __future__ import annotations

from typing import Any

import httpx2
import vcr
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.serializers import compat

# The only headers a recording keeps. An allow-list, so credentials (authorization, api-key,
# cookies), client fingerprints (user-agent, x-stainless-*), organisation ids and request ids
# can never be written, whatever a provider adds.
KEPT_HEADERS = frozenset({"content-type"})


class _NoDisk:
    @staticmethod
    def load_cassette(cassette_path: str, serializer: Any) -> Any:
        raise CassetteNotFoundError()

    @staticmethod
    def save_cassette(cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        return None


def _scrub_request(request: Any) -> Any:
    request.headers = {k: v for k, v in request.headers.items() if k.lower() in KEPT_HEADERS}
    return request


def _scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    if response["status"]["code"] != 200:
        return None  # failed exchanges are retried or reported, never recorded
    response["headers"] = {k: v for k, v in response["headers"].items() if k.lower() in KEPT_HEADERS}
    return response


class LiveCapture:
    """Sends a request through a real transport inside a vcrpy cassette and returns what it recorded."""

    def __init__(self, live: httpx2.BaseTransport) -> None:
        self.live = live
        self._vcr = vcr.VCR(
            record_mode="all",
            before_record_request=_scrub_request,
            before_record_response=_scrub_response,
            decode_compressed_response=True,
        )
        self._vcr.register_persister(_NoDisk)

    def send(self, request: httpx2.Request) -> tuple[httpx2.Response, dict | None, dict | None]:
        with self._vcr.use_cassette("pytest-trust-live") as cassette:
            response = self.live.handle_request(request)
        if not cassette.data:
            return response, None, None
        recorded_request, recorded_response = cassette.data[-1]
        return (response, compat.convert_to_unicode(recorded_request._to_dict()),
                compat.convert_to_unicode(recorded_response))

    def close(self) -> None:
        self.live.close()
