"""Interactions built from a recorded request body and answer, written as cassette files.

An imported interaction is what a live recording of the same exchange would hold (vcrpy's request
and response dicts, the digest our transport computes, the episode), so it replays through the same
path. Written through ``write_cassette``: sorted, atomic, so importing twice gives identical bytes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..recording.cassettes import Interaction, cassette_file, write_cassette
from ..recording.digest import request_digest

CHAT_ENDPOINT = "/chat/completions"
IMPORT_URI = "https://api.openai.com/v1/chat/completions"  # where the imported runs were sent
JSON_HEADERS = {"content-type": ["application/json"]}


def chat_body(model: str, messages: Any, decoding: Mapping[str, Any]) -> dict[str, Any]:
    """The request body the openai client sends for ``chat.completions.create(model, messages, **decoding)``."""
    return {"messages": list(messages), "model": model, **decoding}


def interaction(item_id: str, episode: int, body: Mapping[str, Any], response: Mapping[str, Any]) -> Interaction:
    return {
        "item_id": item_id,
        "digest": request_digest("POST", CHAT_ENDPOINT, body),
        "episode": episode,
        "request": {"body": json.dumps(body, ensure_ascii=False, separators=(",", ":")), "headers": JSON_HEADERS,
                    "method": "POST", "uri": IMPORT_URI},
        "response": {"body": {"string": json.dumps(response, ensure_ascii=False, separators=(",", ":"))},
                     "headers": JSON_HEADERS, "status": {"code": 200, "message": "OK"}},
    }


class CassetteSet:
    """Interactions and not-recorded marks of one model, grouped by (benchmark, cassette) file."""

    def __init__(self, root: Path, model: str) -> None:
        self.root = root
        self.model = model
        self.items: dict[tuple[str, str], dict[str, list[Interaction]]] = defaultdict(dict)
        self.not_recorded: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)

    def add(self, benchmark: str, cassette: str, item_id: str, body: Mapping[str, Any],
            response: Mapping[str, Any]) -> None:
        episodes = self.items[benchmark, cassette].setdefault(item_id, [])
        episodes.append(interaction(item_id, len(episodes), body, response))

    def mark(self, benchmark: str, cassette: str, reason: str, item_id: str | None = None) -> None:
        self.not_recorded[benchmark, cassette][item_id or "*"] = reason

    def write(self) -> list[Path]:
        written = []
        for key in sorted(set(self.items) | set(self.not_recorded)):
            path = cassette_file(self.root, self.model, *key)
            write_cassette(path, self.items.get(key, {}), self.not_recorded.get(key, {}))
            written.append(path)
        return written
