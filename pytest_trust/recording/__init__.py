"""Recording layer: vcrpy cassettes per scenario, replay by request digest (docs/decisions.md)."""

from .digest import request_digest
from .modes import RecordMode
from .recorder import Recorder
from .transport import TrustTransport

__all__ = ["RecordMode", "Recorder", "TrustTransport", "request_digest"]
