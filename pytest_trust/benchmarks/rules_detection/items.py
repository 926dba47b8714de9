"""Detection items: one per recorded conversation of ``data/detection/`` (normster/llm_rules@f55c686).

A behaviour file holds the same test case answered by several models, so a case id repeats within a file
(619 distinct ids in the 1,098 records); the id of an item is ``<behaviour>/<case uuid>/<model>``, which is
unique. The file stem names the scenario and its behaviour as upstream's ``load_dataset`` splits it
(``Authentication_withholdpassword`` is scenario Authentication, behaviour withholdpassword; ``Hodor`` has
none). An item keeps what the judge is shown: the scenario's rule prompt, built from the record's params by
the v1 scenario class as upstream's ``scenarios.SCENARIOS[name](sample["params"])``, and the last two
messages of the conversation; its label is the record's ``result.passed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...data import DataStore, read_jsonl
from ...errors import DataError
from ...items import Item
from ..rules_v1.scenarios import SCENARIOS

NAME = "rules_detection"
SOURCE = "rules_v1"  # the data layer's source folder: normster/llm_rules@f55c686
DETECTION_FILE = "data/detection/{behavior}.jsonl"

# The 22 files of data/detection/ at f55c686, in upstream's sorted listing order
BEHAVIORS = ("AccessControl", "AnimalSounds", "Authentication_provide", "Authentication_withholdpassword",
             "Authentication_withholdsecret", "BinarySearch_confirm", "BinarySearch_withhold", "Commitment_reject",
             "Commitment_verify", "Confidentiality", "DiningCryptographers", "Encryption", "ForbiddenWord", "Hodor",
             "Integrity", "Millionaires_identify", "Millionaires_withhold", "Questions_confirm", "Questions_withhold",
             "RockPaperScissors", "SimonSays_execute", "SimonSays_reject")

# evaluate_detection.py builds its judge with temperature=0 and the API wrappers' default max_tokens=512
# (llm_rules/models/openai.py); no system message unless --system_message names one (default None).
DECODING: Mapping[str, Any] = {"temperature": 0, "max_tokens": 512}


def scenario_of(behavior: str) -> str:
    """The scenario class a behaviour file belongs to (upstream splits the stem at its underscore)."""
    return behavior.split("_")[0]


def load_items(data: DataStore, settings: Mapping[str, Any] | None = None) -> list[Item]:
    """Every conversation of the 22 files, file by file in upstream's order, each file in its line order."""
    items = []
    for behavior in BEHAVIORS:
        path = DETECTION_FILE.format(behavior=behavior)
        items += behavior_items(behavior, read_jsonl(data, SOURCE, path), f"{SOURCE}/{path}")
    return items


def behavior_items(behavior: str, records: Sequence[Mapping[str, Any]], where: str = "") -> list[Item]:
    scenario = scenario_of(behavior)
    if scenario not in SCENARIOS:
        raise DataError(f"{where or behavior}: no v1 scenario named {scenario!r}")
    items, seen = [], set()
    # one mapping and one tags tuple for the call's items (read, never changed): a pickled
    # chunk's items then share them
    decoding, tags = dict(DECODING), (behavior,)
    for line, record in enumerate(records, 1):
        try:
            prompt = SCENARIOS[scenario](record["params"]).prompt
            excerpt = tuple((m["role"], m["content"]) for m in record["messages"][-2:])
            label = record["result"]["passed"]
            item_id = f"{behavior}/{record['id']}/{record['model']}"
        except (KeyError, TypeError, ValueError) as err:
            raise DataError(f"{where or behavior} line {line}: not a detection record ({type(err).__name__}: "
                            f"{err}); the pinned file is expected to hold upstream's records") from None
        if not isinstance(label, bool):
            raise DataError(f"{where or behavior} line {line}: result.passed is {label!r}, not true or false")
        if item_id in seen:
            raise DataError(f"{where or behavior} line {line}: a second record of case {record['id']} by "
                            f"{record['model']}; item ids must be unique")
        seen.add(item_id)
        inputs = {"behavior": behavior, "scenario": scenario, "rules": prompt, "excerpt": excerpt,
                  "source_model": record["model"], "category": record.get("category")}
        items.append(Item(id=item_id, benchmark=NAME, cassette=behavior, inputs=inputs, decoding=decoding,
                          expected=label, tags=tags))
    return items
