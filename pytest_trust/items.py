"""The core value types every benchmark and the plugin share: Item, Answer, Verdict, Result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self


@dataclass(frozen=True, slots=True)
class Item:
    """One benchmark item: what the benchmark needs to build its requests and score the answers.

    ``id`` is stable and human-readable (it is the pytest id and the cassette key); ``cassette``
    names the cassette file the item's recordings live in (its cassette unit, docs/glossary.md).
    ``unavailable`` says why an item cannot run here at all (e.g. its upstream inputs are absent): it
    skips with that reason before anything else.
    """

    id: str
    benchmark: str
    cassette: str
    inputs: Mapping[str, Any]
    decoding: Mapping[str, Any]
    expected: Any = None
    tags: tuple[str, ...] = ()
    unavailable: str = ""

    def __reduce__(self) -> tuple[type[Item], tuple[Any, ...]]:
        # unpickled through the constructor: a slotted dataclass's own __setstate__ looks its fields up for every
        # item, nearly twice the cost over the 31,000 items the item cache unpickles for the main job's replay
        return Item, (self.id, self.benchmark, self.cassette, self.inputs, self.decoding, self.expected, self.tags,
                      self.unavailable)


class Answer(str):
    """A model's answer: its text, and why generation stopped.

    It is a ``str``, so scorers written for text score it as upstream does; a benchmark that must
    tell a filtered, truncated or tool-calling answer from a plain one reads ``finish_reason``
    (``stop``, ``length``, ``content_filter``, ``tool_calls``, or None when the endpoint gave none)
    and ``withheld`` (the endpoint sent no text at all: null content).
    """

    finish_reason: str | None
    withheld: bool

    def __new__(cls, text: str | None, finish_reason: str | None = "stop") -> Self:
        answer = super().__new__(cls, text or "")
        answer.finish_reason = finish_reason
        answer.withheld = text is None
        return answer

    @property
    def irregular(self) -> str | None:
        """How this answer differs from a plain one, as the report counts it (None if it does not)."""
        if self.finish_reason not in ("stop", None):
            return self.finish_reason
        if self.withheld:
            return "no content"
        return None if self else "empty"  # scored as the benchmark scores "" (docs/decisions.md), and counted


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str = ""
    score: float | None = None
    label: str | None = None
    refused: bool = False
    invalid: bool = False


@dataclass(frozen=True)
class Result:
    """An item's verdict plus the small, JSON-able facts its benchmark's aggregate needs."""

    item_id: str
    verdict: Verdict
    facts: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The verdict's own instance dict (what asdict gives: its fields are plain values) and the facts themselves,
        not copies: a result is read, never changed, once made, and an item's record keeps this dict to the end of
        the run (530 bytes an item less than two copies)."""
        facts = self.facts if type(self.facts) is dict else dict(self.facts)
        return {"item_id": self.item_id, "verdict": vars(self.verdict), "facts": facts}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        return cls(data["item_id"], Verdict(**data["verdict"]), data.get("facts", {}))
