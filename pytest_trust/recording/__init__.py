"""Recording layer: vcrpy cassettes per scenario, replay by request digest (DESIGN section 5)."""

from .digest import request_digest
from .modes import RecordMode
from .recorder import Recorder
from .transport import TrustTransport

__all__ = ["RecordMode", "Recorder", "TrustTransport", "request_digest"]
