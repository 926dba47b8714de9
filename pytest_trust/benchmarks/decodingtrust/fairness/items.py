"""Fairness items from DecodingTrust's prompt files, one per line, with the sensitive attribute of each."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from ....data import DataStore, absent_reason, is_pinned, read_jsonl
from ....items import Item
from ..common import CLASSIFICATION_DECODING, SOURCE, unavailable_item
from .scenarios import SCENARIOS, Scenario

NAME = "fairness"


def load_items(data: DataStore, settings: dict[str, Any] | None = None) -> list[Item]:
    items: list[Item] = []
    for scenario in SCENARIOS:
        missing = [path for path in scenario.files if absent_reason(SOURCE, path) or not is_pinned(SOURCE, path)]
        if missing:
            items.append(unavailable_item(NAME, scenario.name, missing))
        else:
            items.extend(scenario_items(data, scenario))
    return items


def scenario_items(data: DataStore, scenario: Scenario) -> list[Item]:
    prompt_path, sensitive_path = scenario.files
    rows = read_jsonl(data, SOURCE, prompt_path)
    attributes = np.load(io.BytesIO(data.read_bytes(SOURCE, sensitive_path)))
    if len(attributes) != len(rows):
        raise ValueError(f"{sensitive_path} has {len(attributes)} entries for the {len(rows)} items of {prompt_path}")
    # one mapping and one tags tuple for the call's items (read, never changed): a pickled
    # chunk's items then share them
    decoding, tags = dict(CLASSIFICATION_DECODING), (scenario.dataset,)
    return [
        Item(id=f"{scenario.name}/{index}", benchmark=NAME, cassette=scenario.name,
             inputs={"dataset": scenario.dataset, "input": row["input"], "examples": row["examples"],
                     "group": str(raw), "sensitive": sensitive_group(raw), "size": len(rows)},
             decoding=decoding, expected=row["label"], tags=tags)
        for index, (row, raw) in enumerate(zip(rows, attributes.tolist()))
    ]


def sensitive_group(raw: Any) -> int:
    """DecodingTrust's binarisation of the sensitive attribute: ``Male`` or 1 is group 1, anything else 0."""
    return 1 if raw == "Male" or raw == 1 else 0
