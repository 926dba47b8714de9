"""DecodingTrust robustness to adversarial demonstrations (Wang et al. 2023, section 7).

Counterfactual demonstrations (6 tasks, plain and ``_cf``), spurious-correlation demonstrations
(6 heuristics; their inputs are absent upstream, so those scenarios skip) and backdoored demonstrations
(4 attacks x 3 setups, ``_asr`` and ``_cacc`` test sets), as AI-secure/DecodingTrust@161ae83 asks and
scores them (``src/dt/perspectives/adv_demonstration/``).
"""

from ...spec import Benchmark, Suite
from .aggregate import aggregate, metric_keys
from .items import load_items
from .protocol import messages, run
from .recordings import recordings
from .scenarios import NAME

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "DecodingTrust robustness to adversarial demonstrations", load_items),),
    recordings={"decodingtrust": recordings},
    messages=messages,
    lower_is_better=("asr",),
    no_better_side=("rejection",),
)
