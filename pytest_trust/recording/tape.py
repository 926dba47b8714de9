"""What one item has recorded, and what it has been served so far in this run.

Each digest's episodes are served by their ``episode`` number, not by their place in the file, so
a hand-edited or merged cassette replays in the order it was recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CorruptCassette
from .cassettes import REPAIR, Interaction
from .modes import RecordMode


@dataclass
class Tape:
    item_id: str
    cassette: Path
    recorded: dict[str, list[Interaction]]  # digest -> episodes, in order
    mode: RecordMode
    hint: str | Callable[[], str] = ""  # how to record this item, for the miss message (made when it misses)
    served: dict[str, int] = field(default_factory=dict)  # digest -> episodes served (or recorded) so far
    used: list[Interaction] = field(default_factory=list)  # everything served, in order
    fresh: bool = False  # something was recorded live

    @classmethod
    def open(cls, item_id: str, cassette: Path, interactions: list[Interaction], mode: RecordMode,
             hint: str | Callable[[], str] = "") -> Tape:
        recorded: dict[str, list[Interaction]] = {}
        if not mode.rerecords:
            for interaction in interactions:
                recorded.setdefault(interaction["digest"], []).append(interaction)
            for digest, episodes in recorded.items():
                if len(episodes) == 1 and episodes[0]["episode"] == 0:
                    continue  # one request, once: nothing to order or check (most items)
                episodes.sort(key=lambda interaction: interaction["episode"])
                problem = _episode_problem([interaction["episode"] for interaction in episodes])
                if problem:
                    raise CorruptCassette(f"cassette {cassette}: item {item_id}, request digest {digest[:16]}: "
                                          f"{problem}: {REPAIR}")
        return cls(item_id, cassette, recorded, mode, hint)

    @property
    def may_record(self) -> bool:
        if self.mode is RecordMode.ONCE:
            return not self.recorded  # once: only items with no recording at all
        return self.mode.can_record

    def replay(self, digest: str) -> Interaction | None:
        episodes = self.recorded.get(digest, ())
        episode = self.served.get(digest, 0)
        if episode >= len(episodes):
            return None
        self.served[digest] = episode + 1
        self.used.append(episodes[episode])
        return episodes[episode]

    def keep(self, digest: str, request: dict[str, Any], response: dict[str, Any]) -> Interaction:
        episode = self.served.get(digest, 0)
        self.served[digest] = episode + 1
        interaction = {"item_id": self.item_id, "digest": digest, "episode": episode,
                       "request": request, "response": response}
        self.used.append(interaction)
        self.fresh = True
        return interaction


def _episode_problem(numbers: list[int]) -> str | None:
    """Why sorted episode numbers are not 0..n-1: a replay could serve neither copy faithfully."""
    for expected, number in enumerate(numbers):
        if number != expected:
            if expected and number == numbers[expected - 1]:
                return f"episode {number} is recorded twice"
            return f"episodes {', '.join(map(str, numbers))} are not numbered 0..{len(numbers) - 1}"
    return None
