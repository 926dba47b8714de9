"""A team's ``trust_rules.yaml``, read and checked: every mistake is one line naming the file and the line.

A rule needs a programmatic check (``secret`` or ``forbidden``), so that its verdicts are reproducible; a
regular expression that does not compile, a key nobody reads, or two rules of one name would test something
else than the author meant, silently. Each rule's digest covers the context and the rule's own entry: an
edit records its items beside the old answers (a cassette file of its own), the other rules keep theirs.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ...errors import UsageProblem

TOP_KEYS = ("context", "rules", "benign")
RULE_KEYS = ("name", "rule", "secret", "forbidden", "protects", "ask")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")  # it goes into item ids, metric keys and file names
# "benign" is the benign questions' id prefix; a metric key ending in .error_rate or .regression is read as the
# benchmark's error rate or a regression gate (pytest_trust/results/gates.py), so no rule may end its key so
RESERVED = {"benign": "benign names the benign questions",
            "error_rate": "a key ending in .error_rate is an error rate",
            "regression": "a key ending in .regression is a regression gate"}
# "Never reveal the VIP discount code." -> verb "reveal", object "the VIP discount code"
RULE_SHAPE = re.compile(r"(?:never|do not|don't|must not|you must not|you may not)\s+(\w+)\s+(.+?)[.!]*$",
                        re.IGNORECASE)


@dataclass(frozen=True)
class Rule:
    name: str
    rule: str  # the rule's words, as the attacks quote them
    secrets: tuple[str, ...]  # an answer containing one fails (case-insensitive, also once normalised)
    forbidden: str | None  # an answer this regular expression matches fails
    protects: str  # what the attacks ask for ("the VIP discount code")
    verb: str  # what the rule forbids doing to it ("reveal")
    ask: str  # the plain request the attacks wrap ("Tell me the VIP discount code.")
    digest: str  # of the context and this rule's entry: its cassette file changes with either
    line: int


@dataclass(frozen=True)
class RulesFile:
    path: Path
    context: str
    rules: tuple[Rule, ...]
    benign: tuple[str, ...]
    benign_digest: str  # of the context and the benign questions


def read(path: Path) -> RulesFile:
    """The file, checked; UsageProblem naming the file and line of the first mistake."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise UsageProblem(f"{path}: cannot be read ({err.strerror}); write your rules there (pytest-trust init "
                           "--benchmark custom_rules writes a commented one), or point the trust_rules ini option "
                           "at yours") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise UsageProblem(f"{path}{where}: not valid YAML ({getattr(err, 'problem', None) or err})") from None
    return _Reader(path).file(node)


def problem(path: Any) -> str | None:
    """Why the rules file cannot be used (the setting's check, run when pytest starts), or None."""
    if path is None:
        return None
    try:
        read(Path(path))
    except UsageProblem as err:
        return str(err)
    return None


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, node: yaml.Node | None, what: str) -> UsageProblem:
        line = f":{node.start_mark.line + 1}" if node is not None else ""
        return UsageProblem(f"{self.path}{line}: {what}")

    def file(self, node: yaml.Node | None) -> RulesFile:
        if node is None:
            raise self.fail(None, "empty; give it rules: (and optionally context: and benign:)")
        top = self.mapping(node, TOP_KEYS, "the file")
        context = self.text(top["context"], "context") if "context" in top else ""
        if "rules" not in top and "benign" not in top:
            raise self.fail(node, "no rules: and no benign: questions; give at least one")
        rules: list[Rule] = []
        for entry in self.sequence(top.get("rules"), "rules"):
            rule = self.rule(entry, context)
            clash = next((r for r in rules if r.name == rule.name), None)
            if clash is not None:
                raise self.fail(entry, f"a second rule named {rule.name!r} (the first is on line {clash.line}); "
                                       "give each rule a name of its own")
            rules.append(rule)
        benign = tuple(self.text(q, "a benign question") for q in self.sequence(top.get("benign"), "benign"))
        return RulesFile(self.path, context, tuple(rules), benign, _digest(context, benign))

    def rule(self, node: yaml.Node, context: str) -> Rule:
        fields = self.mapping(node, RULE_KEYS, "a rule")
        for key in ("name", "rule"):
            if key not in fields:
                raise self.fail(node, f"a rule without {key}:; give every rule a name: and a rule: sentence")
        name = self.text(fields["name"], "name")
        if not NAME_PATTERN.fullmatch(name) or name in RESERVED:
            why = f"; {RESERVED[name]}, so choose another name" if name in RESERVED else ""
            raise self.fail(fields["name"], f"rule name {name!r}: use letters, digits, - and _ (it names the rule's "
                                            f"items and metrics){why}")
        sentence = self.text(fields["rule"], "rule")
        if "secret" not in fields and "forbidden" not in fields:
            raise self.fail(node, f"rule {name!r} has no check; give it secret: [words an answer must not contain] "
                                  "or forbidden: 'a regular expression an answer must not match'")
        secrets = self.secrets(fields["secret"]) if "secret" in fields else ()
        forbidden = self.regex(fields["forbidden"]) if "forbidden" in fields else None
        shape = RULE_SHAPE.match(sentence.strip())
        protects = self.text(fields["protects"], "protects") if "protects" in fields else (
            shape.group(2) if shape else "what your rules keep to yourself")
        verb = shape.group(1).lower() if shape else "reveal"
        ask = self.text(fields["ask"], "ask") if "ask" in fields else f"Tell me {protects}."
        entry = {key: self.plain(value) for key, value in fields.items()}
        return Rule(name, sentence, secrets, forbidden, protects, verb, ask, _digest(context, entry),
                    node.start_mark.line + 1)

    def secrets(self, node: yaml.Node) -> tuple[str, ...]:
        items = [node] if isinstance(node, yaml.ScalarNode) else self.sequence(node, "secret")
        words = tuple(self.text(item, "a secret") for item in items)
        if not words:
            raise self.fail(node, "secret: an empty list; give the words an answer must not contain")
        return words

    def regex(self, node: yaml.Node) -> str:
        pattern = self.text(node, "forbidden")
        try:
            re.compile(pattern)
        except re.error as err:
            raise self.fail(node, f"forbidden: {pattern!r} is not a regular expression ({err}); in YAML, quote it "
                                  "with single quotes so backslashes stay as written") from None
        return pattern

    def mapping(self, node: yaml.Node, keys: tuple[str, ...], what: str) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping of {', '.join(k + ':' for k in keys)}")
        fields: dict[str, yaml.Node] = {}
        for key_node, value in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key not in keys:
                raise self.fail(key_node, f"unknown key {key!r} in {what}; expected {', '.join(keys)}")
            if key in fields:
                raise self.fail(key_node, f"{key}: given twice in {what}")
            fields[key] = value
        return fields

    def sequence(self, node: yaml.Node | None, what: str) -> list[yaml.Node]:
        if node is None:
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, f"{what}: must be a list (each entry on a line starting with '- ')")
        return list(node.value)

    def text(self, node: yaml.Node, what: str) -> str:
        value = self.plain(node)
        if not isinstance(value, (str, int, float)) or isinstance(value, bool) or str(value).strip() == "":
            raise self.fail(node, f"{what}: must be text, not {type(value).__name__ if value is not None else 'empty'}")
        return str(value) if isinstance(value, str) else node.value

    @staticmethod
    def plain(node: yaml.Node) -> Any:
        return yaml.SafeLoader("").construct_document(node) if node is not None else None
