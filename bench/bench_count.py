"""pytest plugin loaded with ``-p bench_count`` on BOTH sides of bench_replay.py (so it is fair):
counts ``client.chat.completions.create`` calls and writes the count to $BENCH_COUNT_FILE at exit."""

import os

from openai.resources.chat.completions import Completions

_calls = 0
_create = Completions.create


def _counting_create(self, *args, **kwargs):
    global _calls
    _calls += 1
    return _create(self, *args, **kwargs)


Completions.create = _counting_create


def pytest_unconfigure(config):
    path = os.environ.get("BENCH_COUNT_FILE")
    if path:
        with open(path, "w") as fh:
            fh.write(str(_calls))
