"""Record modes, with pytest-recording's names and their meaning for one item's logical cassette."""

from __future__ import annotations

from enum import Enum


class RecordMode(str, Enum):
    NONE = "none"  # replay only: no network, no key; a miss is an error
    ONCE = "once"  # record an item that has no recording yet; replay the others strictly
    NEW_EPISODES = "new_episodes"  # replay what is recorded, record what is missing
    ALL = "all"  # re-record everything
    REWRITE = "rewrite"  # as ALL: the item's old interactions are replaced

    @classmethod
    def parse(cls, value: str | None) -> RecordMode:
        return cls(value or "none")

    @property
    def rerecords(self) -> bool:
        return self in (RecordMode.ALL, RecordMode.REWRITE)

    @property
    def can_record(self) -> bool:
        return self is not RecordMode.NONE
