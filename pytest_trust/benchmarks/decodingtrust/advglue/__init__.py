"""DecodingTrust adversarial robustness (AdvGLUE): the AdvGLUE dev set's six tasks, asked as DecodingTrust's
advglue ``gpt_eval.classify`` asks them and parsed by its ``response_to_labels``.

Setting ``advglue_protocol``: ``paper`` (default) sends the requests of the script behind the published
numbers, AI-secure/DecodingTrust@c9b63ad ``adv-glue-plus-plus/gpt_eval.py`` (system turn, no
demonstrations, temperature 0 only); ``head`` sends those of @161ae83 ``src/dt/perspectives/advglue/
gpt_eval.py`` with its configs (demonstrations, max_tokens 16, n 1). Aggregates follow @161ae83's
``adv_stats.py``; inputs AI-secure/adversarial-glue@2e18301, ``dev.json``.
"""

from ...spec import Benchmark, Setting, Suite
from .aggregate import aggregate, metric_keys
from .items import NAME, load_items
from .protocol import messages, run
from .recordings import recordings

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "DecodingTrust adversarial robustness (AdvGLUE)", load_items),),
    settings=(Setting("advglue_protocol", "paper",
                      "DecodingTrust AdvGLUE: paper (default) sends the requests of the script behind the published "
                      "numbers (c9b63ad: system turn, no demonstrations, temperature 0); head sends 161ae83's "
                      "(demonstrations, max_tokens 16) - a deviation recorded in the report",
                      choices=("paper", "head")),),
    recordings={"decodingtrust": recordings},
    messages=messages,
    no_better_side=("rr_ne",),
)
