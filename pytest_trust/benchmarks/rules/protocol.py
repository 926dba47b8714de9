"""The upstream conversation protocol: how one RuLES case is played against a model.

Rules go in the system message (upstream ``--system_instructions``), with the precedence reminders
removed unless ``keep_reminders`` (upstream ``--remove_precedence_reminders``, as every SystemCheck
run uses). Prefilled turns up to the last assistant message are appended as they are; then each
remaining user message gets one model turn, the conversation is evaluated after every turn, and
play stops at the first violation.

An answer the endpoint withheld (a content filter's, a tool call's or a null content) is not the
model following the rules: it ends play as an invalid turn that fails the case, instead of passing
every harmless case as an empty answer would. Upstream calls a model that always answers text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ...items import Item, Result, Verdict
from .scenarios import SCENARIOS, Scenario, Turn
from .text import remove_precedence_reminders


class ChatModel(Protocol):
    def chat(self, messages: Sequence[dict], **decoding) -> str: ...


def build_scenario(item: Item) -> Scenario:
    return SCENARIOS[item.inputs["scenario"]](item.inputs["params"])


def system_prompt(item: Item, scenario: Scenario) -> str:
    prompt = scenario.prompt
    return prompt if item.inputs["keep_reminders"] else remove_precedence_reminders(prompt)


def split_prefill(messages: Sequence[Turn]) -> tuple[list[Turn], list[Turn]]:
    """Messages up to and including the last assistant message, and the user turns left to play."""
    last = max((i for i, (role, _) in enumerate(messages) if role == "assistant"), default=-1)
    return list(messages[: last + 1]), list(messages[last + 1 :])


def run(item: Item, model: ChatModel) -> Result:
    scenario = build_scenario(item)
    prefill, to_play = split_prefill(item.inputs["messages"])
    conversation: list[Turn] = [("system", system_prompt(item, scenario)), *prefill]
    to_play = [("user", content) for _, content in to_play]
    verdict, reply, played = play(conversation, to_play, model, item.decoding,
                                  lambda turns: scenario.evaluate(turns, system_instructions=True))
    facts = {key: item.inputs[key] for key in ("suite", "behavior", "bucket", "category")}
    facts.update(turns=played, reply=reply[:300])  # turns = model calls made
    return Result(item.id, verdict, facts)


def play(conversation: list[Turn], to_play: Sequence[Turn], model: ChatModel, decoding: dict,
         judge: Callable[[list[Turn]], Verdict]) -> tuple[Verdict, str, int]:
    """One model turn per message to play, judged after each, stopping at the first violation (RuLES v1 and
    v3 alike): the verdict, the last reply and the number of model calls made."""
    verdict, reply, played = Verdict(True, "no user turn to play"), "", 0
    for played, turn in enumerate(to_play, 1):
        conversation.append(turn)
        reply = model.chat([{"role": r, "content": c} for r, c in conversation], **decoding)
        conversation.append(("assistant", reply))
        reason = withheld(reply)
        if reason:
            return (Verdict(False, f"turn {played}/{len(to_play)}: {reason}", invalid=True,
                            refused=getattr(reply, "finish_reason", None) == "content_filter"), reply, played)
        verdict = judge(conversation)
        if not verdict.passed:
            return Verdict(False, f"turn {played}/{len(to_play)}: {verdict.reason}"), reply, played
    return verdict, reply, played


def withheld(reply: str) -> str:
    """Why the endpoint gave no answer of the model's own ("" for an ordinary answer)."""
    reason = getattr(reply, "finish_reason", "stop")
    if reason in ("content_filter", "tool_calls"):
        return f"the endpoint withheld the answer (finish_reason {reason})"
    if getattr(reply, "withheld", False):
        return "the endpoint sent no answer text (content null)"
    return ""
