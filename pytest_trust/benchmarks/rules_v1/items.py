"""RuLES v1 test cases as Items: the suites systematic (862), manual (870) and justask (440).

The files are upstream's own (normster/llm_rules@f55c686:data/<suite>/<stem>.jsonl, one line per case:
``id``, ``category`` (manual has none: "default", as upstream's loader fills it), ``params``, ``messages``).
As upstream's ``load_dataset`` (evaluate.py) does, the file stem splits on "_" into the scenario and the
rule ("behaviour"): ``Authentication_withholdsecret`` is scenario Authentication, rule withholdsecret.
The manual suite has one file per scenario and does not tell negative from affirmative rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ...data import DataStore, read_jsonl
from ...errors import InvalidItem
from ...items import Item
from .scenarios import SCENARIOS

NAME = "rules_v1"
SOURCE = "rules_v1"
SUITE_FILE = "data/{suite}/{stem}.jsonl"
SUITES = ("systematic", "manual", "justask")

# The 22 rules: 9 negative ("harmless", the paper's "do not ...") and 13 affirmative ("helpful"), as the
# paper splits them (normster/llm_rules@f55c686:draft.pdf, Tables 9 and 14).
HARMLESS = ("Encryption", "AccessControl", "Confidentiality", "Authentication_withholdpassword",
            "Authentication_withholdsecret", "Millionaires_withhold", "ForbiddenWord", "Questions_withhold",
            "BinarySearch_withhold")
HELPFUL = ("Integrity", "Commitment_reject", "Commitment_verify", "Authentication_provide", "Millionaires_identify",
           "DiningCryptographers", "Hodor", "RockPaperScissors", "AnimalSounds", "Questions_confirm",
           "BinarySearch_confirm", "SimonSays_execute", "SimonSays_reject")
RULES = HARMLESS + HELPFUL
STEMS: dict[str, tuple[str, ...]] = {
    "systematic": tuple(sorted(RULES)),
    "manual": tuple(sorted(SCENARIOS)),
    "justask": tuple(sorted(RULES)),
}
# The systematic suite's attack strategies, as spelled in its files.
CATEGORIES = ("Just Ask", "Indirection", "Legalese", "Obfuscation", "Rule change", "Simulation")

# Every model turn: greedy, 512 tokens, as upstream builds its models (evaluate.py: temperature=0; the
# default max_tokens=512 of normster/llm_rules@f55c686:llm_rules/models/openai.py).
DECODING = {"temperature": 0, "max_tokens": 512}


def load_items(data: DataStore, settings: Mapping[str, Any]) -> list[Item]:
    """The three suites, each in upstream's file order (files sorted by name, lines in order)."""
    items: list[Item] = []
    for suite in SUITES:
        for stem in STEMS[suite]:
            rows = read_jsonl(data, SOURCE, SUITE_FILE.format(suite=suite, stem=stem))
            items += make_items(suite, stem, rows, settings)
    return items


def bucket_of(suite: str, stem: str) -> str:
    """harmless (a negative rule), helpful (an affirmative one), or "" for the manual suite, whose files are
    whole scenarios and whose cases the paper does not split (its section 3.2)."""
    if suite == "manual":
        return ""
    return "harmless" if stem in HARMLESS else "helpful" if stem in HELPFUL else ""


def make_items(suite: str, stem: str, rows: Iterable[Mapping[str, Any]], settings: Mapping[str, Any],
               suffix: str = "") -> list[Item]:
    """Items of one upstream file. ``suffix`` (a GCG suffix) is appended, after one space, to the first
    user message when the case is played; a suite built on it names itself in ``suite``.

    Ids are ``<suite>/<stem>/<uuid>``. Upstream's files repeat no uuid inside a file; if one did, its later
    occurrences would get ``#2``, ``#3``... in file order, so every id stays unique and stable."""
    scenario_name = stem.split("_")[0]
    if scenario_name not in SCENARIOS:
        raise InvalidItem(f"RuLES v1 file {suite}/{stem}.jsonl: no scenario {scenario_name!r} "
                          f"(known: {', '.join(SCENARIOS)})")
    system_instructions = bool(settings.get("rules_v1_system_instructions", False))
    seen: Counter[str] = Counter()
    items = []
    for line, row in enumerate(rows, 1):
        uuid = str(row.get("id") or f"line{line}")  # upstream's loader allows a case without an id (None)
        seen[uuid] += 1
        if seen[uuid] > 1:
            uuid = f"{uuid}#{seen[uuid]}"
        item_id = f"{suite}/{stem}/{uuid}"
        params = dict(row.get("params") or {})
        try:
            SCENARIOS[scenario_name](params)  # a case whose params do not fill its prompt fails here, by id
        except InvalidItem as err:
            raise InvalidItem(f"RuLES v1 case {item_id}: {err}") from None
        inputs = {
            "suite": suite,
            "behavior": stem,
            "scenario": scenario_name,
            "bucket": bucket_of(suite, stem),
            "category": row.get("category", "default"),
            "params": params,
            # upstream's files spell roles USER (Message.unserialize reads Role[...])
            "messages": tuple((m["role"].lower(), m["content"]) for m in row["messages"]),
            "system_instructions": system_instructions,
            "suffix": suffix,
        }
        items.append(Item(id=item_id, benchmark=NAME, cassette=f"{suite}.{stem}", inputs=inputs,
                          decoding=DECODING, tags=(suite,)))
    return items
