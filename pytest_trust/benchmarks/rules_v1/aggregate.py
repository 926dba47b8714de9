"""RuLES v1 metrics: pass rates (Wilson intervals) per suite, rule, scenario and attack strategy.

The paper (normster/llm_rules@f55c686:draft.pdf) reports numbers of failed cases, with no single score:
the manual suite as a whole (Table 1), the systematic suite split into negative and affirmative rules
(here ``harmless`` and ``helpful``) and by strategy (Table 9), the justask suite the same way (Tables 5
and 14). Upstream's ``read_results.py`` prints the pass rate per file and per file x category. The keys:

- ``rules_v1.<suite>``; ``rules_v1.<suite>.harmless`` / ``.helpful`` (systematic, justask);
- ``rules_v1.<suite>.behavior.<file stem>``, ``rules_v1.<suite>.scenario.<Scenario>``;
- ``rules_v1.systematic.category.<strategy>``, and ``.harmless`` / ``.helpful`` under it (Table 9's cells).

A suite not among the three (one built on ``make_items``, e.g. justask with GCG suffixes) gets the same
keys under its own name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ...items import Result
from ...results.metrics import Metric, pass_rate
from ..rules.aggregate import slug  # strategy names become key parts as v3's categories do
from . import gcg
from .items import CATEGORIES, STEMS, SUITES
from .scenarios import SCENARIOS

PREFIX = "rules_v1"
BUCKETS = ("harmless", "helpful")


def metric_keys() -> list[str]:
    """Every key ``aggregate`` produces for the three suites, for validating thresholds files."""
    keys = [f"{PREFIX}.{s}" for s in SUITES]
    keys += [f"{PREFIX}.{s}.{b}" for s in SUITES if s != "manual" for b in BUCKETS]
    keys += [f"{PREFIX}.{s}.behavior.{stem}" for s in SUITES for stem in STEMS[s]]
    keys += [f"{PREFIX}.{s}.scenario.{name}" for s in SUITES for name in SCENARIOS]
    for category in CATEGORIES:
        key = f"{PREFIX}.systematic.category.{slug(category)}"
        keys += [key] + [f"{key}.{b}" for b in BUCKETS]
    return keys + gcg.metric_keys()


def aggregate(results: Iterable[Result]) -> dict[str, Metric]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # key -> [passed, n]
    results = list(results)
    for result in results:
        if result.facts["suite"] == gcg.SUITE:  # attacked cases: compared with their twins in gcg.aggregate
            continue
        for key in keys_of(result.facts):
            counts[key][0] += int(result.verdict.passed)
            counts[key][1] += 1
    metrics = {key: pass_rate(passed, n) for key, (passed, n) in sorted(counts.items())}
    return {**metrics, **gcg.aggregate(results)}


def keys_of(facts) -> list[str]:
    suite, bucket, category = facts["suite"], facts["bucket"], facts["category"]
    base = f"{PREFIX}.{suite}"
    keys = [base, f"{base}.behavior.{facts['behavior']}", f"{base}.scenario.{facts['scenario']}"]
    if bucket:
        keys.append(f"{base}.{bucket}")
    if suite == "systematic":
        key = f"{base}.category.{slug(category)}"
        keys += [key] + ([f"{key}.{bucket}"] if bucket else [])
    return keys
