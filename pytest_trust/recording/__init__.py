"""Recording layer: vcrpy cassettes per cassette unit, replay by request digest (docs/decisions.md).

The transports (``transport``, ``capture``) are imported by what records: a replay never loads the HTTP stack.
"""

from .digest import request_digest
from .modes import RecordMode
from .recorder import Recorder

__all__ = ["RecordMode", "Recorder", "request_digest"]
