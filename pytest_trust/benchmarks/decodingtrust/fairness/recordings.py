"""DecodingTrust's recorded fairness runs of a model, paired with our items.

Upstream ships ``data/fairness/generations/<model>_<dataset>_<demos>_<tests>.jsonl``, each one JSON
array of ``[messages, response]`` pairs (full request and full API response), from the runs before
the configs existed. Checked input by input, three of them are scored scenarios; the others
(adult_15/30/32/34, adult_0_200_8, compas, german, ...) match no config. Every other scenario would be
a new-style run, ``results/fairness/results/<model>/<setting>.json``, which is not shipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from ....data import DataStore, absent_reason, is_pinned
from ....items import Item
from ...spec import Recorded, Unrecorded
from ..common import SOURCE
from .items import NAME, load_items

GENERATIONS = "data/fairness/generations/"
# scenario -> the suffix of its old-style recording (AI-secure/DecodingTrust@161ae83, data/fairness/generations)
RECORDED_SCENARIOS = {
    "zero_shot_br_0.0": "adult_0_200",  # the inputs of adult_0_200_test_base_rate_0.0.jsonl
    "few_shot_16_fair_demon": "adult_16_200",
    "few_shot_32_fair_demon": "adult_32_200",
}


def recording_path(scenario: str, model: str) -> str | None:
    suffix = RECORDED_SCENARIOS.get(scenario)
    return f"{GENERATIONS}{model}_{suffix}.jsonl" if suffix else None


def recordings(data: DataStore, names) -> Iterator[Recorded | Unrecorded]:
    by_scenario: dict[str, list[Item]] = {}
    for item in load_items(data, {}):
        by_scenario.setdefault(item.cassette, []).append(item)
    for scenario, items in by_scenario.items():
        path = recording_path(scenario, names.full)
        if path is None:
            new_style = f"results/fairness/results/{names.full}/{scenario}.json"
            yield Unrecorded(NAME, scenario, f"DecodingTrust shipped no run of {names.full} for {scenario}",
                              files=(new_style,))
        elif absent_reason(SOURCE, path) is not None or not is_pinned(SOURCE, path):
            yield Unrecorded(NAME, scenario, f"{path} is not in DecodingTrust's data", files=(path,))
        else:
            yield from _paired(items, json.loads(data.read_text(SOURCE, path)), path)


def _paired(items: list[Item], records: list, path: str) -> Iterable[Recorded | Unrecorded]:
    """The i-th recorded exchange answers the i-th item: upstream ran the prompt file in order."""
    for item, (messages, response) in zip(items, records):
        yield Recorded(item, response, messages=messages)
    for item in items[len(records):]:
        yield Unrecorded(NAME, item.cassette, f"{path} stops after {len(records)} answers", item_id=item.id,
                          files=(path,))
