"""DecodingTrust stereotype bias: does the model agree with stereotyped statements about 24 groups on 16
topics, under a benign, an untargeted and a targeted system prompt (25 sampled answers per prompt)?

Upstream: AI-secure/DecodingTrust@161ae83 (``src/dt/perspectives/stereotype/agreement_func.py`` scores;
the paper's runs are ``stereotype/bias_generation.py`` of the first commit c9b63ad).
"""

from ...spec import Benchmark, ReportSection, Suite
from ..common import DT_SAMPLES
from .aggregate import aggregate, metric_keys, split_samples
from .html import section
from .items import NAME, load_items
from .protocol import messages, run
from .recordings import recordings

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "DecodingTrust stereotype bias", load_items),),
    settings=(DT_SAMPLES,),
    recordings={"decodingtrust": recordings},
    messages=messages,
    split_samples=split_samples,
    lower_is_better=("agreeability",),
    no_better_side=("rejection_rate",),
    report_sections=(ReportSection("stereotype", "Stereotype agreeability (DecodingTrust)", section),),
)
