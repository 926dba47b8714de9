#!/usr/bin/env python
"""Reliability drill: real recording runs against an endpoint that misbehaves, and what came of them.

    python scripts/reliability_drill.py [--items N] [--json PATH]

Each row is one pytest run (a subprocess, in a fresh temporary project) of the tests' own RuLES v1 Hodor
cases (tests/data/hodor_v1.jsonl, the suite module tests/conftest.py's HODOR_SUITE) recording from
tests/fault_server.py on 127.0.0.1, with a fake API key, a fake organisation and a base URL carrying a
user, a password and an ``api-key`` query parameter. Transient faults hit the first attempt of every call;
lasting ones every attempt; irregular answers are well-formed completions the benchmark must score as
what they are; unstorable ones (a lone surrogate, bytes that are not UTF-8, 3 MB of text) are status-200
answers that cannot be stored and sent back faithfully; faults of format (an HTML page, an event stream)
are status-200 answers in another format than JSON, never retried; an answer that trickles in a byte every
0.05 s must be cut at --trust-timeout 1 (the run must end within 30 s); a redirect to another host must not
be followed. Rows that act on files: a recording run killed
with SIGKILL, then replayed; a corrupt cassette of four kinds (a cut file, an answer that is not JSON, a
recorded HTTP 500, a file of format version 99), replayed, then repaired with rewrite; a dead run's
journal holding an older answer beside a corrupt cassette, then a rewrite (the fresh answer must win,
whatever the journals' names); a
cassette folder that fills up while recording (a small tmpfs, then enlarged and replayed) and one that is
read-only (a read-only tmpfs), where the two mounts need root (without it those rows say "not tried"); a
recording run under --trust-concurrency 4 interrupted with SIGINT (Ctrl-C), which must end within 5 s with
pytest's status 2 (interrupted), then replayed. Two rows are about credentials: an endpoint whose 401
echoes the key it got (the run writes every report: JSON, JUnit XML, HTML, Markdown), and one that sets a
cookie.

Columns, counted from each run's JSON report, its output and the files it left:
  items      benchmark items in the run
  affected   items whose calls met the fault
  recovered  items scored (retried to a good answer, or an irregular answer scored as such)
  clear      errored items whose message names the endpoint URL and the cause (or the file)
  unclear    errored items whose message does not; for a fault of format, also attempts beyond the one its
             message names
  uncounted  irregular answers (empty, cut, withheld) scored but not counted in the report
  lost       items scored, or journaled before a kill or an interrupt, without a recording on disk afterwards
  poisoned   recorded interactions that are not well-formed completions, or an older answer that won
  secrets    places the fake key, organisation, user, password, query secret or the endpoint's cookie appear
             on disk or in the run's terminal output, requests that sent the endpoint's cookie back, and
             requests that reached the host a redirect points at
  crashes    runs that ended in an internal error, a traceback, or an unexpected exit status; an
             interrupted run also when it took more than 5 s to end, a trickled-into one more than 30 s
Exit status 1 when any of unclear, uncounted, lost, poisoned, secrets or crashes is non-zero.
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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import HODOR_SUITE, ctrl_c_as_in_a_terminal
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
UNSTORABLE = ["lone-surrogate", "invalid-utf8", "oversized"]
TRANSIENT = ["429", "429-retry-after", "500", "502", "503", "hang", "trickle", "close",
             "malformed", "truncated", "error-body", "empty-choices", *UNSTORABLE]
LASTING = ["503", "empty-choices", *UNSTORABLE]
OTHER_FORMATS = ["html", "event-stream"]  # not transient: one attempt, one error
TRICKLE_RUN_SECONDS = 30  # a lasting trickle under --trust-timeout 1: 3 items of 2 attempts, and pytest's start
CORRUPTIONS = ["cut file", "answer not JSON", "recorded HTTP 500", "version 99"]
IRREGULAR = ["length", "content_filter", "tool_calls", "null-content", "empty-content"]


@dataclass
class Row:
    case: str
    items: int = 0
    affected: int = 0
    recovered: int = 0
    clear: int = 0
    unclear: int = 0
    uncounted: int = 0
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
        (self.path / "report.json").unlink(missing_ok=True)  # each run must write its own
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
    if (done.returncode not in expected_codes or "INTERNALERROR" in output or "Traceback" in output
            or "items: " not in output or not (project.path / "report.json").exists()):
        row.crashes += 1  # a run must end in its summary and its report, whatever happened
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


def other_format(base: Path, fault: str, n: int) -> Row:
    """A status-200 HTML page or event stream for every request: one attempt each, an error naming what came back."""
    project = Project(base, f"format-{fault}")
    with FaultServer(lambda body: "Hodor") as server:
        server.always = fault
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--trust-retries", "2",
                              url=credentialed(server.base_url))
    row = count(Row(f"format {fault}"), project, done, expected_codes=(1, 2),  # 2: the breaker stopped it
                clear_words=("/chat/completions failed after 1 attempt: status 200 with", "content-type",
                             "--trust-base-url"))
    row.items = row.affected = len(project.report()["items"])
    row.unclear += max(0, len(server.served) - row.items)  # attempts the message does not name
    return row


def trickle(base: Path, n: int) -> Row:
    """Every answer trickles in a byte every 0.05 s (~12 s each): --trust-timeout 1 cuts each attempt, the breaker
    stops the run."""
    project = Project(base, "lasting-trickle")
    with FaultServer(lambda body: "Hodor", trickle_seconds=0.05) as server:
        server.always = "trickle"
        started = time.monotonic()
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--trust-timeout", "1",
                              "--trust-retries", "1", url=credentialed(server.base_url))
        took = time.monotonic() - started
    row = count(Row("lasting trickle, --trust-timeout 1"), project, done, expected_codes=(1, 2),
                clear_words=("/chat/completions failed after 2 attempts: no complete answer within --trust-timeout 1 s",))
    row.items = row.affected = len(project.report()["items"])
    row.crashes += took > TRICKLE_RUN_SECONDS
    return row


def redirect(base: Path, n: int) -> Row:
    """Every request is redirected (307) to another host: not followed, nothing reaches it, the error names it."""
    project = Project(base, "redirect")
    with FaultServer(lambda body: "Hodor") as elsewhere, FaultServer(lambda body: "Hodor") as server:
        server.always = "redirect"
        server.redirect_to = elsewhere.base_url.replace("127.0.0.1", "localhost")
        done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--trust-retries", "2",
                              url=credentialed(server.base_url))
    row = count(Row("redirect (307) to another host"), project, done, expected_codes=(1, 2),
                clear_words=("/chat/completions failed after 1 attempt: HTTP 307, a redirect to http://localhost:",
                             "not followed", "set --trust-base-url to the final address"))
    row.items = row.affected = len(project.report()["items"])
    row.secrets += len(elsewhere.requests)  # each would have carried the key to a host nobody named
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
    counted = sum(n for kinds in project.report().get("irregular_answers", {}).values() for n in kinds.values())
    row.uncounted = max(0, row.recovered - counted)  # every answer is irregular: at least one per scored item
    return row


def dead_endpoint(base: Path, n: int) -> Row:
    project = Project(base, "dead-endpoint")
    with FaultServer() as server:
        url = credentialed(server.base_url)
    done = project.pytest("--record-mode=once", "--trust-limit", str(n), "--trust-retries", "1", url=url)
    row = count(Row("endpoint down"), project, done, expected_codes=(2,))
    row.items = row.affected = len(project.report()["items"])
    return row


def record_then_kill(project: Project, answer: str, n: int) -> tuple[Path, list[dict]]:
    """Start a recording run, SIGKILL it once half its items are journaled: its journal folder and lines."""
    with FaultServer(lambda body: answer, latency=0.2) as server:
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
    return journal, [json.loads(line) for p in journal.glob("*.jsonl")
                     for line in p.read_text().splitlines() if line.endswith("}")]


def killed_run(base: Path, n: int) -> Row:
    """SIGKILL a recording run once some items are journaled; replay must find every journaled item."""
    project = Project(base, "killed")
    _, lines = record_then_kill(project, "Hodor", n)
    journaled = {line["item_id"] for line in lines}
    done = project.pytest("--trust-limit", str(n), "--trust-recorded-only", "--block-network")
    row = count(Row("recording run killed (SIGKILL)"), project, done)
    row.items = row.affected = len(journaled)
    row.lost += len(journaled - recorded_items(project))
    return row


def interrupted_run(base: Path, n: int, workers: int = 4) -> Row:
    """SIGINT (Ctrl-C) a concurrent recording run once a few items are journaled: it must end within 5 s as
    interrupted (status 2), without a traceback, and every item journaled before the interrupt must replay.
    ``n`` is large enough that playing on to the end takes longer than that."""
    project = Project(base, "interrupted")
    with FaultServer(lambda body: "Hodor", latency=0.5) as server, ctrl_c_as_in_a_terminal():
        process = subprocess.Popen(project.command("--record-mode=once", "--trust-limit", str(n),
                                                   "--trust-concurrency", str(workers), url=credentialed(server.base_url)),
                                   cwd=project.path, env=project.env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        journal = project.path / "cassettes" / MODEL / ".journal"
        deadline = time.time() + 120
        while time.time() < deadline and process.poll() is None and len(_journaled(journal)) < workers:
            time.sleep(0.02)
        journaled = _journaled(journal)
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        try:
            output = process.communicate(timeout=60)[0]
        except subprocess.TimeoutExpired:
            process.kill()
            output = process.communicate()[0]
        took = time.monotonic() - interrupted
    row = Row("Ctrl-C, concurrent recording")
    row.crashes += (process.returncode != 2 or took > 5 or "Traceback" in output or "INTERNALERROR" in output)
    row = count(row, project, project.pytest("--trust-recorded-only", "--block-network"))
    row.items = row.affected = len(journaled)
    row.lost += len(journaled - recorded_items(project))
    return row


def corrupt_cassette(base: Path, kind: str, n: int) -> Row:
    """One corrupt scenario file: its items error naming it, the others replay, rewrite repairs it."""
    project = Project(base, f"corrupt-{kind.replace(' ', '-')}")
    with FaultServer(lambda body: "Hodor") as server:
        project.pytest("--record-mode=once", "--trust-limit", str(n), url=credentialed(server.base_url))
        victim = next((project.path / "cassettes" / MODEL).rglob("*.json"))
        damage(victim, kind)
        row = count(Row(f"corrupt cassette: {kind}"), project,
                    project.pytest("--trust-limit", str(n), "--block-network"),
                    clear_words=(victim.name, "--record-mode=rewrite"))
        row.items = len(project.report()["items"])
        row.affected = row.clear + row.unclear
        project.pytest("--record-mode=rewrite", "--trust-limit", str(n), url=credentialed(server.base_url))
    row.poisoned = poisoned(project)  # what the rewrite left, not the damage this row made
    repaired = project.pytest("--trust-limit", str(n), "--block-network")
    row.crashes += repaired.returncode not in (0, 1) or any("error" in i for i in project.report()["items"])
    return row


def damage(cassette: Path, kind: str) -> None:
    """Cut the file, spoil the first recorded answer, or mark it another format version, as an editor, a bad merge
    or another tool might."""
    if kind == "cut file":
        cassette.write_text(cassette.read_text()[:200])
        return
    if kind == "version 99":
        cassette.write_text(cassette.read_text().replace('{"version": 1,', '{"version": 99,', 1))
        return
    data = json.loads(cassette.read_text())
    response = data["interactions"][0]["response"]
    if kind == "answer not JSON":
        response["body"]["string"] = "<html>502 Bad Gateway</html>"
    else:
        response["status"] = {"code": 500, "message": "Internal Server Error"}
    cassette.write_text(json.dumps(data))


def stale_journal(base: Path, n: int) -> Row:
    """A dead run's journal with an older answer, its cassette corrupt, then a rewrite with a fresh answer.
    The stale journal is renamed to sort after any run's, so a merge in name order would apply it last."""
    project = Project(base, "stale-journal")
    journal, lines = record_then_kill(project, "Hodor (stale)", n)
    for line in lines:
        cassette = project.path / "cassettes" / MODEL / line["cassette"]
        cassette.parent.mkdir(parents=True, exist_ok=True)
        cassette.write_text("{")
    for number, path in enumerate(sorted(journal.glob("*.jsonl"))):
        path.rename(journal / f"zzzzzzzz-main-{number + 1}.jsonl")
    with FaultServer(lambda body: "Hodor (fresh)") as server:
        done = project.pytest("--record-mode=rewrite", "--trust-limit", str(n), url=credentialed(server.base_url))
    row = count(Row("stale journal, then rewrite"), project, done)
    row.items = len(project.report()["items"])
    row.affected = len({line["item_id"] for line in lines})
    row.poisoned += sum("(stale)" in answer_text(i) for by_item in cassettes(project)
                        for interactions in by_item.values() for i in interactions)
    return row


def answer_text(interaction: dict) -> str:
    return json.loads(interaction["response"]["body"]["string"])["choices"][0]["message"]["content"] or ""


@contextmanager
def tmpfs(folder: Path, options: str) -> Iterator[bool]:
    """A small tmpfs mounted on ``folder`` (False when this user cannot mount: not root)."""
    folder.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True,
                      check=False).returncode:
        yield False
        return
    try:
        yield True
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def disk_full(base: Path, n: int) -> Row | str:
    """The cassette folder fills up while recording: the run stops with one line naming the journal, prints
    its summary and report; once space is freed (the tmpfs enlarged), a replay finds every scored item."""
    project = Project(base, "disk-full")
    folder = project.path / "cassettes"
    with tmpfs(folder, "size=12k") as mounted:
        if not mounted:
            return "disk full: not tried (mounting a tmpfs needs root)"
        with FaultServer(lambda body: "Hodor") as server:
            done = project.pytest("--record-mode=once", "--trust-limit", str(n), url=credentialed(server.base_url))
        row = count(Row("cassette disk full"), project, done, expected_codes=(2,),
                    clear_words=("cannot write the journal", "free space"))
        report = project.report()
        subprocess.run(["mount", "-o", "remount,size=4m", str(folder)], check=True)
        replay = project.pytest("--trust-limit", str(n), "--trust-recorded-only", "--block-network")
        row.crashes += replay.returncode not in (0, 1)
        recorded = recorded_items(project)
    row.items = len(report["items"])
    row.affected = row.clear + row.unclear
    row.lost = sum("verdict" in item and item["id"] not in recorded for item in report["items"])
    return row


def read_only(base: Path, n: int) -> Row | str:
    """A read-only cassette folder: the first item says so, naming the journal, and the run stops."""
    project = Project(base, "read-only")
    with tmpfs(project.path / "cassettes", "ro,size=64k") as mounted:
        if not mounted:
            return "read-only cassettes: not tried (mounting a tmpfs needs root)"
        with FaultServer(lambda body: "Hodor") as server:
            done = project.pytest("--record-mode=once", "--trust-limit", str(n), url=credentialed(server.base_url))
            calls = len(server.requests)
    row = count(Row("cassette folder read-only"), project, done, expected_codes=(2,),
                clear_words=("cannot write the journal", "writable"))
    row.items = len(project.report()["items"])
    row.affected = row.clear + row.unclear
    row.crashes += calls > 4  # the first item's calls only (a v1 case has at most a few turns)
    return row


def _journaled(journal: Path) -> set[str]:
    """The items a running recording has journaled (its last line may be half-written)."""
    return {json.loads(line)["item_id"] for path in journal.glob("*.jsonl")
            for line in path.read_text().splitlines() if line.endswith("}")}


def _lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2, help="Hodor items per run (default 2)")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--only", nargs="+", metavar="WORD", help="run only the rows whose case names hold a WORD")
    args = parser.parse_args()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="trust-drill-") as tmp:
        base = Path(tmp)
        plan = ([(f"transient {f}", lambda f=f: transient(base, f, args.items)) for f in TRANSIENT]
                + [(f"lasting {f}", lambda f=f: lasting(base, f, args.items)) for f in LASTING]
                + [(f"format {f}", lambda f=f: other_format(base, f, args.items)) for f in OTHER_FORMATS]
                + [("lasting trickle", lambda: trickle(base, args.items)),
                   ("redirect", lambda: redirect(base, args.items))]
                + [("echoes the key", lambda: echoed_key(base, args.items)),
                   ("sets a cookie", lambda: cookie(base, args.items))]
                + [(f"answer {k}", lambda k=k: irregular(base, k, args.items)) for k in IRREGULAR]
                + [("endpoint down", lambda: dead_endpoint(base, 6)), ("killed", lambda: killed_run(base, 12)),
                   ("Ctrl-C", lambda: interrupted_run(base, 30))]
                + [(f"corrupt {k}", lambda k=k: corrupt_cassette(base, k, 3)) for k in CORRUPTIONS]
                + [("stale journal", lambda: stale_journal(base, 8)), ("disk full", lambda: disk_full(base, 12)),
                   ("read-only", lambda: read_only(base, 3))])
        print(_header(), flush=True)
        for name, step in plan:
            if args.only and not any(word in name for word in args.only):
                continue
            row = step()
            if isinstance(row, str):
                print(row, flush=True)
                continue
            rows.append(row)
            print(_format(row), flush=True)
    total = Row("total", *[sum(getattr(r, f) for r in rows) for f in list(asdict(Row("")))[1:]])
    print(_format(total))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in [*rows, total]], indent=1))
    return 1 if total.unclear or total.uncounted or total.lost or total.poisoned or total.secrets or total.crashes \
        else 0


def _header() -> str:
    return f"{'case':36} {'items':>5} {'affected':>8} {'recovered':>9} {'clear':>5} {'unclear':>7} " \
           f"{'uncounted':>9} {'lost':>4} {'poisoned':>8} {'secrets':>7} {'crashes':>7}"


def _format(row: Row) -> str:
    return f"{row.case:36} {row.items:5} {row.affected:8} {row.recovered:9} {row.clear:5} {row.unclear:7} " \
           f"{row.uncounted:9} {row.lost:4} {row.poisoned:8} {row.secrets:7} {row.crashes:7}"


if __name__ == "__main__":
    sys.exit(main())
