"""Items from the upstream input files, one per line, in the order DecodingTrust asked them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_jsonl
from ....items import Item
from ..common import CLASSIFICATION_DECODING, SOURCE, unavailable_item
from .scenarios import NAME, SCENARIOS, Scenario


def available(path: str) -> bool:
    return is_pinned(SOURCE, path) and absent_reason(SOURCE, path) is None


def load_items(data: DataStore, settings: Mapping[str, Any]) -> list[Item]:
    """Every scenario's items; a scenario with an input file absent upstream is one placeholder item."""
    items: list[Item] = []
    shared: dict[Any, Any] = {}  # most files repeat one demonstration list on every line: keep one copy
    for scenario in SCENARIOS:
        missing = [path for path in scenario.input_files() if not available(path)]
        if missing:
            items.append(unavailable_item(NAME, scenario.name, missing))
            continue
        for seed in scenario.seeds:
            items += scenario_items(scenario, seed, read_jsonl(data, SOURCE, scenario.input_file(seed)), shared)
    return items


def scenario_items(scenario: Scenario, seed: int, rows: list[dict[str, Any]],
                   shared: dict[Any, Any] | None = None) -> list[Item]:
    """One seed file's items. Spurious runs ask the ``yes`` items first, then the others
    (``test_sc_hydra.test``); their recordings keep that order, so the items do too."""
    shared = {} if shared is None else shared
    items, tags = [], (scenario.part,)  # one tags tuple for the file's items: a pickled chunk's items share it
    for index, row in enumerate(rows):
        examples = () if scenario.zero else tuple(tuple(pair) for pair in row["examples"])
        examples = shared.setdefault(examples, examples)
        inputs = {"part": scenario.part, "group": scenario.group, "seed": seed, "index": index,
                  "task": scenario.task, "input": row["input"], "option": tuple(row["option"]),
                  "examples": examples}
        items.append(Item(id=f"{scenario.name}/{seed}/{index}", benchmark=NAME, cassette=scenario.name,
                          inputs=inputs, decoding=CLASSIFICATION_DECODING, expected=row["label"],
                          tags=tags))
    if scenario.part == "spurious":
        items = [i for i in items if i.expected == "yes"] + [i for i in items if i.expected != "yes"]
    return items
