"""A team's own rules (``trust_rules.yaml``), attacked with a catalogue derived from RuLES' red-team cases and
judged by the checks the file states (docs/custom-rules.md)."""

from ..spec import Benchmark, NamedKeys, ReportSection, Setting, Suite
from .aggregate import BENIGN, RULE, SCORE, aggregate, benign_of, metric_keys, rule_of
from .html import section
from .items import DEFAULT_FILE, NAME, SETTING, defined_rules, load_items, make_items
from .protocol import messages, run
from .rules_file import problem, read
from .starter import TEXT as STARTER

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "make_items", "metric_keys", "read", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "your own rules from trust_rules.yaml, attacked as RuLES attacks its own", load_items,
                  needs_data=False),),
    settings=(Setting(SETTING, DEFAULT_FILE, "custom_rules: the rules file (default trust_rules.yaml in the rootdir; "
                      "the trust_rules ini option moves it too)", path=True, check=problem),),
    named_keys=(NamedKeys(RULE, defined_rules),),
    messages=messages,
    report_sections=(ReportSection(NAME, "Your rules: pass rates per rule and attack", section),),
    headline=(SCORE, BENIGN),
    paired_scores={SCORE: rule_of, BENIGN: benign_of},
    starter_files={DEFAULT_FILE: STARTER},
)
