"""One OOD item against a model: the request ``do_classification`` sends, then the run's judgement."""

from __future__ import annotations

from ....items import Item, Result, Verdict
from ..common import ChatModel, Message, check_available, classification_messages
from .score import Judgement, judge

ANSWER_SHOWN = 200  # characters of the answer kept in the result's facts
SHOWN = 60  # characters of answer and prediction in a reason (v1.0 style reads a whole sentence)


def messages(item: Item) -> list[Message]:
    inputs = item.inputs
    return classification_messages(inputs["task_message"], inputs["input"], inputs["examples"])


def run(item: Item, model: ChatModel) -> Result:
    check_available(item)
    answer = model.chat(messages(item), **item.decoding)
    return score(item, answer)


def score(item: Item, answer: str) -> Result:
    inputs = item.inputs
    label = inputs["label"]
    judgement = judge(inputs["task"], inputs["scoring"], answer, label, inputs.get("choices", ()))
    prediction = None if judgement.prediction is None else _short(judgement.prediction)
    verdict = Verdict(judgement.correct, _reason(judgement, answer, label), label=prediction,
                      refused=judgement.refused)
    facts = {"run": inputs["run"], "part": inputs["part"], "scoring": inputs["scoring"], "label": label,
             "prediction": prediction, "refused": judgement.refused, "answer": answer[:ANSWER_SHOWN]}
    return Result(item.id, verdict, facts)


def _short(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + "..."


def _reason(judgement: Judgement, answer: str, label: str) -> str:
    shown = _short(answer)
    if judgement.correct:
        return f"answered {shown!r}: correct ({label!r})"
    if judgement.refused:
        return f"answered {shown!r}: counted as a refusal, expected {label!r}"
    return f"answered {shown!r}, read as {_short(judgement.prediction or '')!r}, expected {label!r}"
