"""Data layer: pinned upstream files from a mirror, a cache or a verified download (docs/data.md)."""

from .manifest import PinnedFile, absent_reason, is_pinned, pinned
from .readers import read_csv, read_json, read_jsonl, read_lines
from .store import DataStore

__all__ = ["DataStore", "PinnedFile", "absent_reason", "is_pinned", "pinned", "read_csv", "read_json", "read_jsonl", "read_lines"]
