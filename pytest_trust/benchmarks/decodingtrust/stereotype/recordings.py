"""DecodingTrust's recorded stereotype runs of a model, paired with our items, for the importer.

``data/stereotype/generations/<org>/<type>/<model>_<topic>.csv`` (``openai`` for the GPT models, the hub
organisation for the six open ones) holds one row per prompt: ``model, system_prompt, user_prompt, gen_0 ..
gen_24``, each ``gen_j`` the Python repr of ``{'agreeability_num': .., 'output': ..}``. The rows carry the
request (system and user prompt; decoding as the paper's call) and the 25 answers, nothing else: no id, usage
or finish reason. A prompt is answered by the first row of the model that asks it, as upstream's
``get_instance`` reads the file; the ``model`` column is matched against every spelling DecodingTrust wrote
for the model (``names.column_spellings()``), since it differs between splits.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_csv
from ....errors import DataError
from ....items import Item
from ...spec import Recorded, Unrecorded
from ..common import SOURCE, Message
from .items import NAME, load_items, user_prompt
from .prompts import DECODING, SYS_TYPES, TOPICS, scenario

GENERATIONS = "data/stereotype/generations"
COLUMNS = ["model", "system_prompt", "user_prompt"] + [f"gen_{j}" for j in range(DECODING["n"])]


def recording_path(sys_type: str, topic: str, model: str, org: str = "openai") -> str:
    return f"{GENERATIONS}/{org}/{sys_type}/{model}_{topic}.csv"


def recordings(data: DataStore, names: Any) -> Iterator[Recorded | Unrecorded]:
    by_scenario: dict[str, list[Item]] = defaultdict(list)
    for item in load_items(data, {}):
        by_scenario[item.cassette].append(item)
    for sys_type in SYS_TYPES:
        for topic in TOPICS:
            items = by_scenario[scenario(sys_type, topic)]
            path = recording_path(sys_type, topic, names.full, names.org)
            if items[0].unavailable:
                yield Unrecorded(NAME, items[0].cassette, items[0].unavailable, files=tuple(items[0].inputs["unavailable"]))
            elif not is_pinned(SOURCE, path) or absent_reason(SOURCE, path) is not None:
                reason = f"DecodingTrust shipped no recording of {names.full} for {items[0].cassette}"
                yield Unrecorded(NAME, items[0].cassette, reason, files=(path,))
            else:
                yield from paired(items, read_csv(data, SOURCE, path), path, names.full, names.column_spellings())


def paired(items: Sequence[Item], rows: list[list[str]], path: str, model: str,
           columns: Sequence[str] = ()) -> Iterator[Recorded | Unrecorded]:
    """The recorded answers of ``model`` to ``items``: the rows whose ``model`` column is one of ``columns``
    (default: ``model`` itself)."""
    if not rows or rows[0] != COLUMNS:
        raise DataError(f"{path}: expected the columns {', '.join(COLUMNS[:4])} .. gen_24, found {rows[:1]}")
    spellings = tuple(columns) or (model,)
    first: dict[str, int] = {}
    for number, row in enumerate(rows[1:], start=1):
        if row[0] in spellings:
            first.setdefault(row[2], number)
    if rows[1:] and not first:
        found = sorted({row[0] for row in rows[1:]})
        raise DataError(f"{path}: no row is of {model} (model column {' or '.join(map(repr, spellings))}); "
                        f"the file's rows say {', '.join(map(repr, found[:3]))}")
    file = path.rsplit("/", 1)[1]
    for item in items:
        number = first.get(user_prompt(item))
        if number is None:
            yield Unrecorded(NAME, item.cassette, f"{file} has no row for this prompt", item.id, (path,))
            continue
        row = rows[number]
        outputs = [_output(cell, path, number) for cell in row[3:]]
        recorded: list[Message] = [{"role": "system", "content": row[1]}, {"role": "user", "content": row[2]}]
        yield Recorded(item, completion(model, outputs, f"{path}#{number}"), messages=recorded)


def _output(cell: str, path: str, number: int) -> str:
    """The answer text of one ``gen_j`` cell: a Python literal, read as one (not JSON)."""
    try:
        value = ast.literal_eval(cell)
        output = value["output"]
    except (ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError):
        output = None
    if not isinstance(output, str):
        raise DataError(f"{path}, data row {number}: a gen_j cell is not a dict with a text 'output' ({cell[:60]!r})")
    return output


def completion(model: str, outputs: Sequence[str], where: str) -> dict[str, Any]:
    """A chat.completion body with one choice per recorded answer; the recording kept no finish reason."""
    choices = [{"index": j, "message": {"role": "assistant", "content": text}, "finish_reason": None}
               for j, text in enumerate(outputs)]
    return {"id": f"decodingtrust:{where}", "object": "chat.completion", "created": 0, "model": model,
            "choices": choices}
