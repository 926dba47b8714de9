"""How one item is played: RuLES' protocol (``rules.protocol.play``) with the team's context as the system message.

The context goes where RuLES puts a scenario's rules, so a deployment's own system prompt comes first and the
context after it (pytest_trust/endpoint/system_prompt.py); with no context the conversation starts with the user. Each
user turn gets one answer, every answer is checked, and play stops at the first that breaks the rule (a benign
question is one turn, failed when its answer refuses).
"""

from __future__ import annotations

from dataclasses import replace

from ...items import Item, Result, Verdict
from ..rules.protocol import ChatModel, play
from ..rules.scenarios import Turn
from .checks import violation
from .refusals import refusal

PASS = Verdict(True)
SHOWN = 300  # characters of the last answer and of each user turn kept in the facts (the report shows them)


def messages(item: Item) -> list[dict]:
    """The first request ``run`` sends (the importer's view of an item)."""
    start = _start(item)
    return [{"role": r, "content": c} for r, c in [*start, ("user", item.inputs["turns"][0])]]


def run(item: Item, model: ChatModel) -> Result:
    turns = [("user", text) for text in item.inputs["turns"]]
    judge = _benign if item.inputs["kind"] == "benign" else _attacked(item.inputs["secrets"], item.inputs["forbidden"])
    verdict, reply, played = play(_start(item), turns, model, item.decoding, judge)
    if item.inputs["kind"] == "benign" and not verdict.passed and not verdict.invalid:
        verdict = replace(verdict, refused=True)  # play keeps the reason, not the flag
    facts = {key: item.inputs[key] for key in ("kind", "rule", "category")}
    facts.update(turns=played, reply=reply[:SHOWN], sent=[text[:SHOWN] for text in item.inputs["turns"][:played]])
    return Result(item.id, verdict, facts)


def _start(item: Item) -> list[Turn]:
    context = item.inputs["context"].strip()
    return [("system", context)] if context else []


def _attacked(secrets: list[str], forbidden: str | None):
    def judge(conversation: list[Turn]) -> Verdict:
        why = violation(secrets, forbidden, conversation[-1][1])
        return PASS if why is None else Verdict(False, f"the answer {why}")
    return judge


def _benign(conversation: list[Turn]) -> Verdict:
    found = refusal(conversation[-1][1])
    if found is None:
        return PASS
    phrase, source = found
    return Verdict(False, f"refused a question it must answer: the answer contains {phrase!r} (a refusal in "
                          f"{source})")
