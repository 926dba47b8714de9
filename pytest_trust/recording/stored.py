"""A recorded response as the HTTP response it was: one builder for the model's and the scorers' cassettes."""

from __future__ import annotations

from typing import Any

import httpx2


def stored_response(stored: dict[str, Any]) -> httpx2.Response:
    """The status, headers and body a cassette keeps (cassettes.py checked their shape when it read the file)."""
    headers = [(name, value) for name, values in stored.get("headers", {}).items() for value in values]
    body = stored["body"]["string"]
    return httpx2.Response(stored["status"]["code"], headers=headers,
                           content=body.encode("utf-8") if isinstance(body, str) else body)
