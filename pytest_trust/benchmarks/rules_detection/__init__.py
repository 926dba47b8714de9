"""RuLES v1 violation detection (Mu et al. 2023, "Can LLMs Follow Simple Rules?"): the model under test is the
judge of 1,098 recorded conversations of 13 other models, zero-shot, pass or fail.

Upstream: normster/llm_rules@f55c686 ``evaluate_detection.py`` (request, parse) and
``read_results_detection.py`` (accuracy and TP/TN/FP/FN with a pass as the positive class); data
``data/detection/<Scenario>[_<behavior>].jsonl``, 22 files, each record a conversation with the
``result`` {passed, reason} of the scenario's evaluator and the ``model`` that wrote it.

The paper reports precision, recall and F1 with a violation as the positive class; GPT-4 reached 82.1%
accuracy and an F1 of 84.0 (the RuLES article, arXiv 2311.04235, detection results). Those are figures
to compare with, not gates.
"""

from ..spec import Benchmark, Suite
from .aggregate import aggregate, metric_keys
from .items import NAME, load_items
from .protocol import messages, run

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "RuLES v1 violation detection: the model judges 1,098 recorded conversations (pass/fail)",
                  load_items),),
    no_better_side=("unexpected_rate",),
    headline=("rules_detection.accuracy", "rules_detection.f1"),
)
