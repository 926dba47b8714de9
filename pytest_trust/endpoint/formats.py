"""Answers in another format than the JSON of a chat completion, and what usually sends them.

An HTML page or an event stream in answer to a request that does not stream is no passing fault (a 503 is):
asking again gets the same page, so it is not retried, and its error says what came back, how it starts
and the likely cause, which the user can fix.
"""

from __future__ import annotations

from collections.abc import Mapping

from .conditions import OtherFormat

HEAD = 400  # characters of the answer kept for its failure line, which shows fewer once they are redacted
HTML_CAUSE = ("--trust-base-url may point at a web page rather than the API (an OpenAI-compatible base URL "
              "usually ends in /v1), or a proxy or gateway in front of the endpoint answers with a page of its own "
              "(a sign-in, an error)")
STREAM_CAUSE = ("a proxy in front of the endpoint may stream every answer: point --trust-base-url at the endpoint "
                "itself, or turn the proxy's streaming off")


def other_format(headers: Mapping[str, str], body: bytes, streaming: bool = False) -> OtherFormat | None:
    """What a status-200 answer is when it is an HTML page or (for a request that does not stream) an event
    stream, by its content type or, where that says nothing useful, by how its body starts; None otherwise."""
    given = headers.get("content-type", "")
    media = given.partition(";")[0].strip().lower()
    head = body[:64].lstrip().lower()
    shown = f"content-type {media}" if media else "no content-type"
    if not streaming and (media == "text/event-stream" or head.startswith((b"data:", b"event:"))):
        return OtherFormat(f"an event stream ({shown})", excerpt(body), STREAM_CAUSE)
    if media in ("text/html", "application/xhtml+xml") or head.startswith((b"<!doctype html", b"<html")):
        return OtherFormat(f"an HTML page ({shown})", excerpt(body), HTML_CAUSE)
    return None


def excerpt(body: bytes) -> str:
    """The answer's first characters, on one line."""
    return " ".join(body[:HEAD].decode("utf-8", "replace").split())[:HEAD]
