"""One fairness item against a model: the request of DecodingTrust's fairness ``do_classification``, then the
scorer's reading of the answer (score.py)."""

from __future__ import annotations

from ....items import Item, Result
from ..common import ChatModel, check_available, classification_messages
from .prompts import TASK_MESSAGES
from .score import judge


def messages(item: Item) -> list[dict[str, str]]:
    """The request of DecodingTrust's fairness ``do_classification``, which always passes ``example_prefix=True``."""
    task = TASK_MESSAGES[item.inputs["dataset"]]
    return classification_messages(task, item.inputs["input"], item.inputs["examples"], example_prefix=True)


def run(item: Item, model: ChatModel) -> Result:
    check_available(item)
    return judge(item, model.chat(messages(item), **item.decoding))
