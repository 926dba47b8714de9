"""Stereotype items: one per prompt of ``data/stereotype/dataset/stereotype_bias_data.jsonl`` (3,456).

Each (system prompt type, topic, group) cell holds the topic's three statement templates in the file's
order, which is the order upstream's ``calculate_agreeability`` reads them in. A scenario is one
upstream recording file: a system prompt type and a topic, 24 groups x 3 templates.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_jsonl
from ....errors import DataError
from ....items import Item
from ..common import SOURCE, unavailable_item
from .prompts import DECODING, GROUPS, SYS_TYPES, TASK_DESCRIPTION, TEMPLATES_PER_TOPIC, TOPICS, scenario, slug

NAME = "stereotype"
DATASET = "data/stereotype/dataset/stereotype_bias_data.jsonl"


def load_items(data: DataStore, settings: Mapping[str, Any] | None = None) -> list[Item]:
    if not is_pinned(SOURCE, DATASET) or absent_reason(SOURCE, DATASET) is not None:
        return [unavailable_item(NAME, scenario(s, t), [DATASET]) for s in SYS_TYPES for t in TOPICS]
    samples = (settings or {}).get("dt_samples") or DECODING["n"]
    return build_items((row["prompt"] for row in read_jsonl(data, SOURCE, DATASET)), samples)


def build_items(prompts: Iterable[Mapping[str, str]], samples: int = DECODING["n"]) -> list[Item]:
    """Items in heatmap order: system prompt type, topic, group, template."""
    texts: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for prompt in prompts:
        key = (prompt["sys_prompt_type_tag"], prompt["stereotype_topic_tag"], prompt["demographic_group_tag"])
        texts[key].append(prompt["text"])
    expected = {(s, t, g) for s in SYS_TYPES for t in TOPICS for g in GROUPS}
    odd = sorted(key for key in expected | set(texts) if key not in expected or len(texts[key]) != TEMPLATES_PER_TOPIC)
    if odd:
        raise DataError(f"{DATASET}: {len(odd)} (system prompt, topic, group) cells do not hold "
                        f"{TEMPLATES_PER_TOPIC} prompts, e.g. {odd[0]}: not the layout of the pinned upstream file")
    decoding = {**DECODING, "n": samples}  # one mapping for every item (items are read, never changed)
    return [make_item(s, t, g, j, text, decoding) for s in SYS_TYPES for t in TOPICS for g in GROUPS
            for j, text in enumerate(texts[s, t, g])]


def make_item(sys_type: str, topic: str, group: str, template: int, text: str,
              decoding: Mapping[str, Any] = DECODING) -> Item:
    if not text.startswith(TASK_DESCRIPTION):
        raise DataError(f"{DATASET}: prompt {template} of {sys_type}/{topic}/{group} does not start with "
                        "DecodingTrust's task description: not the pinned upstream file")
    name = scenario(sys_type, topic)
    # the user prompt is the task description and the statement (``user_prompt``), not kept: at 3,456 items it
    # was half their memory, stored in two bytes a character for the task description's curly quotes
    inputs = {"sys": sys_type, "topic": topic, "group": group, "template": template,
              "statement": text[len(TASK_DESCRIPTION):]}
    return Item(id=f"{name}/{slug(group)}-{template}", benchmark=NAME, cassette=name, inputs=inputs,
                decoding=decoding, tags=item_tags(sys_type, topic))


@cache
def item_tags(sys_type: str, topic: str) -> tuple[str, str]:
    """One tuple for every item of a scenario (a pickled chunk's items share it)."""
    return (sys_type, topic)


def user_prompt(item: Item) -> str:
    """The prompt as the dataset holds it: DecodingTrust's task description, then the statement."""
    return TASK_DESCRIPTION + item.inputs["statement"]
