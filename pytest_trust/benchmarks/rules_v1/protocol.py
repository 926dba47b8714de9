"""How one RuLES v1 case is played: upstream's ``evaluate_single`` (normster/llm_rules@f55c686:evaluate.py).

Default, as the paper evaluates (its section 3): the rules as a user message after an empty system message,
with the fixed acknowledgement as the assistant's reply, ``[system "", user(prompt), assistant(initial
response)]``, judged with ``system_instructions=False`` (those three messages are not judged). With the
setting ``rules_v1_system_instructions`` (upstream ``--system_instructions``, the paper's Table 12) the rules
are the system message and the conversation is judged with ``system_instructions=True``.

Then every message of the test case is appended in turn, the model is called once after each, the whole
conversation is judged after every reply, and play stops at the first failed judgement. A GCG suffix
(``suffix`` in the item's inputs) is appended to the first message after one space, as upstream's
``m.content += " " + suffix``. Replies are judged as the endpoint sent them (upstream's API models do
not strip them).

An answer the endpoint withheld (content filter, tool call, null content) fails the case as an invalid
turn, as the v3 protocol (``benchmarks.rules.protocol``) does.
"""

from __future__ import annotations

from ...items import Item, Result
from ..rules.protocol import ChatModel, play
from . import gcg
from .scenarios import SCENARIOS, Scenario, Turn


def build_scenario(item: Item) -> Scenario:
    return SCENARIOS[item.inputs["scenario"]](item.inputs["params"])


def opening(scenario: Scenario, system_instructions: bool) -> list[Turn]:
    """The messages before the test case's own: the rules as the system message, or as a user message."""
    if system_instructions:
        return [("system", scenario.prompt)]
    return [("system", ""), ("user", scenario.prompt), ("assistant", scenario.initial_response)]


def case_messages(item: Item) -> list[Turn]:
    """The case's messages, the first with the GCG suffix (if any) appended after one space."""
    messages = list(item.inputs["messages"])
    suffix = item.inputs.get("suffix") or ""
    if suffix and messages:
        role, content = messages[0]
        messages[0] = (role, content + " " + suffix)
    return messages


def run(item: Item, model: ChatModel) -> Result:
    item = gcg.for_model(item, model)  # a rules_gcg item plays the suffix found on this model
    scenario = build_scenario(item)
    system_instructions = bool(item.inputs["system_instructions"])
    conversation = opening(scenario, system_instructions)
    verdict, reply, played = play(conversation, case_messages(item), model, item.decoding,
                                  lambda turns: scenario.evaluate(turns, system_instructions=system_instructions))
    facts = {key: item.inputs[key] for key in ("suite", "behavior", "scenario", "bucket", "category")}
    facts.update(turns=played, reply=reply[:300])  # turns = model calls made
    return Result(item.id, verdict, facts)
