"""A team's rules as Items: every attack of the catalogue for each rule, and each benign question.

Ids are ``<rule>/<category>/<n>`` (n counts from 1 inside the category) and ``benign/<n>``; a rule's items
record in the cassette file ``<rule>-<digest>``, the benign questions in ``benign-<digest>``, the digests
covering the context and the rule's entry (the questions): an edit records beside the old answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import UsageProblem
from ...items import Item
from ..rules.items import DECODING
from ..spec import Names
from .catalogue import by_category, render
from .rules_file import RulesFile, read

NAME = "custom_rules"
SETTING = "rules"  # the setting holding the rules file's path (None: no file at the default place)
DEFAULT_FILE = "trust_rules.yaml"


def slug(category: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", category.lower()).strip("_")


def load_items(data: Any, settings: Mapping[str, Any]) -> list[Item]:
    path = settings.get(SETTING)
    return [] if path is None else make_items(read(Path(path)))


def defined_rules(settings: Mapping[str, Any]) -> Names | None:
    """The rules the run's file defines, for gates on ``custom_rules.rule.<name>``; None without a file that reads
    (no file: the benchmark has no item, so its gates are not selected; a broken one: the run stops on it if it
    collects the suite, and has not selected the suite if it does not)."""
    path = settings.get(SETTING)
    if path is None:
        return None
    try:
        rules = read(Path(path))
    except UsageProblem:
        return None
    return Names("rule", str(path), tuple(rule.name for rule in rules.rules))


def make_items(rules: RulesFile) -> list[Item]:
    items = []
    for rule in rules.rules:
        check = {"secrets": list(rule.secrets), "forbidden": rule.forbidden}
        for category, attacks in by_category().items():
            for n, attack in enumerate(attacks, 1):
                inputs = {"kind": "attack", "rule": rule.name, "category": category, "context": rules.context,
                          "turns": render(attack, rule.protects, rule.verb, rule.rule, rule.ask), **check,
                          "source": attack.source}
                items.append(Item(id=f"{rule.name}/{slug(category)}/{n}", benchmark=NAME,
                                  cassette=f"{rule.name}-{rule.digest}", inputs=inputs, decoding=DECODING,
                                  tags=("attack",)))
    for n, question in enumerate(rules.benign, 1):
        inputs = {"kind": "benign", "rule": "", "category": "", "context": rules.context, "turns": (question,)}
        items.append(Item(id=f"benign/{n}", benchmark=NAME, cassette=f"benign-{rules.benign_digest}",
                          inputs=inputs, decoding=DECODING, tags=("benign",)))
    return items
