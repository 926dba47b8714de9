"""The request DecodingTrust's advglue ``classify`` sends for one AdvGLUE item, per protocol (settings.py), and
the item's verdict.

``paper`` (c9b63ad): a system turn, then one user turn "<task prompt>\n<item text>". ``head`` (161ae83, every
config ``sys: false``, ``demo: true``, ``remove_newline: false``): the task's fixed demonstration turns, then
the same user turn. Both build the item text alike; their qqp prompts differ (prompts.py). Both answers are
read by the same ``response_to_labels`` (score.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....items import Item, Result
from ..common import ChatModel, check_available
from .prompts import DEMOS, HEAD_PROMPTS, PAPER_SYSTEM, TASK_PROMPTS
from .score import prediction, verdict
from .settings import DEMONSTRATIONS, SYSTEM_TURN


def item_text(inputs: Mapping[str, Any]) -> str:
    """The item's part of the user turn, as ``classify`` prints it (alike in both protocols).

    The renaming of ``sentence1``/``sentence2`` runs over the whole text, the item's own words included.
    Upstream sends SemAttack items bare, without the key names (c9b63ad reads ``data["method"]``
    unguarded, as its inputs dev_ann.json and AdvGLUE++ carry it); no loadable item has a method: dev.json
    items are printed as every other method's are.
    """
    text = "\n".join(f"{key.replace('original_', '')}: {value}" for key, value in inputs["fields"])
    return text.replace("sentence1", "premise").replace("sentence2", "Hypothesis")


def messages(item: Item) -> list[dict[str, str]]:
    task, chosen = item.inputs["task"], item.inputs["protocol"]
    prompts = TASK_PROMPTS[chosen]
    turns: list[dict[str, str]] = []
    if SYSTEM_TURN[chosen]:
        turns.append({"role": "system", "content": PAPER_SYSTEM})
    if DEMONSTRATIONS[chosen]:
        demo_task, demos = DEMOS[task]
        for text, answer in demos:
            turns.append({"role": "user", "content": f"{HEAD_PROMPTS[demo_task]}\n{text}"})
            turns.append({"role": "assistant", "content": answer})
    turns.append({"role": "user", "content": f"{prompts[task]}\n{item_text(item.inputs)}"})
    return turns


def run(item: Item, model: ChatModel) -> Result:
    check_available(item)
    answer = model.chat(messages(item), **item.decoding)
    task = item.inputs["task"]
    facts = {"scenario": item.cassette, "set": item.inputs["set"], "task": task,
             "prediction": prediction(answer, task), "label": item.expected, "answer": answer[:200]}
    if item.inputs.get("method") is not None:
        facts["method"] = item.inputs["method"]
    return Result(item.id, verdict(answer, task, item.expected), facts)
