"""Concurrent recording: a recording run plays its items in a pool of threads before pytest reports them.

A hosted model is latency-bound: one call at a time, the full DecodingTrust run takes days. With
``--trust-concurrency N`` the items (each RuLES conversation's turns still in order, in its thread)
are played N at a time within the endpoint's pace (``--trust-rpm``, ``--trust-tpm``, 429s), each
journaled as it finishes; pytest then runs every item as usual and each takes what its play gave,
so every item keeps its own case and verdict. Cassettes are written sorted by item, so they are
byte-identical to a sequential recording of the same answers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from ..items import Item
from .playing import Played, play

NOT_PLAYED = ("not played", "the run stopped before this item (the first error that stopped it says why)")


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during ``play_ahead``: what the items finished before it gave, so pytest can still report them
    (their answers are journaled and kept) before it ends the run as interrupted."""

    def __init__(self, played: dict[str, Played]) -> None:
        super().__init__()
        self.played = played


class Progress:
    """A line every ``every`` seconds (and a last one): items done of total, model calls and tokens (where
    this process sees them), rate, time left. Plain lines, so a log file reads the same as a terminal."""

    def __init__(self, total: int, write: Callable[[str], None], calls: Callable[[], int] | None = None,
                 tokens: Callable[[], int] | None = None, every: float = 10.0) -> None:
        self.total, self.write, self.calls, self.tokens, self.every = total, write, calls, tokens, every
        self.done = 0
        self.started = self.last = time.monotonic()
        self._lock = threading.Lock()

    def tick(self) -> None:
        with self._lock:
            self.done += 1
            now = time.monotonic()
            if now - self.last >= self.every or self.done == self.total:
                self.last = now
                self.write(self.line(now))

    def line(self, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate else 0.0
        counts = "".join(f", {count():,} {name}" for name, count in (("model calls", self.calls),
                                                                    ("tokens", self.tokens)) if count)
        return (f"recording: {self.done}/{self.total} items{counts}, "
                f"{rate:.1f} items/s, {elapsed:.0f} s elapsed, about {left:.0f} s left")


def play_ahead(player, items: Sequence[tuple[str, Item, str]], workers: int,
               write: Callable[[str], None]) -> dict[str, Played]:
    """Play ``(nodeid, item, record hint)`` in ``workers`` threads; return what each play gave.

    After the endpoint is found down, the items not yet started are not played (each says so). Ctrl-C
    stops the recording at once (``Recorder.stop``) and raises ``Interrupted`` with what the items finished
    before it gave: they are journaled (merged at session end) and reported, those still playing are
    abandoned, and the next run records them. The threads are daemons, so an answer still awaited (up
    to --trust-timeout, and its retries) does not hold the exit, as a ThreadPoolExecutor's would.
    """
    model = player.connect()  # one client, shared by the threads (httpx2's pool is thread-safe)
    recorder = player.recorder
    played: dict[str, Played] = {}
    down = threading.Event()
    progress = Progress(len(items), write, lambda: model.transport.live_calls, lambda: model.transport.live_tokens)
    queue = iter(items)
    take = threading.Lock()
    bugs: list[BaseException] = []

    def work() -> None:
        try:
            while not recorder.stopped:
                with take:
                    entry = next(queue, None)
                if entry is None:
                    return
                nodeid, item, hint = entry
                if down.is_set():
                    played[nodeid] = Played(error=NOT_PLAYED)
                else:
                    played[nodeid] = outcome = play(player, item, hint)
                    if outcome.stops_run:
                        down.set()
                if not recorder.stopped:
                    progress.tick()
        except BaseException as err:  # noqa: BLE001 - play() catches everything of ours: a bug, raised below
            bugs.append(err)

    threads = [threading.Thread(target=work, name=f"pytest-trust-{n}", daemon=True) for n in range(workers)]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.1)  # a timeout, so Ctrl-C is seen even when the signal woke another thread
    except KeyboardInterrupt:
        finished = dict(played)  # before the stop: an item cut by it has no outcome of its own to report
        recorder.stop()
        write(f"pytest-trust: interrupted: {len(finished)} of {len(items)} items played; the recorded ones are "
              "kept, the next run records the rest")
        raise Interrupted(finished) from None
    if bugs:
        raise bugs[0]
    return played
