"""Replay without an HTTP client: a request body's recorded answer, looked up by its digest.

The body is serialized once, in the canonical form its digest hashes (``digest.significant_json``), and its
next recorded episode is read straight from the item's tape: no openai client, no transport, no response object.
It serves exactly what the client would have read from the same stored response, and fails as that path
failed: a miss is a ``CassetteMiss`` with the recorder's message, a stored answer that is not a status-200 chat
completion a ``CorruptCassette`` (tests/test_replay_equality.py holds both paths equal on every cassette).
"""

from __future__ import annotations

from typing import Any

from ..errors import CassetteError, CassetteMiss, CorruptCassette
from .answers import recorded_choices
from .cassettes import REPAIR
from .digest import digest_of_json, significant_json
from .recorder import Recorder
from .tape import Tape

CHAT = "/chat/completions"
Choice = tuple[str | None, str | None]  # what the model client reads of a choice: its content and finish reason


class Replay:
    """Serves the recorded choices of one session's requests from the tape of the item each thread plays."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self._message_texts: dict = {}  # the JSON of messages replayed so far (digest.significant_json)

    def choices(self, body: dict[str, Any]) -> list[Choice] | None:
        """The recorded choices for ``body``; None for a body that is not plain JSON (a tuple, an enum), which
        the client serializes as it decides, and the transport digests as it sent it."""
        text = significant_json(body, self._message_texts)
        if text is None:
            return None
        tape = current_tape(self.recorder)
        digest = digest_of_json("POST", CHAT, text)
        stored = served(tape, digest)
        if stored is None:
            raise CassetteMiss(self.recorder.miss_message(tape, digest))
        choices = recorded_choices(stored["body"]["string"])
        if choices is None:
            raise unreadable(tape, "is not a chat completion")
        return choices


def current_tape(recorder: Recorder) -> Tape:
    tape = recorder.tape
    if tape is None:
        raise CassetteError("a model request was made outside a benchmark item")
    return tape


def served(tape: Tape, digest: str, kept: tuple[int, ...] = (200,)) -> dict[str, Any] | None:
    """The stored response of the digest's next recorded episode (None: none is left); ``CorruptCassette`` if its
    status is not one of ``kept``, which are all that is recorded (capture.py): a file edited or written by other
    tools."""
    hit = tape.replay(digest)
    if hit is None:
        return None
    status = hit["response"]["status"]["code"]
    if status not in kept:
        statuses = " or ".join(map(str, kept))
        raise unreadable(tape, f"has HTTP status {status}, where only status-{statuses} answers are recorded")
    return hit["response"]


def unreadable(tape: Tape, problem: str) -> CorruptCassette:
    """The error for a recorded answer of the tape's item that cannot be served as a completion."""
    return CorruptCassette(f"cassette {tape.cassette}: the recorded answer of item {tape.item_id} {problem}: {REPAIR}")
