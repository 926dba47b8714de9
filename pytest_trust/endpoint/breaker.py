"""The circuit breaker every remote call shares: the model endpoint's and the remote scorers'.

After ``LIMIT`` calls failing in a row (each after its retries), the run stops with one message: an endpoint
that is down fails every item the same way, and erroring item by item for hours helps no one. A success
resets the count; a failure that says nothing about the endpoint (one request's own 400) does not count.
"""

from __future__ import annotations

from ..errors import EndpointDown, ModelError

LIMIT = 3  # calls failing in a row that stop the run


class Breaker:
    def __init__(self, counted: str, advice: str, limit: int = LIMIT) -> None:
        self.counted = counted  # what failed in a row, as the message counts it: "calls", "texts", "items"
        self.advice = advice  # what to check before running again
        self.limit = limit
        self.in_a_row = 0  # across threads: an endpoint that is down fails them all

    def succeeded(self) -> None:
        self.in_a_row = 0

    def failed(self, message: str, counts: bool = True, trips: bool = True) -> ModelError:
        """The error to raise for a failed call: ``EndpointDown`` once ``limit`` counted failures are in a row
        (and ``trips``), else ``ModelError``."""
        if counts:
            self.in_a_row += 1
        if counts and trips and self.in_a_row >= self.limit:
            return EndpointDown(f"{message}; {self.in_a_row} {self.counted} in a row failed, so the run stops here: "
                                f"{self.advice}")
        return ModelError(message)
