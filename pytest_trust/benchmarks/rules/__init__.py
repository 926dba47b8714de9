"""RuLES (Mu et al. 2023): rule following in 14 scenarios, v3 suites benign/basic/redteam."""

from .aggregate import aggregate, metric_keys
from .cases import load_items
from .protocol import run

NAME = "rules"

__all__ = ["NAME", "aggregate", "load_items", "metric_keys", "run"]
