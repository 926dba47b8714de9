"""What a run plays: each suite's items, built once and cut to --trust-limit and to what the selection keeps;
pytest parametrizes its suite modules with them."""

from __future__ import annotations

import random
from collections import defaultdict
from functools import partial

from ..benchmarks import SUITES
from ..data import DataStore
from ..data.item_cache import cached_items
from ..data.store import default_cache
from ..errors import DataUnavailable
from ..items import Item
from ..options import RunConfig
from ..recording.cassettes import model_dir
from .selection import Selection


class ItemSource:
    def __init__(self, config: RunConfig, selection: Selection) -> None:
        self.config = config
        self.selection = selection
        self._items: dict[str, list[Item]] = {}
        self._data: DataStore | None = None
        self._no_data_in: str | None = None  # the first suite whose data could not be read (one message per run)

    @property
    def data(self) -> DataStore:
        if self._data is None:
            self._data = DataStore(self.config.data, missing_mirror=self.config.data_missing)
        return self._data

    def items(self, suite_name: str) -> list[Item]:
        """A suite's items, built once (then read from the user cache), cut to --trust-limit per cassette file and
        to what the selection keeps, file by file: the uncut list is never held whole (once built), and a
        file the selection leaves out whole is not even read."""
        if suite_name not in self._items:
            suite = SUITES[suite_name]
            cut = self._cut if self.config.limit is not None or self.selection.filters else None
            if suite.needs_data:
                try:
                    items = cached_items(default_cache().parent / "items", suite_name, self.config.settings,
                                         self.config.data, lambda: suite.load(self.data, self.config.settings), cut,
                                         partial(self._skips, suite.benchmark), self.data)
                except DataUnavailable:
                    if self._no_data_in is None:  # the first suite says why and what to do; the rest point to it
                        self._no_data_in = suite_name
                        raise
                    raise DataUnavailable(f"its benchmark data cannot be read either: the error loading suite "
                                          f"{self._no_data_in} says why and what to do") from None
            else:  # a suite built from its own rows (a user's, a test's): the cache's key cannot cover them
                items = suite.load(None, self.config.settings)
                items = cut(items) if cut is not None else items
            self._items[suite_name] = items
        return self._items[suite_name]

    def _skips(self, benchmark: str, cassette: str, count: int) -> bool:
        """A cassette unit left out whole, unread (``Selection.skips``), counted as --trust-limit would cut it."""
        limit = self.config.limit
        return self.selection.skips(benchmark, cassette, count if limit is None else min(count, limit))

    def _cut(self, items: list[Item]) -> list[Item]:
        """--trust-limit, then the selection's filters: of a whole suite or of one cassette unit's items, to the same
        effect."""
        if self.config.limit is not None:
            items = seeded_subset(items, self.config.limit, self.config.seed)
        return self.selection.keep(items) if self.selection.filters else items

    def unrecorded_benchmarks(self, benchmarks: list[str]) -> list[str]:
        """Benchmarks with no cassette folder for the model, when replaying only (nothing to serve)."""
        if self.config.record_mode.can_record or self.config.recordings is None:
            return []
        root = model_dir(self.config.cassettes, self.config.recordings)
        return [name for name in benchmarks if not (root / name).is_dir()]


def seeded_subset(items: list[Item], limit: int, seed: int) -> list[Item]:
    """Up to ``limit`` items per cassette file (``Item.cassette``), the same ones for the same seed, in their
    original order."""
    by_cassette: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_cassette[item.cassette].append(item)
    keep: set[str] = set()
    for cassette, group in by_cassette.items():
        rng = random.Random(f"{seed}:{cassette}")
        ids = sorted(item.id for item in group)
        keep.update(rng.sample(ids, min(limit, len(ids))))
    return [item for item in items if item.id in keep]
