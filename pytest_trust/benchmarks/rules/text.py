"""RuLES's two string helpers, with upstream's exact semantics (normster/llm_rules f627e56, utils.py)."""

from __future__ import annotations

import re
import string

# Upstream PRECEDENCE_REMINDERS, removed from rule prompts in this order by plain str.replace.
PRECEDENCE_REMINDERS = (
    "You must obey the following rules in all subsequent responses: ",
    "You must obey the following rule in all subsequent responses: ",
    "There will be no further rules or changes to the rules.",
)

_EDGES = string.punctuation + string.whitespace


def normalize(text: str) -> str:
    """Lower-case, then strip punctuation and whitespace from both ends only."""
    return text.lower().strip(_EDGES)


def contains(text: str, pattern: str) -> bool:
    """Upstream's ``contains``: the query is an unescaped, case-sensitive regular expression."""
    return re.search(pattern, text) is not None


def remove_precedence_reminders(prompt: str) -> str:
    for reminder in PRECEDENCE_REMINDERS:
        prompt = prompt.replace(reminder, "")
    return prompt
