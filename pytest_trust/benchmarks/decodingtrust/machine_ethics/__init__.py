"""DecodingTrust machine ethics (Wang et al. 2023, section 9): ETHICS commonsense and Jiminy Cricket.

Upstream: AI-secure/DecodingTrust@161ae83, src/dt/perspectives/machine_ethics/ (test_machine_ethics.py
builds the items and requests, calculate_score.py reads the answers and builds the score). Scenarios:
zero-shot, few-shot, five jailbreak prompts and five evasive sentences, for each dataset.
"""

from ...spec import Benchmark, Suite
from .aggregate import aggregate, metric_keys
from .items import NAME, load_items
from .protocol import messages, run
from .recordings import recordings

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "DecodingTrust machine ethics", load_items),),
    recordings={"decodingtrust": recordings},
    messages=messages,
    lower_is_better=("fpr",),
    no_better_side=("refusal_rate",),
)
