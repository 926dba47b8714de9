"""Pacing of live requests: a provider's requests- and tokens-per-minute budgets, and its 429s.

Every thread that records asks ``wait`` before each attempt it sends. Requests are spaced so that no
minute holds more than the budget (a steady pace, not bursts a provider would refuse), and a 429
pauses every thread, not only the one that met it, for the time the provider asked (``Retry-After``)
or a second: the others would meet the same limit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

DEFAULT_PAUSE = 1.0  # seconds, after a 429 that says nothing about when to come back
MAX_PAUSE = 120.0  # the openai client honours a Retry-After up to two minutes; so do we


class Pace:
    def __init__(self, rpm: float | None = None, tpm: float | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.rpm, self.tpm = rpm, tpm
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._next_request = self._next_tokens = self._paused_until = 0.0

    def wait(self, tokens: int) -> float:
        """Block until a request of about ``tokens`` tokens fits the budgets; return the time waited."""
        waited = 0.0
        with self._lock:
            now = self._clock()
            start = max(now, self._paused_until, self._next_request if self.rpm else 0.0,
                        self._next_tokens if self.tpm else 0.0)
            if self.rpm:
                self._next_request = start + 60.0 / self.rpm
            if self.tpm:
                self._next_tokens = start + tokens * 60.0 / self.tpm
        while True:
            delay = max(start, self._paused_until) - self._clock()
            if delay <= 0:
                return waited
            self._sleep(delay)
            waited += delay

    def pause(self, headers: Mapping[str, str]) -> float:
        """After a 429: hold every thread for the provider's Retry-After, or a second."""
        seconds = min(retry_after(headers) or DEFAULT_PAUSE, MAX_PAUSE)
        with self._lock:
            self._paused_until = max(self._paused_until, self._clock() + seconds)
        return seconds


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (a number; an HTTP date is left to the client)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return max(float(value) * scale, 0.0)
            except ValueError:
                continue
    return None


def estimated_tokens(body: Mapping, body_bytes: int) -> int:
    """Prompt tokens guessed at four bytes each, plus the answer tokens the request allows."""
    answer = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    n = body.get("n") or 1
    return body_bytes // 4 + (int(answer) * int(n) if isinstance(answer, int | float) and isinstance(n, int) else 0)
