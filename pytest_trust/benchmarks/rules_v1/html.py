"""The HTML report's RuLES v1 section, drawn as the RuLES one is."""

from __future__ import annotations

from ..rules.html import rule_following
from ..spec import ReportView

SUITES = ("manual", "systematic", "justask", "gcg")


def section(report: ReportView) -> str | None:
    """RuLES v1 as the paper reports it: manual as a whole, systematic and justask by negative (harmless) and
    affirmative (helpful) rule, systematic by attack strategy; shown only for a run that has it."""
    metrics = report.metrics
    if not any(key.startswith("rules_v1.") for key in metrics):
        return None
    return rule_following(metrics, "rules_v1", SUITES, "rules_v1.systematic.category.", "Systematic")
