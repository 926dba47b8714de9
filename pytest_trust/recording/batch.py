"""Batch recording: the requests a recording run misses go to a provider's batch endpoint.

For the largest runs (hundreds of thousands of calls) the OpenAI Batch API is cheaper and free of
rate limits, but answers come hours later. With ``--trust-batch`` a run does not call the model:
each item's next unanswered request is queued and the item skips ("waiting for batch ..."). At the
end of the run the queue is uploaded as a JSONL file and a batch is created; its id and what each
request belongs to are kept under ``cassettes/<model>/.batches/``. A later run (any later run, with
``--trust-batch`` again) first collects every finished batch and writes its answers into the
cassettes exactly as if they had been recorded live, so the items replay; a conversation's next
turn is then queued in the next batch. Failed, expired or malformed answers are dropped and their
requests queued again.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CassetteError
from .answers import completion_problem
from .cassettes import Interaction, read_cassette_file
from .journal import Journal, MergeReport, merge_journals

BATCH_DIR = ".batches"
CHAT_URL = "/v1/chat/completions"  # the Batch API's name for the endpoint
WAITING = ("validating", "in_progress", "finalizing", "cancelling")
JSON_HEADERS = {"content-type": ["application/json"]}


class Pending(CassetteError):
    """The item's next request waits for a batch: the item skips until a later run collects it."""


@dataclass
class Queued:
    cassette: str  # relative to the model folder, as journals name it
    item_id: str
    digest: str
    episode: int
    request: dict[str, Any]  # vcrpy's request dict: method, uri, body, headers

    @property
    def key(self) -> tuple[str, str, str, int]:
        return self.cassette, self.item_id, self.digest, self.episode


@dataclass
class BatchReport:
    collected: int = 0
    submitted: str | None = None
    lines: list[str] = field(default_factory=list)


class BatchQueue:
    """The requests a run queues, and those already waiting in earlier runs' batches."""

    def __init__(self, model_root: Path) -> None:
        self.model_root = model_root
        self.folder = model_root / BATCH_DIR
        self.new: dict[tuple[str, str, str, int], Queued] = {}
        self.waiting: dict[tuple[str, str, str, int], str] = {}  # request key -> batch id
        self._lock = threading.Lock()
        for record in self.records():
            for entry in record["requests"]:
                self.waiting[Queued(**entry).key] = record["id"]

    def records(self) -> list[dict[str, Any]]:
        if not self.folder.is_dir():
            return []
        return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(self.folder.glob("*.json"))]

    def hold(self, queued: Queued) -> Pending:
        """Queue a request (unless a batch already holds it); the error the item skips with."""
        with self._lock:
            batch = self.waiting.get(queued.key)
            if batch is None:
                self.new.setdefault(queued.key, queued)
        if batch is not None:
            return Pending(f"waiting for batch {batch} (collected by the next run with --trust-batch)")
        return Pending("queued for a batch, submitted at the end of this run (--trust-batch)")

    def submit(self, client: Any) -> str | None:
        """Upload the queued requests and create a batch; return its id (None if nothing is queued)."""
        if not self.new:
            return None
        entries = list(self.new.values())
        lines = [json.dumps({"custom_id": f"r{n}", "method": "POST", "url": CHAT_URL,
                             "body": json.loads(q.request["body"])}, ensure_ascii=False)
                 for n, q in enumerate(entries)]
        uploaded = client.files.create(file=("pytest-trust-batch.jsonl", ("\n".join(lines) + "\n").encode("utf-8"),
                                             "application/jsonl"), purpose="batch")
        batch = client.batches.create(input_file_id=uploaded.id, endpoint=CHAT_URL, completion_window="24h")
        record = {"id": batch.id, "requests": [vars(q) for q in entries]}
        _write_json(self.folder / f"{_safe(batch.id)}.json", record)
        self.new.clear()
        return batch.id

    def collect(self, client: Any, session_id: str) -> BatchReport:
        """Write the answers of every finished batch into the cassettes (as a journal, merged at once)."""
        report = BatchReport()
        journal = Journal(self.model_root, session_id, "batch")
        for record in self.records():
            batch = client.batches.retrieve(record["id"])
            if batch.status in WAITING:
                report.lines.append(f"batch {batch.id}: {batch.status}, {len(record['requests'])} requests waiting")
                continue
            answers = _answers(client, batch) if batch.status == "completed" else {}
            written = self._write(journal, record, answers)
            report.collected += written
            dropped = len(record["requests"]) - written
            report.lines.append(f"batch {batch.id}: {batch.status}, {written} answers collected"
                                + (f", {dropped} requests to queue again" if dropped else ""))
            (self.folder / f"{_safe(record['id'])}.json").unlink()
            for entry in record["requests"]:
                self.waiting.pop(Queued(**entry).key, None)
        journal.close()
        if report.collected:
            merged: MergeReport = merge_journals(self.model_root, session_id)
            report.lines += merged.problems
        return report

    def _write(self, journal: Journal, record: dict[str, Any], answers: dict[str, str]) -> int:
        fresh: dict[tuple[str, str], list[Interaction]] = {}
        for n, entry in enumerate(record["requests"]):
            body = answers.get(f"r{n}")
            queued = Queued(**entry)
            if body is None or completion_problem(body, json.loads(queued.request["body"]).get("n", 1)):
                continue
            fresh.setdefault((queued.cassette, queued.item_id), []).append(
                {"item_id": queued.item_id, "digest": queued.digest, "episode": queued.episode,
                 "request": queued.request,
                 "response": {"body": {"string": body}, "headers": JSON_HEADERS,
                              "status": {"code": 200, "message": "OK"}}})
        for (cassette, item_id), interactions in sorted(fresh.items()):
            path = self.model_root / cassette
            recorded = read_cassette_file(path)[0].get(item_id, [])
            keys = {(i["digest"], i["episode"]) for i in recorded}
            new = [i for i in interactions if (i["digest"], i["episode"]) not in keys]
            journal.append(path, item_id, recorded + new)
        return sum(map(len, fresh.values()))


def _answers(client: Any, batch: Any) -> dict[str, str]:
    """custom_id -> the response body of each request the batch answered with status 200."""
    if not batch.output_file_id:
        return {}
    text = client.files.content(batch.output_file_id).text
    answers = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        response = entry.get("response") or {}
        if response.get("status_code") == 200 and isinstance(response.get("body"), dict):
            answers[entry["custom_id"]] = json.dumps(response["body"], ensure_ascii=False, separators=(",", ":"))
    return answers


def _safe(batch_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in batch_id)


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=1)
    os.replace(tmp, path)
