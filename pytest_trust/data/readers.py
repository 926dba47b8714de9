"""Readers for the formats benchmarks use; they return plain Python objects."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from .store import DataStore


def read_json(store: DataStore, source: str, path: str) -> Any:
    return json.loads(store.read_text(source, path))


def read_jsonl(store: DataStore, source: str, path: str) -> list[Any]:
    return [json.loads(line) for line in store.read_text(source, path).splitlines() if line.strip()]


def read_lines(store: DataStore, source: str, path: str) -> list[str]:
    return [line.strip() for line in store.read_text(source, path).splitlines()]


def read_csv(store: DataStore, source: str, path: str, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(store.read_text(source, path)), delimiter=delimiter))
