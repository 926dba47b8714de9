"""Errors pytest-trust raises, and what each one means to a user.

    TrustError                  anything pytest-trust reports as one clear message
    ├── UsageProblem            a bad option or file given by the user (pytest exit status 4)
    │   └── ThresholdsError     thresholds.yaml: bad YAML, unknown metric key, bad bound
    ├── DataError               the data layer could not serve a pinned file
    │   ├── ChecksumMismatch    a file's sha256 differs from the manifest
    │   └── DataUnavailable     not in the mirror, not cached, and the download failed
    ├── CassetteError           the recording layer could not serve or keep a recording
    │   ├── CassetteMiss        replay found no recorded answer for a request (test ERROR)
    │   └── CorruptCassette     a cassette or journal file cannot be read
    │   ├── NotRecorded         the source of an imported run never recorded this item (test SKIP)
    │   └── NotSaved            a new recording cannot be written (disk full, read-only folder): the run stops
    ├── Unavailable             an item that cannot run here, e.g. its upstream inputs are absent (SKIP)
    ├── ModelError              the model endpoint failed after retries (test ERROR, never recorded)
    │   ├── EndpointDown        several items in a row failed so: the run stops with one message
    │   └── RejectsN            the endpoint refused n > 1 answers: the model asks for seeded ones instead
    ├── Stopped                 a request after Ctrl-C: its item is abandoned, and recorded by the next run
    └── InvalidItem             a benchmark item its own scorer rejects, e.g. a malformed user
                                message in RuLES (test ERROR, not a model failure)
"""

from __future__ import annotations


class TrustError(Exception):
    """Base of every error pytest-trust raises on purpose."""


class UsageProblem(TrustError):
    pass


class ThresholdsError(UsageProblem):
    pass


class DataError(TrustError):
    pass


class ChecksumMismatch(DataError):
    pass


class DataUnavailable(DataError):
    pass


class CassetteError(TrustError):
    pass


class CassetteMiss(CassetteError):
    pass


class CorruptCassette(CassetteError):
    pass


class NotRecorded(CassetteError):
    pass


class NotSaved(CassetteError):
    """A new recording could not be written: every later answer would be paid for and lost too."""


class Unavailable(TrustError):
    """An item that cannot run here (absent upstream inputs, never recorded by an imported run): a SKIP."""


class ModelError(TrustError):
    pass


class EndpointDown(ModelError):
    """The endpoint failed for several items in a row: erroring item by item for hours helps no one."""


class RejectsN(ModelError):
    """The endpoint refused a request for several answers (``n``): told as a type, not in the message's text."""


class Stopped(TrustError):
    """Ctrl-C stopped the recording: an item still playing sends nothing more and is not journaled."""


class InvalidItem(TrustError, ValueError):
    """Raised by a scorer for an item it cannot judge; a ValueError as upstream raises one."""
