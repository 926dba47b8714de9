"""Privacy items, built as the paper's runs built their requests (AI-secure/DecodingTrust@c9b63ad:
privacy/{email_extraction,pii,understanding}.py with data/privacy/utils.py; 161ae83 builds the same).

Decoding is the recordings': temperature 1, one answer per request, max_tokens 150 (the first scripts'
default; the recorded answers run to 150 tokens, while 161ae83's configs say 16 / 32 / 64).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from ....data import DataStore, absent_reason, is_pinned, read_json
from ....items import Item
from ..common import SOURCE, Message, unavailable_item
from . import prompts
from .scenarios import (
    EMAIL2NAME,
    ENRON_BATCH,
    FIVE_SHOT,
    MODES,
    PII_CASES,
    PII_SCENARIOS,
    QUESTION,
    TOPICS,
    UNDERSTANDING_SAMPLES,
    EnronMode,
    PiiScenario,
    understanding_scenario,
)
from .settings import SCORE_SETTING, UNDERSTANDING_SETTING, choice

NAME = "privacy"
DECODING: Mapping[str, Any] = {"temperature": 1, "max_tokens": 150, "n": 1}


def load_items(data: DataStore, settings: Mapping[str, Any] | None = None) -> list[Item]:
    score_rule = choice(settings, SCORE_SETTING)
    phrases = choice(settings, UNDERSTANDING_SETTING)
    items = enron_items(data, score_rule) + pii_items(data, score_rule)
    for topic in TOPICS:
        items.extend(understanding_items(topic, phrases, score_rule))
    return items


def _missing(paths: Sequence[str]) -> list[str]:
    return [path for path in paths if absent_reason(SOURCE, path) is not None or not is_pinned(SOURCE, path)]


# --- Enron e-mail extraction --------------------------------------------------------------------------------

def enron_items(data: DataStore, score_rule: str) -> list[Item]:
    files: dict[str, Any] = {}
    items: list[Item] = []
    for mode in MODES:
        missing = _missing([mode.input_file, EMAIL2NAME])
        if missing:
            items.append(unavailable_item(NAME, mode.cassette, missing))
            continue
        for path in (mode.input_file, EMAIL2NAME):
            if path not in files:
                files[path] = read_json(data, SOURCE, path)
        items.extend(mode_items(mode, files[mode.input_file], files[EMAIL2NAME], score_rule))
    return items


def enron_prompts(mode: EnronMode, source: Mapping[str, Any], email2name: Mapping[str, str]) -> list[tuple[str, str]]:
    """(prompt, e-mail address) of every target, in the input file's order."""
    query = prompts.ENRON_QUERY[mode.style]
    out = []
    for email, demos in source.items():
        name = email2name[email]
        if mode.name.startswith("knownzero"):
            prompt = prompts.KNOWN_DOMAIN.format(email.split("@")[1]) + query.format(name)
        elif mode.name.startswith("zero"):
            prompt = query.format(name)
        else:
            demo = prompts.ENRON_DEMO[mode.style]
            prompt = "".join(demo.format(demo_name, demo_email) for demo_email, demo_name in demos) + query.format(name)
        out.append((prompt, email))
    return out


def mode_items(mode: EnronMode, source: Mapping[str, Any], email2name: Mapping[str, str],
               score_rule: str) -> list[Item]:
    targets = enron_prompts(mode, source, email2name)
    sent = len(targets) // ENRON_BATCH * ENRON_BATCH  # upstream's whole batches only (3290 of 3294)
    # one mapping and one tags tuple for the call's items (read, never changed): a pickled
    # chunk's items then share them
    decoding, tags = dict(DECODING), ("enron",)
    return [
        Item(id=f"{mode.cassette}/{index}", benchmark=NAME, cassette=mode.cassette,
             inputs={"part": "enron", "mode": mode.name, "index": index, "prompt": prompt, "email": email,
                     "name": email2name[email], "score_rule": score_rule},
             decoding=decoding, expected=email, tags=tags)
        for index, (prompt, email) in enumerate(targets[:sent])
    ]


# --- PII in conversation ------------------------------------------------------------------------------------

def pii_value(rng: random.Random, pii: str, email: str) -> str:
    """One synthetic value of a PII type, drawn as upstream's generators draw it."""
    def draw(size: int, chars: str) -> str:
        return "".join(rng.choice(chars) for _ in range(size))

    if pii == "phone number" or pii == "canary number":
        return draw(10, "0123456789")
    if pii in prompts.SSN_SPELLINGS:
        return draw(9, "0123456789")
    if pii == "email address":
        return email
    if pii == "address":
        return prompts.ADDRESSES[rng.choice(range(len(prompts.ADDRESSES)))]
    if pii in ("password", "ssh private key", "secret key"):
        return draw(12, prompts.ALNUM)
    if pii == "credit card number":
        return draw(16, "0123456789")
    if pii == "passport number":
        return draw(10, prompts.PASSPORT_CHARS)
    if pii == "canary code":
        return draw(10, prompts.CANARY_CODE_CHARS)
    raise ValueError(f"no generator for PII type {pii!r}")


def pii_cases(scenario: PiiScenario, five_shot: Mapping[str, Any]) -> list[tuple[list[Message], str]]:
    """The conversations (without the system message) and the value asked for, as one paper-era run built
    them: each (type, shots, kind) ran in its own process, so the values come from ``random`` seeded 0."""
    rng = random.Random(0)
    k = scenario.shots
    cases: list[tuple[list[Message], str]] = []
    for people in five_shot.values():
        if len(cases) == PII_CASES:
            break
        names = [name for _, name in people]
        values = [pii_value(rng, scenario.pii, email) for email, _ in people]
        if names[k] in names[:k]:
            continue  # upstream skips a target who is also one of the demonstrations
        context = "".join(prompts.PII_CONTEXT.format(name, scenario.pii, value) for name, value in zip(names, values))
        messages = [{"role": "user", "content": context}]
        for name, value in zip(names[:k], values[:k]):
            answer = prompts.PII_PROTECT_ANSWER.format(scenario.pii) if scenario.kind == "protect" else value
            messages += [{"role": "user", "content": prompts.PII_QUESTION.format(name, scenario.pii)},
                         {"role": "assistant", "content": answer}]
        messages.append({"role": "user", "content": prompts.PII_QUESTION.format(names[k], scenario.pii)})
        cases.append((messages, values[k]))
    return cases


def pii_items(data: DataStore, score_rule: str) -> list[Item]:
    missing = _missing([FIVE_SHOT])
    if missing:
        return [unavailable_item(NAME, scenario.cassette, missing) for scenario in PII_SCENARIOS]
    five_shot = read_json(data, SOURCE, FIVE_SHOT)
    return [item for scenario in PII_SCENARIOS for item in scenario_items(scenario, five_shot, score_rule)]


def scenario_items(scenario: PiiScenario, five_shot: Mapping[str, Any], score_rule: str) -> list[Item]:
    cases = pii_cases(scenario, five_shot)
    # one mapping and one tags tuple for the call's items (read, never changed): a pickled
    # chunk's items then share them
    decoding, tags = dict(DECODING), ("pii",)
    return [
        Item(id=f"{scenario.cassette}/{index}", benchmark=NAME, cassette=scenario.cassette,
             inputs={"part": "pii", "pii": scenario.pii, "mode": scenario.mode, "index": index,
                     "conversation": conversation,
                     "score_rule": score_rule},
             decoding=decoding, expected=value, tags=tags)
        for index, (conversation, value) in enumerate(cases)
    ]


# --- privacy understanding ----------------------------------------------------------------------------------

def understanding_prompt(topic: str, template: str) -> str:
    a, b, c, d = prompts.FRIENDS
    secret = template.format(a, b, c, d, a, b, c, prompts.SECRETS[topic])
    return prompts.UNDERSTANDING_USER.format(secret, prompts.QUESTION_1.format(d))


def understanding_items(topic: str, phrases: str, score_rule: str) -> list[Item]:
    """One item per phrasing; it asks its prompt ``UNDERSTANDING_SAMPLES`` times (temperature 1)."""
    scenario = understanding_scenario(topic)
    return [
        Item(id=f"{scenario}/{index}", benchmark=NAME, cassette=scenario,
             inputs={"part": "understanding", "topic": topic, "question": QUESTION, "index": index,
                     "phrasing": word, "prompt": understanding_prompt(topic, template), "phrases": phrases,
                     "score_rule": score_rule},
             decoding={**DECODING, "n": UNDERSTANDING_SAMPLES}, tags=("understanding",))
        for index, (template, word) in enumerate(prompts.PHRASINGS)
    ]
