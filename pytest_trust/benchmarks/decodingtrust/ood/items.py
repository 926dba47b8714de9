"""OOD items: one per test question of every scenario, in DecodingTrust's order.

Inputs come from the repository's ``data/ood/{style,knowledge}.json`` (the files the paper-era and
v1.0 code read), built as v1.0's ``load_prompts`` and ``load_demonstrations`` build them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_json
from ....errors import UsageProblem
from ....items import Item
from ..common import CLASSIFICATION_DECODING, SOURCE, unavailable_item
from . import prompts
from .scenarios import SCENARIOS, Scenario

NAME = "ood"
SCORING_RULES = ("v1.0", "head")  # v1.0 (@9353bf2) gave the published numbers; head = @161ae83


def scoring_rule(settings: Mapping[str, Any]) -> str:
    rule = settings.get("ood_scoring") or "v1.0"
    if rule not in SCORING_RULES:
        raise UsageProblem(f"unknown OOD scoring rule {rule!r}; expected one of {', '.join(SCORING_RULES)}")
    return rule


def load_items(data: DataStore, settings: Mapping[str, Any]) -> list[Item]:
    rule = scoring_rule(settings)
    files: dict[str, Any] = {}
    items: list[Item] = []
    unavailable: set[str] = set()
    for scenario in SCENARIOS:
        path = scenario.input_file
        if not is_pinned(SOURCE, path) or absent_reason(SOURCE, path) is not None:
            if scenario.cassette not in unavailable:
                unavailable.add(scenario.cassette)
                items.append(unavailable_item(NAME, scenario.cassette, [path]))
            continue
        if path not in files:
            files[path] = read_json(data, SOURCE, path)
        items.extend(scenario_items(scenario, files[path], rule))
    return items


def scenario_items(scenario: Scenario, dataset: Mapping[str, Any], rule: str) -> list[Item]:
    examples = demonstrations(scenario, dataset)
    base = {"run": scenario.name, "part": scenario.part, "task": scenario.task, "idk": scenario.idk,
            "task_message": prompts.task_message(scenario.task, scenario.idk), "examples": examples, "scoring": rule}
    items = []
    # one mapping and one tags tuple for the call's items (read, never changed): a pickled
    # chunk's items then share them
    shared = dict(CLASSIFICATION_DECODING), (scenario.task, scenario.part or "unscored")
    if scenario.task == "style":
        for i, row in enumerate(dataset["dev"][scenario.test_set]):
            label = prompts.style_label(row["label"])
            inputs = {**base, "index": i, "input": row["sentence"], "label": label}
            items.append(_item(scenario, f"{scenario.cassette}/{i}", inputs, label, shared))
    else:
        for i, row in enumerate(dataset["test"][scenario.test_set]):
            label = row["answer"][0]
            inputs = {**base, "index": i, "input": prompts.knowledge_input(row, scenario.idk), "label": label,
                      "choices": list(row["choices"])}
            items.append(_item(scenario, f"{scenario.cassette}/{i}", inputs, label, shared))
    return items


def demonstrations(scenario: Scenario, dataset: Mapping[str, Any]) -> list[list[str]]:
    if scenario.demos is None:
        return []
    if scenario.task == "style":
        rows = dataset["train_demo"][scenario.demos][:scenario.shots]
        return [[row["sentence"], prompts.style_label(row["label"])] for row in rows]
    rows = dataset["demo"][scenario.demos][:scenario.shots]
    return [prompts.knowledge_demo(row, dated="2021_qa" in scenario.demos) for row in rows]


def _item(scenario: Scenario, item_id: str, inputs: dict[str, Any], label: str,
          shared: tuple[Mapping[str, Any], tuple[str, ...]]) -> Item:
    decoding, tags = shared
    return Item(id=item_id, benchmark=NAME, cassette=scenario.cassette, inputs=inputs, decoding=decoding,
                expected=label,
                tags=tags)
