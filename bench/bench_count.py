"""pytest plugin loaded with ``-p bench_count`` on BOTH sides of bench_replay.py (so it is fair):
counts the openai client's POSTs to ``/chat/completions`` (what ``chat.completions.create`` sends, and
what pytest-trust's model client sends directly) and writes the count to $BENCH_COUNT_FILE at exit."""

import os

from openai._base_client import SyncAPIClient

_calls = 0
_post = SyncAPIClient.post


def _counting_post(self, path, *args, **kwargs):
    global _calls
    if path == "/chat/completions":
        _calls += 1
    return _post(self, path, *args, **kwargs)


SyncAPIClient.post = _counting_post


def pytest_unconfigure(config):
    path = os.environ.get("BENCH_COUNT_FILE")
    if path:
        with open(path, "w") as fh:
            fh.write(str(_calls))
