"""DecodingTrust out-of-distribution robustness (OOD): sentiment of SST-2 sentences rewritten in
styles, and questions about events after the training cut-off, zero-shot and with demonstrations.

Upstream: AI-secure/DecodingTrust (code ``src/dt/perspectives/ood/evaluation_ood.py``; the paper's
runs and v1.0 at ``ood/evaluation_ood.py``). Setting ``ood_scoring``: ``v1.0`` (default, the rule
behind the published scores) or ``head`` (the rule from a2e191b on).
"""

from ...spec import Benchmark, Setting, Suite
from .aggregate import aggregate, metric_keys
from .items import NAME, load_items
from .protocol import messages, run
from .recordings import recordings

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "DecodingTrust out-of-distribution robustness", load_items),),
    settings=(Setting("ood_scoring", "v1.0",
                      "DecodingTrust OOD: v1.0 (default) is the per-answer rule that produced the published numbers; "
                      "head is the rule upstream adopted after v1.0 (a2e191b) - a deviation recorded in the report",
                      choices=("v1.0", "head")),),
    recordings={"decodingtrust": recordings},
    messages=messages,
    no_better_side=("rr",),
)
