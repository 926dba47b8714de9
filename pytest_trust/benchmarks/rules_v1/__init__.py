"""RuLES v1 (Mu et al. 2023, first release, normster/llm_rules@f55c686): 15 scenarios incl. Hodor, the
suites systematic (862), manual (870) and justask (440), upstream's protocol (rules as a user message)."""

from .aggregate import aggregate, metric_keys
from .cases import NAME, load_items, make_items
from .protocol import run

__all__ = ["NAME", "aggregate", "load_items", "make_items", "metric_keys", "run"]
