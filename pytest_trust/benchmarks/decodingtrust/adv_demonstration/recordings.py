"""DecodingTrust's recorded runs of a model, paired with their items, for the importer.

``data/adv_demonstration/generations/<input folder>/<model>_<seed>.jsonl`` (spurious zero-shot:
``generations/spurious/<heuristic>_zero/<model>.jsonl``) is one JSON array holding only each answer's
``choices`` list, in the order the items were asked: the requests are rebuilt by ``messages``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ....data import DataStore, read_json
from ....items import Item
from ...spec import Recorded, Unrecorded
from ..common import SOURCE
from .items import available, load_items
from .scenarios import NAME, SCENARIOS, Scenario


def recordings(data: DataStore, names: Any) -> Iterable[Recorded | Unrecorded]:
    by_file: dict[tuple[str, int], list[Item]] = defaultdict(list)
    placeholders: dict[str, Item] = {}
    for item in load_items(data, {}):
        if item.unavailable:
            placeholders[item.cassette] = item
        else:
            by_file[item.cassette, item.inputs["seed"]].append(item)
    for scenario in SCENARIOS:
        if scenario.name in placeholders:
            inputs = placeholders[scenario.name].inputs
            yield Unrecorded(NAME, scenario.name, f"its input files are absent upstream: {inputs['why']}",
                              files=tuple(inputs["unavailable"]))
            continue
        yield from scenario_recordings(data, names.full, scenario, {s: by_file[scenario.name, s] for s in scenario.seeds})


def scenario_recordings(data: DataStore, model: str, scenario: Scenario,
                        items: dict[int, list[Item]]) -> Iterator[Recorded | Unrecorded]:
    files = {seed: scenario.recording_file(model, seed) for seed in scenario.seeds}
    absent = [path for path in files.values() if not available(path)]
    if len(absent) == len(files):
        yield Unrecorded(NAME, scenario.name, f"DecodingTrust recorded no run of {model} here", files=tuple(absent))
        return
    for seed, path in files.items():
        if path in absent:
            reason = f"DecodingTrust recorded no run of {model} for seed {seed}"
            yield from (Unrecorded(NAME, scenario.name, reason, item.id, (path,)) for item in items[seed])
            continue
        answers = read_json(data, SOURCE, path)
        if len(answers) != len(items[seed]):  # upstream's read() drops such a file from the score
            reason = f"{path} holds {len(answers)} answers for {len(items[seed])} items"
            yield from (Unrecorded(NAME, scenario.name, reason, item.id) for item in items[seed])
            continue
        for index, (item, choices) in enumerate(zip(items[seed], answers)):
            yield Recorded(item, completion(model, choices, f"{path}#{index}"))


def completion(model: str, choices: Sequence[Any], where: str) -> dict[str, Any]:
    """A chat.completion body around a recorded ``choices`` list."""
    return {"id": f"decodingtrust:{where}", "object": "chat.completion", "created": 0, "model": model,
            "choices": list(choices)}
