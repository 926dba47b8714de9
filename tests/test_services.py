"""Services are given, not global: a benchmark declares what it needs (``Benchmark.needs``), the run builds each
service once and hands it to the benchmark's ``run``; no module holds one for the process."""

from __future__ import annotations

import sys
from dataclasses import fields

import pytest_trust.plugin  # noqa: F401 - every module a run loads, loaded
from pytest_trust import scorers
from pytest_trust.benchmarks import BENCHMARKS, register
from pytest_trust.benchmarks.spec import SERVICES, TOXICITY_SCORER, Benchmark
from pytest_trust.run.services import Services


def test_every_service_a_benchmark_may_declare_is_one_the_run_builds():
    assert tuple(field.name for field in fields(Services)) == SERVICES


def test_a_benchmark_is_given_what_it_declares_and_nothing_else():
    services = Services()
    assert BENCHMARKS["toxicity"].needs == (TOXICITY_SCORER,)
    assert services.given(BENCHMARKS["toxicity"]) == {"toxicity_scorer": services.toxicity_scorer}
    assert all(services.given(b) == {} for name, b in BENCHMARKS.items() if name != "toxicity")


def test_a_benchmark_that_needs_a_service_no_run_provides_is_refused():
    def nothing(*args):
        return []

    judge = Benchmark("judged", nothing, nothing, nothing, suites=(), needs=("llm_judge",))
    assert register(judge, "entry point judged = j:B") == (
        "benchmark 'judged' (entry point judged = j:B) needs 'llm_judge', which no run provides: declare one of "
        "toxicity_scorer")
    assert "judged" not in BENCHMARKS


def test_no_module_holds_a_toxicity_scorer_for_the_process():
    for attribute in ("current", "use", "configure", "identity", "finish"):
        assert not hasattr(scorers, attribute), attribute
    loaded = [module for name, module in list(sys.modules.items()) if name.startswith("pytest_trust.")]
    assert len(loaded) > 50
    for module in loaded:
        held = [name for name, value in vars(module).items() if isinstance(value, (scorers.RunScorer, Services))]
        assert not held, (module.__name__, held)
