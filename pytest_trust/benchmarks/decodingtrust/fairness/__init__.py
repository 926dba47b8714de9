"""DecodingTrust fairness: income (Adult) and crime-rate (Communities and Crime) predictions whose
demographic parity and equalized odds gaps between sensitive groups make the score.

Upstream: AI-secure/DecodingTrust@161ae83, ``src/dt/perspectives/fairness/`` and
``src/dt/configs/fairness/``.
"""

from ...spec import Benchmark, ReportSection, Suite
from .aggregate import aggregate, metric_keys
from .html import section
from .items import NAME, load_items
from .protocol import messages, run
from .recordings import recordings

__all__ = ["BENCHMARK", "NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]

BENCHMARK = Benchmark(
    NAME, run, aggregate, metric_keys,
    suites=(Suite(NAME, "DecodingTrust fairness", load_items),),
    recordings={"decodingtrust": recordings},
    messages=messages,
    lower_is_better=("dpd", "eod"),
    no_better_side=("rejection_rate",),
    report_sections=(ReportSection("fairness", "Fairness per setting (DecodingTrust)", section),),
)
