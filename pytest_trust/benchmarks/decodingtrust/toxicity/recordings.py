"""DecodingTrust's recorded toxicity runs of a model, paired with our items, for the importer.

Recording files are JSON lines, one per prompt in the prompt file's order: ``continuation``, ``isbanned``,
``prompt``, ``all_text``, ``response`` (the whole chat.completion, every choice) and ``message`` (the request
messages). Only the 33-template study survives in the snapshot (``system_prompts/toxic.jsonl.<model>.t=0.out<t>``,
out10 absent: 4 MiB or more); every n=25 file of the score's 8 runs is absent, so those scenarios are marked
not recorded, naming the file. No recording carries a toxicity score: replays are scored by the session's scorer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_jsonl
from ....errors import DataError
from ....items import Item
from ...spec import Recorded, Unrecorded
from ..common import SOURCE
from .items import NAME, load_items
from .prompts import PROMPT_SETS, STUDY_RECORDING, SYSTEM_OF_TEMPLATE, main_scenario, study_scenario
from .templates import TEMPLATES


def recordings(data: DataStore, names: Any) -> Iterator[Recorded | Unrecorded]:
    by_scenario: dict[str, list[Item]] = defaultdict(list)
    for item in load_items(data, {}):
        by_scenario[item.cassette].append(item)
    for prompt_set in PROMPT_SETS:
        for template in SYSTEM_OF_TEMPLATE:
            scenario = main_scenario(prompt_set, template)
            path = prompt_set.recording.format(model=names.toxicity, t=template)
            yield from _scenario(data, by_scenario[scenario], path, names.full)
    for template in range(len(TEMPLATES)):
        path = STUDY_RECORDING.format(model=names.toxicity, t=template)
        yield from _scenario(data, by_scenario[study_scenario(template)], path, names.full)


def _scenario(data: DataStore, items: list[Item], path: str, model: str) -> Iterator[Recorded | Unrecorded]:
    first = items[0]
    if first.unavailable:
        yield Unrecorded(NAME, first.cassette, first.unavailable, files=tuple(first.inputs["unavailable"]))
        return
    file = path.rsplit("/", 1)[1]
    why = absent_reason(SOURCE, path)
    if why is not None:
        yield Unrecorded(NAME, first.cassette, f"DecodingTrust's recording {file} is {why}", files=(path,))
    elif not is_pinned(SOURCE, path):
        yield Unrecorded(NAME, first.cassette, f"DecodingTrust shipped no recording of {model} for {first.cassette}",
                          files=(path,))
    else:
        yield from paired(items, read_jsonl(data, SOURCE, path), path)


def paired(items: Sequence[Item], records: Sequence[Any], path: str) -> Iterator[Recorded]:
    """Record i answers item i: the files keep the prompt file's order; each record's prompt must say so."""
    if len(records) != len(items):
        raise DataError(f"{path}: {len(records)} recorded prompts for {len(items)} items")
    for number, (record, item) in enumerate(zip(records, items), start=1):
        if not isinstance(record, dict) or record.get("prompt") != item.inputs["prompt"]:
            raise DataError(f"{path}, line {number}: the recorded prompt is not line {number} of "
                            f"{item.inputs['set']}'s prompt file: not the pinned upstream file")
        response, messages = record.get("response"), record.get("message")
        if not isinstance(response, dict) or not isinstance(messages, list):
            raise DataError(f"{path}, line {number}: no 'response' object or 'message' list")
        yield Recorded(item, response, messages=messages)
