"""DecodingTrust's recorded privacy runs of a model (data/privacy/generations/), paired with our items.

Each file is JSON lines, one per answer, holding the ground truth, the answer and the full response;
``prompt`` is the request without its system message (a message list for PII and understanding, the
raw prompt for Enron). A failed call left no line and lost the rest of its batch, so lines are matched
to items by their request and ground truth, in order; a line that matches no item is an error.

Understanding asked each prompt 100 times with n=1; here an item asks for its 100 answers at once
(``samples``), so its recorded answers become the choices of one response (usage summed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_jsonl
from ....errors import DataError
from ....items import Item
from ...spec import Recorded, Unrecorded
from ..common import SOURCE
from .items import NAME, load_items
from .prompts import PII_SYSTEM
from .protocol import messages as item_messages
from .scenarios import MODES, PII_SCENARIOS, TOPICS, understanding_recording, understanding_scenario


def recordings(data: DataStore, names) -> Iterator[Recorded | Unrecorded]:
    by_scenario: dict[str, list[Item]] = {}
    for item in load_items(data, {}):
        by_scenario.setdefault(item.cassette, []).append(item)
    model = names.full
    for mode in MODES:
        yield from _scenario(data, by_scenario[mode.cassette], mode.recording(model), model, _enron_key,
                             _enron_messages)
    for scenario in PII_SCENARIOS:
        yield from _scenario(data, by_scenario[scenario.cassette], scenario.recording(model), model, _pii_key,
                             _pii_messages)
    for topic in TOPICS:
        yield from _understanding(data, by_scenario[understanding_scenario(topic)],
                                  understanding_recording(topic, model), model)


def _absent(items: list[Item], path: str, model: str) -> Unrecorded | None:
    """The scenario marked not recorded when its recording, or the inputs to pair it with, are absent."""
    if items[0].unavailable:
        return Unrecorded(NAME, items[0].cassette, items[0].unavailable, files=tuple(items[0].inputs["unavailable"]))
    if absent_reason(SOURCE, path) is None and is_pinned(SOURCE, path):
        return None
    reason = f"DecodingTrust shipped no recording of {model} for {items[0].cassette}"
    return Unrecorded(NAME, items[0].cassette, reason, files=(path,))


def _scenario(data: DataStore, items: list[Item], path: str, model: str, key: Callable[[Item], Hashable],
              request: Callable[[Item, dict], list]) -> Iterator[Recorded | Unrecorded]:
    missing = _absent(items, path, model)
    if missing is not None:
        yield missing
        return
    keys = [key(item) for item in items]
    position = 0
    for line, record in enumerate(read_jsonl(data, SOURCE, path), 1):
        wanted = _record_key(record)
        start = position
        while position < len(items) and keys[position] != wanted:
            position += 1
        if position == len(items):
            raise DataError(f"{path}: line {line} asks a request that no item of {items[0].cassette} after "
                            f"{items[start - 1].id if start else 'the first'} sends; the items no longer match "
                            "upstream's")
        for skipped in items[start:position]:
            yield _not_recorded(skipped, path)
        yield Recorded(items[position], record["response"], messages=request(items[position], record))
        position += 1
    for skipped in items[position:]:
        yield _not_recorded(skipped, path)


def _not_recorded(item: Item, path: str) -> Unrecorded:
    reason = f"{path.rsplit('/', 1)[1]} holds no answer to this request (the call failed upstream)"
    return Unrecorded(NAME, item.cassette, reason, item_id=item.id)


def _record_key(record: dict) -> Hashable:
    if "gt-email" in record:
        return record["prompt"], record["gt-email"]
    return json.dumps(record["prompt"], sort_keys=True), record["gt"]


def _enron_key(item: Item) -> Hashable:
    return item.inputs["prompt"], item.inputs["email"]


def _pii_key(item: Item) -> Hashable:
    return json.dumps(item.inputs["conversation"], sort_keys=True), item.expected


def _enron_messages(item: Item, record: dict) -> list:
    return [{"role": "user", "content": record["prompt"]}]


def _pii_messages(item: Item, record: dict) -> list:
    """The recorded conversation behind the template-1 system message of its PII type, which the
    recording leaves out (prompt_tokens are consistent with it; not proven token by token)."""
    return [{"role": "system", "content": PII_SYSTEM.format(item.inputs["pii"])}, *record["prompt"]]


def _understanding(data: DataStore, items: list[Item], path: str, model: str) -> Iterator[Recorded | Unrecorded]:
    missing = _absent(items, path, model)
    if missing is not None:
        yield missing
        return
    by_phrasing: dict[str, list[dict]] = {}
    for record in read_jsonl(data, SOURCE, path):
        by_phrasing.setdefault(record["word"], []).append(record)
    known = {item.inputs["phrasing"] for item in items}
    if set(by_phrasing) - known:
        raise DataError(f"{path}: answers to phrasings no item asks ({', '.join(sorted(set(by_phrasing) - known))})")
    for item in items:
        records = by_phrasing.get(item.inputs["phrasing"], [])
        if not records:
            reason = f"{path.rsplit('/', 1)[1]} holds no answer to this phrasing (the calls failed upstream)"
            yield Unrecorded(NAME, item.cassette, reason, item_id=item.id)
            continue
        asked = item_messages(item)
        if any(record["prompt"] != asked for record in records):
            raise DataError(f"{path}: the answers to {item.inputs['phrasing']!r} were asked another request "
                            f"than item {item.id} sends")
        yield Recorded(item, merged_response(records), messages=records[0]["prompt"])


def merged_response(records: Sequence[dict]) -> dict[str, Any]:
    """The recorded single answers as the choices of one response, in recording order."""
    first = records[0]["response"]
    usage = {key: sum(r["response"]["usage"][key] for r in records)
             for key in ("prompt_tokens", "completion_tokens", "total_tokens")}
    choices = [{**r["response"]["choices"][0], "index": i} for i, r in enumerate(records)]
    return {"id": first["id"], "object": first["object"], "created": first["created"], "model": first["model"],
            "usage": usage, "choices": choices}
