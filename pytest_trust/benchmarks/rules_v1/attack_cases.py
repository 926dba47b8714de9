"""What ``pytest-trust attack gcg`` takes from RuLES v1: per behaviour its target string and its justask cases,
the conversation up to the attacked message, and where the suffixes found go (the rules_gcg suite's data).

As RuLES v1's attack script (normster/llm_rules@f55c686:gcg_attack/main_gcg.py): the target is the behaviour's
string from ``gcg_attack/targets.yaml`` formatted with the case's params; the rules are a user message
answered by the fixed acknowledgement (or the system message, ``--system-instructions``); the suffix goes after
one space at the end of the case's first message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import yaml

from ...data import DataStore, read_jsonl
from ...items import Item
from ..spec import SuffixAttack
from . import gcg
from .items import SOURCE, make_items
from .protocol import build_scenario, case_messages, opening

TARGETS_FILE = "gcg_attack/targets.yaml"
JUSTASK_FILE = "data/justask/{behavior}.jsonl"


def targets(data: DataStore) -> dict[str, str]:
    """RuLES v1's target string per behaviour (normster/llm_rules@f55c686:gcg_attack/targets.yaml)."""
    return {str(k): str(v) for k, v in yaml.safe_load(data.read_text(SOURCE, TARGETS_FILE)).items()}


def justask_items(data: DataStore, behavior: str, system_instructions: bool) -> list[Item]:
    rows = read_jsonl(data, SOURCE, JUSTASK_FILE.format(behavior=behavior))
    return make_items("justask", behavior, rows, {"rules_v1_system_instructions": system_instructions})


def conversation(item: Item, target_template: str) -> tuple[tuple[Mapping[str, str], ...], str]:
    """The messages the model sees up to the attacked (first) one, and the formatted target."""
    scenario = build_scenario(item)
    messages = (*opening(scenario, bool(item.inputs["system_instructions"])), case_messages(item)[0])
    return messages, target_template.format(**item.inputs["params"])


def with_suffix(item: Item, suffix: str) -> Item:
    return replace(item, inputs={**item.inputs, "suffix": suffix})


SUFFIX_ATTACK = SuffixAttack(
    behavior="RuLES v1 behaviour", case="justask case", targets=targets, cases=justask_items,
    conversation=conversation, with_suffix=with_suffix, suffix_file=gcg.suffix_file, write=gcg.write_record)
