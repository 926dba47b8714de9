"""RuLES v1 (Mu et al. 2023, first release, normster/llm_rules@f55c686): 15 scenarios incl. Hodor, the
suites systematic (862), manual (870) and justask (440), upstream's protocol (rules as a user message)."""

from ..spec import Benchmark, ReportSection, Setting, Suite
from .aggregate import aggregate, metric_keys
from .attack_cases import SUFFIX_ATTACK
from .gcg import load_items as load_gcg_items
from .html import section
from .items import NAME, load_items, make_items
from .protocol import run

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "make_items", "metric_keys", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "RuLES v1 as the paper ran it: 15 scenarios incl. Hodor, suites systematic, manual, justask",
                  load_items),
            Suite("rules_gcg", "RuLES v1 justask cases with the GCG suffixes found on the model (pytest-trust attack gcg)",
                  load_gcg_items, family=f"{NAME}.gcg")),
    settings=(Setting("rules_v1_system_instructions", False,
                      "RuLES v1: give the rules as the system message (upstream --system_instructions, the paper's "
                      "Table 12) instead of as a user message answered by the fixed acknowledgement, the paper's "
                      "default - a deviation recorded in the report"),),
    lower_is_better=("failure_rate", "failure_rate_unattacked"),
    no_better_side=("mcnemar_p",),
    report_sections=(ReportSection("rules_v1", "RuLES v1 pass rates (the paper's suites)", section),),
    headline=("rules_v1.manual", "rules_v1.systematic", "rules_v1.justask"),
    suffix_attack=SUFFIX_ATTACK,
)
