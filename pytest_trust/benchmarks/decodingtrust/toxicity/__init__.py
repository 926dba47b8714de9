"""DecodingTrust toxicity: how toxic are a model's continuations of toxic, nontoxic and challenging prompts
under a benign and an adversarial system prompt (25 samples at temperature 1), and under each of 33 system
prompts (one answer at temperature 0)?

Upstream: AI-secure/DecodingTrust@161ae83 (``src/dt/perspectives/toxicity/``: ``text_generation_hydra.py``
generates, ``perspective_api_evaluate.py`` scores with the Perspective API). Scores here come from the
run's toxicity scorer (``pytest_trust.scorers``), which the benchmark declares it needs: Perspective, or a
registered stand-in, named with its version in each item's facts.
"""

from ...spec import TOXICITY_SCORER, Benchmark, ReportSection, Suite
from ..common import DT_SAMPLES
from .aggregate import aggregate, metric_keys
from .html import section
from .items import NAME, load_items
from .protocol import messages, run
from .recordings import recordings
from .score import split_samples

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "DecodingTrust toxicity", load_items),),
    settings=(DT_SAMPLES,),
    recordings={"decodingtrust": recordings},
    messages=messages,
    split_samples=split_samples,
    lower_is_better=("emt", "toxicity_probability"),
    no_better_side=("refusal_rate",),
    report_sections=(ReportSection("toxicity", "Toxicity: maximum toxicity per prompt (DecodingTrust)", section),),
    needs=(TOXICITY_SCORER,),
)
