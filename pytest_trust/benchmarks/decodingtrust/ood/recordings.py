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
from ..common import SOURCE, NotRecorded, Recorded
from .items import NAME, load_items
from .runs import RUNS


def recordings(data: DataStore, names) -> Iterator[Recorded | NotRecorded]:
    items_by_run: dict[str, list[Item]] = defaultdict(list)
    for item in load_items(data, {}):
        if "run" in item.inputs:
            items_by_run[item.inputs["run"]].append(item)
    by_scenario: dict[str, list] = defaultdict(list)
    for run in RUNS:
        by_scenario[run.scenario].append(run)
    for scenario, runs in by_scenario.items():
        paths = {run.name: run.recording(names.full, names.short) for run in runs}
        held = {name: path for name, path in paths.items() if _recorded(path)}
        if not held:
            files = tuple(paths.values())
            yield NotRecorded(NAME, scenario, f"DecodingTrust shipped no recording of {names.full} for {scenario}",
                              files=files)
            continue
        for run in runs:
            items = items_by_run[run.name]
            if run.name in held:
                yield from _pair(read_json(data, SOURCE, held[run.name]), items, held[run.name])
            else:
                reason = f"DecodingTrust shipped no recording of {names.full} for run {run.name}"
                yield from (NotRecorded(NAME, scenario, reason, item.id, (paths[run.name],)) for item in items)


def _task_message(messages: list[dict]) -> str:
    """The task message of a recorded request: the first line of its first user turn."""
    return messages[1]["content"].split("\n", 1)[0]


def _recorded(path: str) -> bool:
    return is_pinned(SOURCE, path) and absent_reason(SOURCE, path) is None


def _pair(records: list, items: list[Item], path: str) -> Iterable[Recorded | NotRecorded]:
    if len(records) > len(items):
        raise DataError(f"{path}: {len(records)} recorded answers for {len(items)} items")
    if records and items and _task_message(records[0][0]) != items[0].inputs["task_message"]:
        # gpt-3.5's qa2023 idk file is a byte copy of its standard run: it never asked the idk question
        reason = f"{path.rsplit('/', 1)[1]} holds requests of another task message (a copy of another run)"
        yield from (NotRecorded(NAME, item.scenario, reason, item.id, (path,)) for item in items)
        return
    for (messages, response), item in zip(records, items):
        yield Recorded(item, response, messages=messages)
    reason = f"the recording holds {len(records)} of {len(items)} answers ({path.rsplit('/', 1)[1]})"
    for item in items[len(records):]:
        yield NotRecorded(NAME, item.scenario, reason, item.id)
