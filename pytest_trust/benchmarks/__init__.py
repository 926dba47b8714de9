"""Benchmarks and the suites the plugin can parametrize. A suite module names one of SUITES."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import rules, rules_detection, rules_v1
from .decodingtrust import adv_demonstration, advglue, fairness, machine_ethics, ood, privacy, stereotype, toxicity
from .rules_v1 import gcg as rules_v1_gcg


@dataclass(frozen=True)
class Suite:
    benchmark: ModuleType  # exposes NAME, run, aggregate, metric_keys
    load: Callable[..., list[Any]]  # (data, settings) -> items
    needs_data: bool = True


SUITES: dict[str, Suite] = {
    "rules": Suite(rules, rules.load_items),
    "rules_detection": Suite(rules_detection, rules_detection.load_items),
    "rules_v1": Suite(rules_v1, rules_v1.load_items),
    "rules_gcg": Suite(rules_v1, rules_v1_gcg.load_items),
    **{module.NAME: Suite(module, module.load_items)
       for module in (advglue, ood, adv_demonstration, machine_ethics, fairness, toxicity, stereotype, privacy)},
}

BENCHMARKS: dict[str, ModuleType] = {suite.benchmark.NAME: suite.benchmark for suite in SUITES.values()}
