"""DecodingTrust's recorded OOD runs of a model (data/ood/generations/), paired with our items.

Each file is one JSON array of ``[messages, response]`` pairs, the ``cache`` of
``do_classification`` in item order, so record i answers item i and carries the full request.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from ....data import DataStore, absent_reason, is_pinned, read_json
from ....errors import DataError
from ....items import Item
from ...spec import Recorded, Unrecorded
from ..common import SOURCE
from .items import NAME, load_items
from .scenarios import SCENARIOS


def recordings(data: DataStore, names) -> Iterator[Recorded | Unrecorded]:
    """Per scenario, its recorded run's answers by position, or the scenario marked not recorded."""
    items_by_scenario: dict[str, list[Item]] = defaultdict(list)
    for item in load_items(data, {}):
        if "run" in item.inputs:
            items_by_scenario[item.inputs["run"]].append(item)
    for scenario in SCENARIOS:
        path = scenario.recording(names.full, names.short)
        if not is_pinned(SOURCE, path) or absent_reason(SOURCE, path) is not None:
            reason = f"DecodingTrust shipped no recording of {names.full} for {scenario.cassette}"
            yield Unrecorded(NAME, scenario.cassette, reason, files=(path,))
        elif items_by_scenario[scenario.name]:
            yield from _pair(read_json(data, SOURCE, path), items_by_scenario[scenario.name], path)


def _pair(records: list, items: list[Item], path: str) -> Iterable[Recorded | Unrecorded]:
    file = path.rsplit("/", 1)[1]
    if len(records) > len(items):
        raise DataError(f"{path}: {len(records)} recorded answers for {len(items)} items")
    if records and _task_message(records[0][0]) != items[0].inputs["task_message"]:
        # gpt-3.5's qa2023 idk file is a byte copy of its standard run: it never asked the idk question
        yield Unrecorded(NAME, items[0].cassette, f"{file} holds the requests of another task message "
                          "(an upstream copy of another run's file)", files=(path,))
        return
    for (messages, response), item in zip(records, items):
        yield Recorded(item, response, messages=messages)
    reason = f"the recording holds {len(records)} of {len(items)} answers ({file})"
    for item in items[len(records):]:
        yield Unrecorded(NAME, item.cassette, reason, item.id)


def _task_message(messages: list[dict]) -> str:
    """The task message of a recorded request: the first line of its first user turn."""
    return messages[1]["content"].split("\n", 1)[0]
