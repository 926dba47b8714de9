"""Toxicity's prompt sets, system prompts, requests and decoding, as DecodingTrust's configs and code have them.

Sources: AI-secure/DecodingTrust@161ae83 ``src/dt/configs/toxicity/*.yaml`` (the 8 configs of the score:
max_tokens 150, n 25, t 1, template 0 or 1), ``src/dt/perspectives/toxicity/message_construction.py``
(``MessageConstructor.get_message``, unchanged since the first commit) and ``text_generation_hydra.py``
(``load_prompts``: a prompt is ``json["prompt"]["text"]`` of each line). The 33-template study (temperature 0,
one sample) has no config at HEAD; its recordings (``data/toxicity/generations/system_prompts``) show its
requests: the RealToxicityPrompts toxic prompts under each template, max_tokens 150.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..common import Message
from .templates import TEMPLATES

GENERATIONS = "data/toxicity/generations"


@dataclass(frozen=True)
class PromptSet:
    name: str  # DecodingTrust's config key (perspective_api_evaluate.aggregate) and our scenario prefix
    key: str  # the set in metric keys
    path: str  # the prompt file under data/
    size: int  # its lines
    recording: str  # DecodingTrust's n=25 recording of a model ({model}: gpt4 / gpt3) under template {t}


_CHALLENGING = "toxic.jsonl.{by}.n=25.out1.split.annotated.jsonl.filtered.jsonl"
PROMPT_SETS = (
    PromptSet("toxic", "toxic", "data/toxicity/user_prompts/toxic.jsonl", 1196,
              f"{GENERATIONS}/realtoxicityprompts/toxic.jsonl.{{model}}.n=25.out{{t}}"),
    PromptSet("nontoxic", "nontoxic", "data/toxicity/user_prompts/nontoxic.jsonl", 1200,
              f"{GENERATIONS}/realtoxicityprompts/nontoxic.jsonl.{{model}}.n=25.out{{t}}"),
    PromptSet("toxic-gpt3.5", "toxic_gpt35", "data/toxicity/user_prompts/" + _CHALLENGING.format(by="gpt3"), 1200,
              f"{GENERATIONS}/user_prompts/{_CHALLENGING.format(by='gpt3')}.{{model}}.n=25.out{{t}}"),
    PromptSet("toxic-gpt4", "toxic_gpt4", "data/toxicity/user_prompts/" + _CHALLENGING.format(by="gpt4"), 1200,
              f"{GENERATIONS}/user_prompts/{_CHALLENGING.format(by='gpt4')}.{{model}}.n=25.out{{t}}"),
)
SETS_BY_NAME = {prompt_set.name: prompt_set for prompt_set in PROMPT_SETS}
STUDY_SET = PROMPT_SETS[0]  # the template study asks the RealToxicityPrompts toxic prompts
STUDY_RECORDING = f"{GENERATIONS}/system_prompts/toxic.jsonl.{{model}}.t=0.out{{t}}"

# The score's two system prompts: template 0 (benign) and 1 (adversarial).
SYSTEM_PROMPTS = {"benign": 0, "adversarial": 1}
SYSTEM_OF_TEMPLATE = {template: name for name, template in SYSTEM_PROMPTS.items()}

# The configs' decoding (n is --trust-dt-samples, 25 by default) and the study's; no top_p, seed or stop.
MAIN_DECODING = {"temperature": 1, "max_tokens": 150, "n": 25}
STUDY_DECODING = {"temperature": 0, "max_tokens": 150, "n": 1}


def messages(template: int, prompt: str) -> list[Message]:
    """``MessageConstructor.get_message``: the template's system prompt, then its task description, a newline
    and the prompt (template 0's task description ends in " \\n", so two newlines precede the prompt)."""
    chosen = TEMPLATES[template]
    return [{"role": "system", "content": chosen.sys_prompt},
            {"role": "user", "content": chosen.task_desc + "\n" + prompt}]


def main_scenario(prompt_set: PromptSet, template: int) -> str:
    """One scenario per DecodingTrust generation file: ``<config>-template-<t>`` (e.g. toxic-gpt4-template-1)."""
    return f"{prompt_set.name}-template-{template}"


def study_scenario(template: int) -> str:
    return f"system-prompts-{template:02d}"
