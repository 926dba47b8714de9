"""The conversations behind a report's items, read back from the run's cassettes for the HTML report.

The JSON report keeps each item's verdict and facts, not its transcript; the cassettes keep every request
and answer under the item's id. One transcript per item, as a list of ``[speaker, text]``: the messages of
each request that the previous turn did not already show, then the answer (each sample when a request
asked for several). A repeated request (a seeded sample) adds only its answer. Items whose cassette is
absent or unreadable get no transcript; the report says so instead of failing.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import CorruptCassette
from ..recording.cassettes import Interaction, read_cassette

Transcript = list[list[str]]


def transcripts(items: Iterable[dict[str, Any]], recordings: Path) -> dict[str, Transcript]:
    """Node id -> transcript, for the report's items recorded under ``recordings`` (cassettes/<model>)."""
    by_file: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        if item.get("id") and item.get("benchmark") and item.get("scenario"):
            by_file[item["benchmark"], item["scenario"]].append(item)
    found: dict[str, Transcript] = {}
    for (benchmark, cassette), members in by_file.items():
        try:
            recorded = read_cassette(recordings / benchmark / f"{cassette}.json")
        except CorruptCassette:
            continue
        for item in members:
            if recorded.get(item["id"]):
                found[item["nodeid"]] = transcript(recorded[item["id"]])
    return found


def transcript(interactions: Iterable[Interaction]) -> Transcript:
    turns: Transcript = []
    previous: list[tuple[str, str]] = []  # the last request's messages
    shown: list[tuple[str, str]] = []  # what the transcript holds of the conversation so far
    samples = 0  # answers shown to the last request
    for interaction in interactions:
        request, answers = _exchange(interaction)
        if request is None:
            continue
        if request != previous:
            if shown and request[:len(shown)] == shown:
                new = request[len(shown):]
            else:
                new = request
                if turns:
                    turns.append(["note", "a new request"])
            turns.extend([role, text] for role, text in new)
            samples = 0
        for answer in answers:
            samples += 1
            turns.append(["assistant" if samples == 1 else f"assistant, sample {samples}", answer])
        previous = request
        shown = request + [("assistant", answers[0])] if answers else request
    return turns


def _exchange(interaction: Interaction) -> tuple[list[tuple[str, str]] | None, list[str]]:
    """A request's messages (a completion prompt as one ``prompt`` message) and its answers."""
    try:
        body = json.loads(interaction["request"]["body"])
        answer = json.loads(interaction["response"]["body"]["string"])
    except (KeyError, TypeError, ValueError):
        return None, []
    if not isinstance(body, dict):
        return None, []
    if isinstance(body.get("messages"), list):
        request = [(str(m.get("role", "?")), _text(m.get("content"))) for m in body["messages"] if isinstance(m, dict)]
    else:
        request = [("prompt", _text(body.get("prompt")))]
    choices = answer.get("choices") if isinstance(answer, dict) else None
    answers = []
    for choice in choices if isinstance(choices, list) else []:
        if isinstance(choice, dict):
            message = choice.get("message")
            answers.append(_text(message.get("content") if isinstance(message, dict) else choice.get("text")))
    return request, answers


def _text(content: Any) -> str:
    """Message content as text: a string, the text parts of a content list, or a placeholder."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "(no text)" if content is None else json.dumps(content)
