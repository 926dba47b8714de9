"""Items of every machine-ethics scenario, built as ``load_data`` of
AI-secure/DecodingTrust@161ae83:src/dt/perspectives/machine_ethics/test_machine_ethics.py builds its
dataset: test items in file order; ETHICS keeps the short texts only; jailbreak and evasive runs keep
immoral items only and stop at 200; few-shot demonstrations are drawn per item, in order, by
``random.sample`` from a generator seeded with 100 at import (one run per process, so a fresh one here).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_csv, read_json
from ....items import Item
from ..common import CLASSIFICATION_DECODING, SOURCE, unavailable_item
from .prompts import (
    COMMONSENSE_DEMO_SUFFIX,
    COMMONSENSE_INPUT_SUFFIX,
    EVASIVE_SENTENCES,
    JAILBREAK_PROMPTS,
    JIMINY_INPUT_SUFFIX,
    OPTIONS,
    TASK_MESSAGES,
)
from .scenarios import FILES, SCENARIOS, Scenario

NAME = "machine_ethics"
DEMO_SEED = 100  # test_machine_ethics.py: random.seed(100) at import

Example = tuple[str, Any]  # (text, raw upstream label)


def load_items(data: DataStore, settings: dict | None = None) -> list[Item]:
    items: list[Item] = []
    loaded: dict[str, list[Example]] = {}
    for scenario in SCENARIOS:
        test_file, train_file = FILES[scenario.dataset]
        needed = [test_file] + ([train_file] if scenario.few_shot_num else [])
        missing = [path for path in needed if not available(path)]
        if missing:
            items.append(unavailable_item(NAME, scenario.name, missing))
            continue
        for path in needed:
            if path not in loaded:
                loaded[path] = read_examples(data, scenario.dataset, path)
        train = loaded[train_file] if scenario.few_shot_num else []
        items += build_items(scenario, loaded[test_file], train)
    return items


def available(path: str) -> bool:
    return absent_reason(SOURCE, path) is None and is_pinned(SOURCE, path)


def read_examples(data: DataStore, dataset: str, path: str) -> list[Example]:
    """(text, raw label) pairs: the short ETHICS rows (label 0/1), or Jiminy's [text, label, game] rows."""
    if dataset == "commonsense":
        header, *rows = read_csv(data, SOURCE, path)
        assert header[:3] == ["label", "input", "is_short"], header
        return [(text, int(label)) for label, text, is_short, *_ in rows if is_short == "True"]
    return [(row[0], row[1]) for row in read_json(data, SOURCE, path)]


def label_of(dataset: str, raw: Any) -> str:
    option = OPTIONS[dataset]
    if dataset == "commonsense":
        return option[0] if raw == 0 else option[1]
    if raw is None:
        return "neutral"
    return "bad" if raw[0] + raw[1] > 0 else "good"


def immoral(dataset: str) -> str:
    return "wrong" if dataset == "commonsense" else "bad"


def task_message(scenario: Scenario) -> str:
    task = TASK_MESSAGES[scenario.dataset]
    return task + JAILBREAK_PROMPTS[scenario.dataset][scenario.jailbreak] if scenario.jailbreak else task


def build_items(scenario: Scenario, tests: Sequence[Example], train: Sequence[Example]) -> list[Item]:
    dataset = scenario.dataset
    rng = random.Random(DEMO_SEED)
    pool = list(range(len(train)))
    suffix = COMMONSENSE_INPUT_SUFFIX if dataset == "commonsense" else JIMINY_INPUT_SUFFIX
    demo_suffix = COMMONSENSE_DEMO_SUFFIX if dataset == "commonsense" else JIMINY_INPUT_SUFFIX
    task = task_message(scenario)
    items: list[Item] = []
    # one mapping and one tags tuple for the call's items (read, never changed): a pickled
    # chunk's items then share them
    decoding, tags = dict(CLASSIFICATION_DECODING), (dataset, scenario.kind)
    for row, (text, raw) in enumerate(tests):
        label = label_of(dataset, raw)
        if (scenario.jailbreak or scenario.evasive) and label != immoral(dataset):
            continue
        if scenario.evasive:
            text = text + EVASIVE_SENTENCES[dataset][scenario.evasive]
        examples = [[train[i][0] + demo_suffix, label_of(dataset, train[i][1])]
                    for i in (rng.sample(pool, scenario.few_shot_num) if scenario.few_shot_num else ())]
        inputs = {"dataset": dataset, "setting": scenario.kind, "variant": scenario.variant, "row": row,
                  "task": task, "input": text + suffix, "examples": examples, "option": list(OPTIONS[dataset])}
        items.append(Item(id=f"{scenario.name}/{len(items)}", benchmark=NAME, cassette=scenario.name, inputs=inputs,
                          decoding=decoding, expected=label, tags=tags))
        if scenario.test_num and len(items) == scenario.test_num:
            break
    return items
