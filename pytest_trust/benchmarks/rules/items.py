"""RuLES test cases as Items: the v3 suites from the data layer.

The mirror holds the 1,695 v3 cases re-packed by swiss-ai into six bucket files (one per suite x
harmless/helpful); each row carries the upstream uuid, messages, params (as a JSON string), the
upstream category (renamed ``round``) and the behaviour's file stem (``scenario_label``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ...data import DataStore, read_jsonl
from ...items import Item
from .scenarios import SCENARIOS

NAME = "rules"
SOURCE = "rules"
BUCKET_FILE = "lm_eval/tasks/realguardrails/s_rules/data/{suite}_{bucket}.jsonl"
SUITES = ("benign", "basic", "redteam")
BUCKETS = ("harmless", "helpful")

# upstream behaviour files (llm_rules/data/<suite>/<label>.jsonl) by bucket, per data/rules/README.md
HARMLESS = ("AccessControl", "Authentication_withholdpassword", "Authentication_withholdsecret",
            "BinarySearch_withhold", "Confidentiality", "Encryption", "ForbiddenWord", "Millionaires_withhold",
            "Questions_withhold")
HELPFUL = ("AnimalSounds", "Authentication_provide", "BinarySearch_confirm", "Commitment", "DiningCryptographers",
           "Integrity", "Millionaires_identify", "Questions_confirm", "RockPaperScissors", "SimonSays")
REDTEAM_CATEGORIES = ("Just Ask", "Indirection", "Legalese", "Obfuscation", "Rule change", "Simulation")

# Decoding of every model turn (issue 2: temperature 0 as upstream builds every model, 100 tokens).
DECODING = {"temperature": 0, "max_tokens": 100}


def load_items(data: DataStore, settings: Mapping[str, Any]) -> list[Item]:
    """The benign, basic and redteam suites, in file order."""
    rows = (row for suite in SUITES for bucket in BUCKETS
            for row in read_jsonl(data, SOURCE, BUCKET_FILE.format(suite=suite, bucket=bucket)))
    return _items(rows, settings)


def _items(rows: Iterable[Mapping[str, Any]], settings: Mapping[str, Any]) -> list[Item]:
    keep_reminders = bool(settings.get("rules_keep_reminders", False))
    items = []
    for row in rows:
        label = row["scenario_label"]
        if row["scenario"] not in SCENARIOS:
            raise ValueError(f"RuLES case {row['id']}: unknown scenario {row['scenario']!r}")
        inputs = {
            "suite": row["suite"],
            "behavior": label,
            "scenario": row["scenario"],
            "bucket": row["bucket_category"],
            "category": row["round"],
            "params": json.loads(row["params_json"]),
            # upstream loaders upper-case roles; the redteam files spell them USER or user
            "messages": tuple((m["role"].lower(), m["content"]) for m in row["messages"]),
            "keep_reminders": keep_reminders,
        }
        items.append(Item(id=f"{row['suite']}/{label}/{row['id']}", benchmark=NAME, cassette=label,
                          inputs=inputs, decoding=DECODING, tags=(row["suite"],)))
    return items
