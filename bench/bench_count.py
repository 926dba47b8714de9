"""pytest plugin loaded with ``-p bench_count`` on BOTH sides of bench_replay.py (so it is fair):
counts the openai client's POSTs to ``/chat/completions`` (what ``chat.completions.create`` sends, and
what pytest-trust's model client sends directly) and the requests pytest-trust's replay answers with no
HTTP client (recording/replay.py), and writes the count to $BENCH_COUNT_FILE at exit."""

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

try:
    from pytest_trust.recording.replay import Replay
except ImportError:  # a pytest-trust from before replay without a client: every request is a POST
    Replay = None
else:
    _choices = Replay.choices

    def _counting_choices(self, body):
        """A request replay answers or fails (a miss); not one it leaves to the client (counted as a POST)."""
        global _calls
        try:
            choices = _choices(self, body)
        except Exception:
            _calls += 1
            raise
        _calls += choices is not None
        return choices

    Replay.choices = _counting_choices


def pytest_unconfigure(config):
    path = os.environ.get("BENCH_COUNT_FILE")
    if path:
        with open(path, "w") as fh:
            fh.write(str(_calls))
