"""A stand-in for the session's model client in unit tests: one scripted reply, every call kept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class FakeModel:
    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls: list[tuple[list[dict], dict]] = []

    def chat(self, messages: Sequence[dict], **decoding: Any) -> str:
        self.calls.append(([dict(m) for m in messages], decoding))
        return self.reply
