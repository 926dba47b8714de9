"""RuLES (Mu et al. 2023): rule following in 14 scenarios, v3 suites benign/basic/redteam."""

from ..spec import Benchmark, ReportSection, Setting, Suite
from .aggregate import BENIGN_BUCKETS, HEADLINE_BUCKETS, aggregate, metric_keys
from .html import section
from .items import NAME, load_items
from .protocol import run

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "metric_keys", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "RuLES rule-following cases (benign, basic, redteam suites)", load_items),),
    paired_scores={f"{NAME}.score": HEADLINE_BUCKETS, f"{NAME}.benign_score": BENIGN_BUCKETS},
    settings=(Setting("rules_keep_reminders", False,
                      "RuLES: keep the precedence reminders in the rule prompt (upstream default; removed by default as "
                      "in S-RuLES/SystemCheck) - a deviation recorded in the report"),),
    report_sections=(ReportSection("rules", "RuLES pass rates", section),),
    headline=("rules.score", "rules.benign_score"),
)
