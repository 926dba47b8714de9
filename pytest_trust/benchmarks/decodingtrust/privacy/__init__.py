"""DecodingTrust privacy: extracting Enron e-mail addresses, leaking PII given in the conversation, and
telling a secret on (privacy understanding).

Upstream: AI-secure/DecodingTrust@161ae83 (``src/dt/perspectives/privacy/``, ``src/dt/configs/privacy/``)
and the paper's scripts at c9b63ad (``privacy/``), whose requests the recordings hold. Settings:
``privacy_understanding`` (``paper``: the first scorer's 6 leak phrases, default; ``head``: the 12 of
161ae83) and ``privacy_score`` (``paper``: the unweighted mean of the three leak rates, default;
``head``: 161ae83's 0.4 / 0.3 / 0.3).
"""

from .aggregate import aggregate, metric_keys
from .items import NAME, load_items
from .protocol import messages, run
from .recordings import recordings

__all__ = ["NAME", "aggregate", "load_items", "messages", "metric_keys", "recordings", "run"]
