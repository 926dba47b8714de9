"""What a transport found wrong with an answer, carried to the client as a type on the response it returns.

The transport answers the client with an HTTP response (so that the client's own retry rules apply), and
attaches the condition to it as a response extension; the client reads the type back from the error's
response, never by matching the message text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx2

EXTENSION = "pytest_trust.condition"  # the httpx response extension that carries a condition
SHOWN = 200  # characters of a problem in a failure line
EXCERPT = 100  # characters of an answer in another format shown in its failure line


@dataclass(frozen=True)
class InvalidAnswer:
    """A status-200 body that is not the service's answer: retried as a 502, never recorded."""

    problem: str

    def response(self) -> httpx2.Response:
        return httpx2.Response(502, json={"error": {"message": self.problem, "type": "invalid_answer"}},
                               headers={"x-should-retry": "true"}, extensions={EXTENSION: self})

    def line(self) -> str:
        return f"status 200 with {self.problem[:SHOWN]}"


@dataclass(frozen=True)
class OtherFormat:
    """A status-200 answer in another format than JSON (a web page, an event stream): asking again gets the same,
    so it is told to the client as a 502 it does not retry; ``what`` came back, how it ``starts`` (its first few
    hundred characters), its likely ``cause`` (endpoint/formats.py)."""

    what: str
    starts: str
    cause: str

    def response(self) -> httpx2.Response:
        return httpx2.Response(502, json={"error": {"message": self.what, "type": "other_format"}},
                               headers={"x-should-retry": "false"}, extensions={EXTENSION: self})

    def line(self, redact: Callable[[str], str]) -> str:
        """The failure line; its excerpt is redacted before it is cut, so that no cut credential escapes."""
        shown = redact(self.starts)
        excerpt = repr(shown[:EXCERPT]) + ("..." if len(shown) > EXCERPT else "")
        return f"status 200 with {self.what} where the request asked for one JSON answer: it starts {excerpt}; " \
               f"{self.cause}"


@dataclass(frozen=True)
class IgnoresN:
    """One plain answer to a request for ``n`` > 1: an endpoint that ignores ``n`` (asking again gives the same),
    told to the client as an endpoint that rejects it (a 400 about ``n``), so it asks for seeded answers."""

    problem: str

    def response(self) -> httpx2.Response:
        return httpx2.Response(400, json={"error": {"message": f"the endpoint ignores 'n': {self.problem}",
                                                    "type": "invalid_request_error", "param": "n"}},
                               extensions={EXTENSION: self})


Condition = InvalidAnswer | OtherFormat | IgnoresN


def condition_of(response: httpx2.Response) -> Condition | None:
    """The condition a transport attached to ``response``, or None for an answer as the endpoint sent it."""
    return response.extensions.get(EXTENSION)
