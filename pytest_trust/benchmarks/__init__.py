"""The benchmark registry: the built-in benchmarks, then those other packages install.

A package adds a benchmark with an entry point in the ``pytest_trust.benchmarks`` group naming its
``Benchmark`` object (docs/adding-a-benchmark.md). ``BENCHMARKS`` maps names to benchmarks, ``SUITES``
suite names (markers, ``TRUST_SUITE`` values) to suites; ``PROBLEMS`` says why an installed benchmark
could not be added (the plugin makes each a usage error, so a broken package is one clear line).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import UsageProblem
from ..plugins_installed import load_group
from . import custom_rules, rules, rules_detection, rules_v1
from .decodingtrust import adv_demonstration, advglue, fairness, machine_ethics, ood, privacy, stereotype, toxicity
from .spec import SERVICES, Benchmark, Names, Setting, Suite, is_score_level, is_summary_level

ENTRY_POINTS = "pytest_trust.benchmarks"
# Registry order is the order of markers, options, the report's settings and `pytest-trust import decodingtrust`.
BUILT_IN: tuple[Benchmark, ...] = tuple(package.BENCHMARK for package in (
    rules, rules_detection, rules_v1, ood, advglue, adv_demonstration, machine_ethics, fairness, toxicity,
    stereotype, privacy, custom_rules))

BENCHMARKS: dict[str, Benchmark] = {}
SUITES: dict[str, Suite] = {}
SETTINGS: dict[str, Setting] = {}  # by key; one setting may serve several benchmarks (--trust-dt-samples)
PROBLEMS: list[str] = []


def register(benchmark: Any, source: str = "") -> str | None:
    """Add a benchmark; the reason it cannot be added (a clash with one already there), or None."""
    where = f" ({source})" if source else ""
    if not isinstance(benchmark, Benchmark):
        return f"benchmark {source} is a {type(benchmark).__name__}, not a pytest_trust Benchmark"
    if benchmark.name in BENCHMARKS:
        return f"benchmark {benchmark.name!r}{where} is already registered"
    clash = [suite.name for suite in benchmark.suites if suite.name in SUITES]
    if clash:
        return f"benchmark {benchmark.name!r}{where}: suite {clash[0]!r} is already registered"
    for setting in benchmark.settings:
        known = SETTINGS.get(setting.key)
        if known is not None and known != setting:
            return f"benchmark {benchmark.name!r}{where}: setting {setting.key!r} differs from the one registered"
    unknown = [name for name in benchmark.needs if name not in SERVICES]
    if unknown:
        return (f"benchmark {benchmark.name!r}{where} needs {unknown[0]!r}, which no run provides: "
                f"declare one of {', '.join(SERVICES)}")
    BENCHMARKS[benchmark.name] = benchmark
    SUITES.update((suite.name, suite) for suite in benchmark.suites)
    SETTINGS.update((setting.key, setting) for setting in benchmark.settings)
    return None


NAMED = ".*"  # a gate key ending so stands for a family of keys the project names (``custom_rules.rule.*``)


def gate_keys() -> set[str]:
    """Every key a thresholds file may gate: each registered benchmark's metrics, its error rate, and its families
    of keys the project names, each as ``<prefix>.*`` (any one name after the prefix)."""
    return {key for name, benchmark in BENCHMARKS.items()
            for key in [*benchmark.metric_keys(), f"{name}.error_rate", *(f.prefix + NAMED for f in benchmark.named_keys)]}


def defined_names(settings: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Names]:
    """By prefix, the names defined in this run (from its settings) of each family of project-named keys that one
    of ``keys`` belongs to; a family whose names cannot be read is left out (nothing is said of its gates)."""
    prefixes = {key.rpartition(".")[0] for key in keys}
    found = {}
    for benchmark in BENCHMARKS.values():
        for family in benchmark.named_keys:
            if family.prefix in prefixes:
                names = family.defined(settings)
                if names is not None:
                    found[family.prefix] = names
    return found


def headlines(metrics: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """A run's headline metrics (docs/glossary.md), per benchmark that has one among ``metrics`` (registry
    order, then those not installed here): the headline keys it declares that were computed; where none was
    (a partial run, a benchmark not installed here), its first score-level key that was. The one rule the
    terminal summary, the HTML scorecard and the board read."""
    by_benchmark: dict[str, list[str]] = {}
    for key in metrics:
        by_benchmark.setdefault(key.split(".", 1)[0], []).append(key)
    names = [*(name for name in BENCHMARKS if name in by_benchmark), *(n for n in by_benchmark if n not in BENCHMARKS)]
    out = {}
    for name in names:
        declared = BENCHMARKS[name].headline_keys() if name in BENCHMARKS else ()
        keys = tuple(key for key in declared if key in metrics)
        keys = keys or tuple(key for key in by_benchmark[name] if is_score_level(key))[:1]
        if keys:
            out[name] = keys
    return out


def summary_keys(metrics: Mapping[str, Any]) -> list[str]:
    """The summary-level keys of ``metrics`` (``spec.is_summary_level``), in their order."""
    return [key for key in metrics if is_summary_level(key)]


def suites_named(names: list[str] | None, what: str) -> list[str] | None:
    """The suite names (registry order) that benchmark or suite ``names`` stand for; None for no names (every
    suite). ``what`` ("init: --benchmark") starts the message of a name the registry does not know."""
    if not names:
        return None
    chosen: set[str] = set()
    for name in names:
        if name in BENCHMARKS:
            chosen.update(suite.name for suite in BENCHMARKS[name].suites)
        elif name in SUITES:
            chosen.add(name)
        else:
            known = sorted({*BENCHMARKS, *SUITES})
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise UsageProblem(f"{what} {name}: no such benchmark; {hint}registered: {', '.join(known)}")
    return [suite for suite in SUITES if suite in chosen]


def _register_installed() -> None:
    load_group(ENTRY_POINTS, register, PROBLEMS)


for _benchmark in BUILT_IN:
    register(_benchmark)
_register_installed()
