"""When Python's cyclic garbage collector runs in a pytest-trust session: a pytest plugin object of its own,
registered by the plugin module as pytest registers its stepwise and cacheprovider plugins.

A run builds a few hundred thousand long-lived objects (items, nodes, marks, recordings, results); the
collector's full passes over them are pure cost, so it pauses while they are built, runs less often while the
items run, and leaves what is still alive at the end to the process's exit.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from functools import lru_cache

import pytest

# allocations between two young collections while items run, not Python's 700: each item parses JSON, builds
# results and reports, and the collections that follow walked the run's growing records 12 times in the main job
# (1.05 s of collecting against pytest's 0.49 s on as many items; 0.67 s at this threshold, the peak the same)
RUN_GC_THRESHOLD = 10_000


class GcPolicy:
    def __init__(self, config: pytest.Config) -> None:
        # what the end of the session froze (pytest_sessionfinish), unfrozen after pytest's cleanups
        config.add_cleanup(gc.unfreeze)
        _freeze_at_exit()

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Iterator[None]:
        """Collection builds a few hundred thousand long-lived objects (items, nodes, marks): the cyclic
        collector's full passes over them are pure cost, so it pauses, and what was built is frozen out of
        its later passes."""
        paused = gc.isenabled()
        gc.disable()
        try:
            return (yield)
        finally:
            if paused:
                gc.freeze()
                gc.enable()

    @pytest.hookimpl(wrapper=True)  # inside the plugin module's (tryfirst): items played ahead keep the default
    def pytest_runtestloop(self, session: pytest.Session) -> Iterator[object]:
        """The cyclic collector runs less often while the items run (``RUN_GC_THRESHOLD``), and what the run built
        is frozen once they ran: the session's end (metrics, bootstraps, reports) makes objects enough for a few
        full passes, each of which would walk the run's records again."""
        threshold = gc.get_threshold()
        if threshold[0]:  # 0: the user turned automatic collection off, and it stays off
            gc.set_threshold(max(threshold[0], RUN_GC_THRESHOLD), *threshold[1:])
        try:
            return (yield)
        finally:
            gc.freeze()
            gc.set_threshold(*threshold)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Right after the plugin module's session finish (tryfirst): pytest's unraisable-exception cleanup then
        runs five full collections, each walking the run's few hundred thousand live objects (items, recordings,
        results: 0.15 s each on the main job); frozen, they are skipped."""
        gc.freeze()


@lru_cache(maxsize=1)
def _freeze_at_exit() -> None:
    """Once a process: the interpreter's last collection, after atexit, walks and frees every object still
    alive one by one (about 2 s after the main job: pytest alone spends 1.3 s there on as many items). Frozen,
    they are left to the process's exit; every file is closed by then (the session's in pytest_sessionfinish)."""
    atexit.register(gc.freeze)
