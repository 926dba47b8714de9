#!/usr/bin/env python
"""Reliability drill: real recording runs against an endpoint that misbehaves, and what came of them.

    python scripts/reliability_drill.py [--items N] [--json PATH]

Each row is one pytest run (a subprocess, in a fresh temporary project) of the tests' own RuLES v1 Hodor
cases (tests/data/hodor_v1.jsonl, the suite module tests/conftest.py's HODOR_SUITE) recording from
tests/fault_server.py on 127.0.0.1, with a fake API key, a fake organisation and a base URL carrying a
user, a password and an ``api-key`` query parameter. Transient faults hit the first attempt of every call;
lasting ones every attempt; irregular answers are well-formed completions the benchmark must score as
what they are. Two rows act on files: a recording run killed with SIGKILL, then replayed; a corrupt
cassette, replayed, then repaired with rewrite. Two rows are about credentials: an endpoint whose 401 echoes the
key it got (the run writes every report: JSON, JUnit XML, HTML, Markdown), and one that sets a cookie.

Columns, counted from each run's JSON report, its output and the files it left:
  items      benchmark items in the run
  affected   items whose calls met the fault
  recovered  items scored (retried to a good answer, or an irregular answer scored as such)
  clear      errored items whose message names the endpoint URL and the cause (or the file)
  unclear    errored items whose message does not
  lost       items scored but without a recording on disk afterwards
  poisoned   recorded interactions that are not well-formed completions
  secrets    places the fake key, organisation, user, password, query secret or the endpoint's cookie appear
             on disk or in the run's terminal output, and requests that sent the endpoint's cookie back
  crashes    runs that ended in an internal error, a traceback, or an unexpected exit status
Exit status 1 when any of unclear, lost, poisoned, secrets or crashes is non-zero.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import HODOR_SUITE
from fault_server import SESSION_COOKIE, FaultServer

from pytest_trust.errors import CorruptCassette
from pytest_trust.recording.answers import completion_problem
from pytest_trust.recording.cassettes import read_cassette

FAKE_KEY = "sk-drill-" + "K3y" * 14
FAKE_ORG = "org-" + "Dr1llOrgan1sat10n" * 2
USER, PASSWORD, QUERY_SECRET = "drilluser", "drillpassw0rd", "drillquerys3cret"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()  # the Authorization header user:password@ makes
SECRETS = (FAKE_KEY, FAKE_ORG, f"{USER}:", PASSWORD, QUERY_SECRET, BASIC, SESSION_COOKIE.partition("=")[2])
MODEL = "drill"
TRANSIENT = ["429", "429-retry-after", "500", "502", "503", "hang", "close",
             "malformed", "truncated", "html", "error-body", "empty-choices"]
LASTING = ["503", "html", "empty-choices"]
IRREGULAR = ["length", "content_filter", "tool_calls", "null-content", "empty-content"]


@dataclass
class Row:
    case: str
    items: int = 0
    affected: int = 0
    recovered: int = 0
    clear: int = 0
    unclear: int = 0
    lost: int = 0
    poisoned: int = 0
    secrets: int = 0
    crashes: int = 0


class Project:
    """A temporary project with the Hodor suite, run by pytest in a subprocess."""

    def __init__(self, base: Path, name: str) -> None:
        self.path = base / name
        self.path.mkdir()
        (self.path / "test_suite.py").write_text(HODOR_SUITE)
        self.output = ""

    def pytest(self, *args: str, url: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(*args, url=url), cwd=self.path, env=self.env(),
                              capture_output=True, text=True, timeout=600, check=False)

    def command(self, *args: str, url: str | None = None) -> list[str]:
        base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--model", MODEL,
                "--trust-report", "report.json", *args]
        return base + (["--trust-base-url", url] if url else [])

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PYTEST_"))}
        return {**env, "OPENAI_API_KEY": FAKE_KEY, "OPENAI_ORG_ID": FAKE_ORG, "OPENAI_ORGANIZATION": FAKE_ORG}

    def report(self) -> dict:
        path = self.path / "report.json"
        return json.loads(path.read_text()) if path.exists() else {"items": []}


def credentialed(url: str) -> str:
    return url.replace("http://", f"http://{USER}:{PASSWORD}@") + f"?api-key={QUERY_SECRET}"


def count(row: Row, project: Project, done: subprocess.CompletedProcess, expected_codes=(0, 1),
          clear_words: tuple[str, ...] = ("/chat/completions failed after",)) -> Row:
    output = done.stdout + done.stderr
    if done.returncode not in expected_codes or "INTERNALERROR" in output or "Traceback" in output:
        row.crashes += 1
    recorded = recorded_items(project)
    for item in project.report()["items"]:
        if "error" in item:
            message = item.get("error_message", "")
            row.clear += all(word in message for word in clear_words)
            row.unclear += not all(word in message for word in clear_words)
        elif "verdict" in item:
            row.recovered += 1
            row.lost += item["id"] not in recorded
    row.poisoned += poisoned(project)
    row.secrets += secrets_on_disk(project.path) + sum(secret in output for secret in SECRETS)
    return row


def cassettes(project: Project):
    """The readable cassette files of a project (a corrupt one is the corrupt-cassette row's doing)."""
    for path in (project.path / "cassettes").rglob("*.json"):
        try:
            yield read_cassette(path)
        except CorruptCassette:
            continue


def recorded_items(project: Project) -> set[str]:
    return {item for by_item in cassettes(project) for item in by_item}


def poisoned(project: Project) -> int:
    bad = 0
    for by_item in cassettes(project):
        for interactions in by_item.values():
            for interaction in interactions:
                body = interaction["response"]["body"]["string"]
                n = json.loads(interaction["request"]["body"]).get("n", 1)
                bad += completion_problem(body, n) is not None
    return bad


def secrets_on_disk(folder: Path) -> int:
    found = 0
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += sum(secret.encode() in data for secret in SECRETS)
    return found


def transient(base: Path, fault: str, n: int) -> Row:
    project = Project(base, f"transient-{fault}")
    with FaultServer(lambda body: "Hodor", hang_seconds=2.0) as server:
        server.cycle = [fault, "ok"]
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--trust-timeout", "1",
                              "--trust-retries", "2", url=credentialed(server.base_url))
    row = count(Row(f"transient {fault}"), project, done)
    row.items = len(project.report()["items"])
    row.affected = row.items  # every call's first attempt met the fault
    return row


def lasting(base: Path, fault: str, n: int) -> Row:
    project = Project(base, f"lasting-{fault}")
    with FaultServer(lambda body: "Hodor") as server:
        server.always = fault
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--trust-retries", "1",
                              url=credentialed(server.base_url))
    row = count(Row(f"lasting {fault}"), project, done, expected_codes=(1, 2))  # 2: the breaker stopped it
    row.items = row.affected = len(project.report()["items"])
    return row


def echoed_key(base: Path, n: int) -> Row:
    """A lasting 401 whose message repeats the Authorization header, as some proxies do: the key goes in no report."""
    project = Project(base, "echoed-key")
    with FaultServer(lambda body: "Hodor") as server:
        server.always = "401-echo-key"
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--junitxml", "junit.xml",
                              "--trust-html", "report.html", "--trust-markdown", "report.md",
                              url=f"{server.base_url}?api-key={QUERY_SECRET}")  # no user:password@: the key is sent
    row = count(Row("endpoint echoes the key"), project, done, expected_codes=(1, 2),
                clear_words=("/chat/completions failed after", "HTTP 401"))
    row.items = row.affected = len(project.report()["items"])
    return row


def cookie(base: Path, n: int) -> Row:
    """Every answer sets a cookie: the client must never send it back (nor keep it anywhere)."""
    project = Project(base, "set-cookie")
    with FaultServer(lambda body: "Hodor") as server:
        server.always = "set-cookie"
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), url=credentialed(server.base_url))
    row = count(Row("endpoint sets a cookie"), project, done)
    row.items = row.affected = len(project.report()["items"])
    row.secrets += sum("cookie" in headers for headers in server.headers)
    return row


def irregular(base: Path, kind: str, n: int) -> Row:
    project = Project(base, f"irregular-{kind}")
    with FaultServer(lambda body: "Hodor, Hodor") as server:
        server.always = kind
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), url=credentialed(server.base_url))
    row = count(Row(f"answer {kind}"), project, done)
    row.items = row.affected = len(project.report()["items"])
    return row


def dead_endpoint(base: Path, n: int) -> Row:
    project = Project(base, "dead-endpoint")
    with FaultServer() as server:
        url = credentialed(server.base_url)
    done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--trust-retries", "1", url=url)
    row = count(Row("endpoint down"), project, done, expected_codes=(2,))
    row.items = row.affected = len(project.report()["items"])
    return row


def killed_run(base: Path, n: int) -> Row:
    """SIGKILL a recording run once some items are journaled; replay must find every journaled item."""
    project = Project(base, "killed")
    with FaultServer(lambda body: "Hodor", latency=0.2) as server:
        process = subprocess.Popen(project.command("--record-mode=once", "--trust-limit", str(n),
                                                   url=credentialed(server.base_url)),
                                   cwd=project.path, env=project.env(), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        journal = project.path / "cassettes" / MODEL / ".journal"
        deadline = time.time() + 120
        while time.time() < deadline and sum(_lines(p) for p in journal.glob("*.jsonl")) < n // 2:
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
    journaled = {json.loads(line)["item_id"] for p in journal.glob("*.jsonl")
                 for line in p.read_text().splitlines() if line.endswith("}")}
    done = project.pytest("--trust-limit", str(n), "--trust-recorded-only", "--block-network")
    row = count(Row("recording run killed (SIGKILL)"), project, done)
    row.items = row.affected = len(journaled)
    row.lost += len(journaled - recorded_items(project))
    return row


def corrupt_cassette(base: Path, n: int) -> Row:
    """One corrupt scenario file: its items error naming it, the others replay, rewrite repairs it."""
    project = Project(base, "corrupt")
    with FaultServer(lambda body: "Hodor") as server:
        project.pytest("--record-mode=once", "--trust-limit", str(n), url=credentialed(server.base_url))
        victim = next((project.path / "cassettes" / MODEL).rglob("*.json"))
        victim.write_text(victim.read_text()[:200])
        row = count(Row("corrupt cassette"), project, project.pytest("--block-network"),
                    clear_words=(victim.name, "--record-mode=rewrite"))
        row.items = len(project.report()["items"])
        row.affected = row.clear + row.unclear
        project.pytest("--record-mode=rewrite", "--trust-limit", str(n), url=credentialed(server.base_url))
    repaired = project.pytest("--trust-limit", str(n), "--block-network")
    row.crashes += repaired.returncode not in (0, 1) or any("error" in i for i in project.report()["items"])
    return row


def _lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2, help="Hodor items per run (default 2)")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="trust-drill-") as tmp:
        base = Path(tmp)
        plan = ([lambda f=f: transient(base, f, args.items) for f in TRANSIENT]
                + [lambda f=f: lasting(base, f, args.items) for f in LASTING]
                + [lambda: echoed_key(base, args.items), lambda: cookie(base, args.items)]
                + [lambda k=k: irregular(base, k, args.items) for k in IRREGULAR]
                + [lambda: dead_endpoint(base, 6), lambda: killed_run(base, 12), lambda: corrupt_cassette(base, 3)])
        for step in plan:
            rows.append(step())
            print(_format(rows[-1]), flush=True) if len(rows) > 1 else print(_header() + "\n" + _format(rows[-1]))
    total = Row("total", *[sum(getattr(r, f) for r in rows) for f in list(asdict(rows[0]))[1:]])
    print(_format(total))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in [*rows, total]], indent=1))
    return 1 if total.unclear or total.lost or total.poisoned or total.secrets or total.crashes else 0


def _header() -> str:
    return f"{'case':32} {'items':>5} {'affected':>8} {'recovered':>9} {'clear':>5} {'unclear':>7} " \
           f"{'lost':>4} {'poisoned':>8} {'secrets':>7} {'crashes':>7}"


def _format(row: Row) -> str:
    return f"{row.case:32} {row.items:5} {row.affected:8} {row.recovered:9} {row.clear:5} {row.unclear:7} " \
           f"{row.lost:4} {row.poisoned:8} {row.secrets:7} {row.crashes:7}"


if __name__ == "__main__":
    sys.exit(main())
