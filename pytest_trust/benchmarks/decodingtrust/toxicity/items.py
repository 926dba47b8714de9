"""Toxicity items: one per prompt of each scenario, in each prompt file's line order.

The score's scenarios: the 4 prompt sets (RealToxicityPrompts toxic 1,196 and nontoxic 1,200, the GPT-3.5- and
GPT-4-generated challenging prompts 1,200 each) under templates 0 (benign) and 1 (adversarial), each prompt
sampled ``dt_samples`` times (25 by default) at temperature 1: 9,592 items. The study's scenarios: the 1,196
toxic prompts under each of the 33 templates, one answer at temperature 0: 39,468 items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_jsonl
from ....errors import DataError
from ....items import Item
from ..common import SOURCE, unavailable_item
from .prompts import (
    MAIN_DECODING,
    PROMPT_SETS,
    STUDY_DECODING,
    STUDY_SET,
    SYSTEM_OF_TEMPLATE,
    PromptSet,
    main_scenario,
    study_scenario,
)
from .templates import TEMPLATES

NAME = "toxicity"


def load_items(data: DataStore, settings: Mapping[str, Any] | None = None) -> list[Item]:
    samples = (settings or {}).get("dt_samples") or MAIN_DECODING["n"]
    prompts = {prompt_set.name: load_prompts(data, prompt_set) for prompt_set in PROMPT_SETS}
    main_decoding, study_decoding = {**MAIN_DECODING, "n": samples}, dict(STUDY_DECODING)  # shared, read only
    items: list[Item] = []
    for prompt_set in PROMPT_SETS:
        for template in SYSTEM_OF_TEMPLATE:
            scenario = main_scenario(prompt_set, template)
            texts = prompts[prompt_set.name]
            if texts is None:
                items.append(unavailable_item(NAME, scenario, [prompt_set.path]))
                continue
            items += [make_item(prompt_set, template, i, text, samples, decoding=main_decoding)
                      for i, text in enumerate(texts)]
    for template in range(len(TEMPLATES)):
        texts = prompts[STUDY_SET.name]
        if texts is None:
            items.append(unavailable_item(NAME, study_scenario(template), [STUDY_SET.path]))
            continue
        items += [make_item(STUDY_SET, template, i, text, study=True, decoding=study_decoding)
                  for i, text in enumerate(texts)]
    return items


def load_prompts(data: DataStore, prompt_set: PromptSet) -> list[str] | None:
    """The prompt texts of a set (``json["prompt"]["text"]`` per line); None when its file is absent upstream."""
    if not is_pinned(SOURCE, prompt_set.path) or absent_reason(SOURCE, prompt_set.path) is not None:
        return None
    return prompt_texts(read_jsonl(data, SOURCE, prompt_set.path), prompt_set)


def prompt_texts(rows: Sequence[Any], prompt_set: PromptSet) -> list[str]:
    texts = []
    for number, row in enumerate(rows, start=1):
        text = row.get("prompt", {}).get("text") if isinstance(row, dict) else None
        if not isinstance(text, str):
            raise DataError(f"{prompt_set.path}, line {number}: no prompt text (json['prompt']['text']): "
                            "not the pinned upstream file")
        texts.append(text)
    if len(texts) != prompt_set.size:
        raise DataError(f"{prompt_set.path}: {len(texts)} prompts where DecodingTrust's file holds "
                        f"{prompt_set.size}: not the pinned upstream file")
    return texts


def make_item(prompt_set: PromptSet, template: int, index: int, prompt: str, samples: int = MAIN_DECODING["n"],
              study: bool = False, decoding: Mapping[str, Any] | None = None) -> Item:
    """``decoding``: the mapping its scenario's items share (else one of its own)."""
    scenario = study_scenario(template) if study else main_scenario(prompt_set, template)
    if decoding is None:
        decoding = dict(STUDY_DECODING) if study else {**MAIN_DECODING, "n": samples}
    inputs = {"set": prompt_set.name, "template": template, "index": index, "prompt": prompt, "study": study}
    return Item(id=f"{scenario}/{index}", benchmark=NAME, cassette=scenario, inputs=inputs, decoding=decoding,
                tags=item_tags(prompt_set.name, template, study))


@cache
def item_tags(prompt_set: str, template: int, study: bool) -> tuple[str, ...]:
    """One tuple for every item of a scenario (a pickled chunk's items share it)."""
    return ("study", f"template-{template}") if study else (prompt_set, SYSTEM_OF_TEMPLATE[template])
