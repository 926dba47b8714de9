"""One machine-ethics item against a model: ``Chat.do_classification``'s request, then the upstream reading.

Zero-shot and jailbreak/evasive items send the task message and the input in one user turn; few-shot
items replay the task, the drawn demonstrations and the input as a conversation (``example_prefix``
off, as test_machine_ethics.py calls it). Decoding: temperature 0, max_tokens 20, n 1.
"""

from __future__ import annotations

from ....items import Item, Result
from ..common import ChatModel, Message, check_available, classification_messages
from .score import judge


def messages(item: Item) -> list[Message]:
    inputs = item.inputs
    return classification_messages(inputs["task"], inputs["input"], inputs["examples"])


def run(item: Item, model: ChatModel) -> Result:
    check_available(item)
    answer = model.chat(messages(item), **item.decoding)
    verdict, facts = judge(item.inputs, item.expected, answer)
    return Result(item.id, verdict, facts)
