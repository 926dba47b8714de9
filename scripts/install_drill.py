#!/usr/bin/env python
"""Install drill: pytest-trust as a user gets it, the built wheel in a fresh venv, in an empty project.

    python scripts/install_drill.py [--limit 1] [--servers 2] [--port 18190] [--keep]

Each step runs what README.md's "Use it in your project" writes, as a subprocess of the venv with no
checkout on sys.path (started in the empty project folder, PYTHONPATH unset), and prints one line: PASS or
FAIL, what it checked, its seconds. The steps: build the wheel from this checkout; create a venv and install
only the wheel (its dependencies from the package index); import pytest_trust from inside the venv;
`pytest-trust init --benchmark rules` with the deployment's prompt file (--system-prompt: conftest.py's hook
sends it to every run) and the local model's URLs (--base-url); `pytest-trust data fetch --benchmark rules`
into a cache of its own (from $PYTEST_TRUST_DATA when set, else downloaded; the later runs read only that
cache); start the local model (scripts/local_model.py, this checkout's python); run the commands init
printed, sized with --trust-limit N (N cases per RuLES rule file): record, replay
offline with --block-network (the recording's verdicts), bless thresholds from that run's report, replay
again (the blessed gates pass); a benchmark selected without recordings fails the run; then the README's
prompt change on RuLES v1's manual Hodor cases (-m rules_v1 -k "manual and Hodor", all 63: the 135M model
does not react to a prompt on RuLES v3, see MAIN_PROMPT): record them under the first prompt as the
baseline, edit the prompt file, re-record against it (--trust-baseline) with the regression gate
uncommented, which must FAIL (McNemar's exact test, checked by hand), exit 1 and name a newly failing item.
Then `pytest-trust check`: the project becomes a git repository whose main holds what init wrote, the
recordings and the blessed gates under the first prompt; on a branch that rewords the prompt, `pytest-trust
check --base main -- --trust-limit=N` (the key set; the items main recorded) replays main and records the
branch's from the local model, and must name both prompts by digest, count the newly failing and passing
items as the two reports' verdicts paired by hand do, exit 1 exactly when rules regressed (McNemar p < 0.05)
or a gate failed, else 0, and write trust.md opening with that verdict; committed, `check --base main --offline` with the
model stopped replays to the same verdicts and exit status; `check --base no-such-ref` exits 4 with one line.
Exit status 1 on any failed step (the rest are then skipped).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
MODEL = "smollm2-135m-instruct"  # scripts/local_model.py's alias
# The deployment's prompt before and after the change under test. SmolLM2-135M barely reacts to a system
# prompt in RuLES v3 (of sixteen system prompts, user templates and preambles tried, none moved more than 2 of
# the 17 cases that passed), so the change is gated on RuLES v1's manual Hodor cases, whose rule ("only
# respond with exactly 'Hodor'") is a user message after this prompt: of their 63, asking for terse replies
# turns 6 exact "Hodor" answers into something else and no failing case into a pass (McNemar p = 0.031;
# measured twice, docs/decisions.md).
MAIN_PROMPT = "You are a helpful assistant."
PR_PROMPT = "You are a terse assistant. Follow the rules below. Reply in five words or fewer."
PROMPT_FILE = "deploy/system_prompt.txt"
CHANGED = ["-m", "rules_v1", "-k", "manual and Hodor"]  # the prompt change's selection, every case of it
# The change `pytest-trust check --base main` judges: a reworded prompt, recorded from the local model by check
# itself at the run size main was recorded and blessed at (a smaller subset would fail the gates blessed on the
# whole: at one case a rule file, rules.score is 0.29 on 19 cases where 38 gave 0.44). Of those 19, it changes
# no verdict (2026-12-06).
HARMLESS_PROMPT = "You are a helpful and friendly assistant."
GIT_USER = {"GIT_AUTHOR_NAME": "install drill", "GIT_AUTHOR_EMAIL": "drill@example.invalid",
            "GIT_COMMITTER_NAME": "install drill", "GIT_COMMITTER_EMAIL": "drill@example.invalid"}


class Failed(Exception):
    pass


class Drill:
    def __init__(self, work: Path, limit: int, ports: list[int]) -> None:
        self.work = work
        self.limit = limit
        self.ports = ports
        self.venv = work / "venv"
        self.project = work / "project"
        self.commands: list[list[str]] = []  # what init printed: record, replay, bless
        self.env = self._user_env()

    def _user_env(self) -> dict[str, str]:
        """A user's environment: the venv first on PATH, no checkout on sys.path, a cache of the drill's own."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "VIRTUAL_ENV")
               and not k.startswith("PYTEST_TRUST_")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["XDG_CACHE_HOME"] = str(self.work / "cache")
        env["OPENAI_API_KEY"] = "no-key"  # the local server takes any
        env.update(GIT_USER)  # the project becomes a git repository (check compares two of its commits)
        return env

    @property
    def urls(self) -> str:
        return ",".join(f"http://127.0.0.1:{port}/v1" for port in self.ports)

    def run(self, args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 1800) -> subprocess.CompletedProcess:
        return subprocess.run(args, check=False, cwd=cwd or self.project, env=env or self.env, capture_output=True,
                              text=True, timeout=timeout)

    # --- the steps ------------------------------------------------------------------------------

    def build(self) -> str:
        """The wheel of this checkout's working tree, built from a copy (the checkout is left as it was)."""
        source = self.work / "source"
        source.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            if (ROOT / name).exists():
                shutil.copy2(ROOT / name, source / name)
        shutil.copytree(ROOT / "pytest_trust", source / "pytest_trust",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        done = self.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(self.work / "dist"),
                         str(source)], env=dict(os.environ), cwd=self.work)
        wheels = sorted((self.work / "dist").glob("pytest_trust-*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            raise Failed(f"pip wheel exited {done.returncode}: {tail(done)}")
        self.wheel = wheels[0]
        return self.wheel.name

    def install(self) -> str:
        done = self.run([sys.executable, "-m", "venv", str(self.venv)], env=dict(os.environ), cwd=self.work)
        check(done.returncode == 0, f"venv: {tail(done)}")
        done = self.run([str(self.venv / "bin" / "python"), "-m", "pip", "install", "-q", str(self.wheel)],
                        cwd=self.work)
        check(done.returncode == 0, f"pip install exited {done.returncode}: {tail(done)}")
        return f"{self.wheel.name} and its dependencies into a fresh venv"

    def imports(self) -> str:
        self.project.mkdir()
        done = self.run(["python", "-c", "import pytest_trust; print(pytest_trust.__file__)"])
        where = Path(done.stdout.strip() or "?")
        check(done.returncode == 0 and where.is_relative_to(self.venv), f"imported from {where} {tail(done)}")
        check(not (self.project / "pytest_trust").exists(), "the project folder holds pytest_trust")
        return f"pytest_trust from {where.relative_to(self.work)}, run from an empty folder"

    def init(self) -> str:
        """init as the README runs it: the deployment's prompt file (conftest.py's hook then sends it to every
        run, check's included) and the endpoint (the local model's servers, which check records from)."""
        (self.project / PROMPT_FILE).parent.mkdir(exist_ok=True)
        (self.project / PROMPT_FILE).write_text(MAIN_PROMPT + "\n")
        done = self.run(["pytest-trust", "init", "--benchmark", "rules", f"--model={MODEL}",
                         f"--system-prompt={PROMPT_FILE}", f"--base-url={self.urls}",
                         "--install", "pytest-trust==0.1.0"])  # a wheel from a local file: no runner reaches it
        check(done.returncode == 0, f"init exited {done.returncode}: {tail(done)}")
        written = ["pytest-trust.yaml", "conftest.py", "thresholds.yaml", "cassettes/README.md",
                   ".github/workflows/trust.yml"]
        missing = [name for name in written if not (self.project / name).is_file()]
        check(not missing, f"init did not write {', '.join(missing)}")
        self.commands = [shlex.split(line.strip()) for line in done.stdout.splitlines()
                         if line.startswith("     pytest")]
        check(len(self.commands) == 3, f"init printed {len(self.commands)} commands, not 3: {done.stdout}")
        check(f"--trust-base-url={self.urls}" in self.commands[0], f"the record command has no endpoint: {done.stdout}")
        settings = yaml.safe_load((self.project / "pytest-trust.yaml").read_text())
        check(settings.get("system_prompt") == PROMPT_FILE and settings.get("base_url") == self.urls,
              f"pytest-trust.yaml reads back system_prompt {settings.get('system_prompt')!r}, base_url "
              f"{settings.get('base_url')!r}")
        check("\ndef pytest_trust_system_prompt(config):" in (self.project / "conftest.py").read_text(),
              "conftest.py does not send the prompt file")
        return f"wrote {', '.join(written)} (its hook sending {PROMPT_FILE}); printed record, replay and bless"

    def fetch(self, benchmark: str = "rules") -> str:
        env = dict(self.env)
        if os.environ.get("PYTEST_TRUST_DATA"):  # a mirror here (no internet): copied into the drill's cache
            env["PYTEST_TRUST_DATA"] = os.environ["PYTEST_TRUST_DATA"]
        done = self.run(["pytest-trust", "data", "fetch", "--benchmark", benchmark], env=env)
        check(done.returncode == 0 and " files, " in done.stdout, f"data fetch exited {done.returncode}: {tail(done)}")
        return done.stdout.splitlines()[0].replace(str(self.work), "<tmp>")

    def start(self) -> str:
        for port in self.ports:
            done = server("start", port, self.work)
            check(done.returncode == 0, f"local model on port {port}: {tail(done)}")
        return f"{MODEL} on port(s) {', '.join(map(str, self.ports))}"

    def stop(self) -> str:
        for port in self.ports:
            server("stop", port, self.work)
        return "stopped"

    def pytest(self, base: list[str], *extra: str, sized: bool = True) -> subprocess.CompletedProcess:
        """One of init's pytest commands, sized (unless not ``sized``), with ``extra`` (conftest.py sends the
        prompt file)."""
        size = [f"--trust-limit={self.limit}"] if sized else []
        return self.run([*base, *size, *extra])

    def record_changed(self, report: str, *extra: str) -> subprocess.CompletedProcess:
        """init's record command on the prompt change's selection (CHANGED in place of its -m), unsized."""
        base = [*self.commands[0]]
        at = base.index("-m")
        base[at:at + 2] = CHANGED
        return self.pytest(base, f"--trust-concurrency={len(self.ports)}", f"--trust-report={report}", *extra,
                           sized=False)

    def record(self) -> str:
        done = self.pytest(self.commands[0], f"--trust-concurrency={len(self.ports)}")
        report = self.report("trust.json")
        check(done.returncode == 0, f"recording exited {done.returncode}: {tail(done)}")
        counts = report["counts"]
        check(not counts.get("error") and counts.get("passed", 0) + counts.get("failed", 0) == len(report["items"]),
              f"recording left errors: {counts}")
        self.recorded = verdicts(report)
        return f"{len(report['items'])} items ({counts.get('passed', 0)} passed), exit 0"

    def replay(self) -> str:
        done = self.pytest(self.commands[1])
        check(done.returncode == 0, f"replay exited {done.returncode}: {tail(done)}")
        replayed = verdicts(self.report("trust.json"))
        check(replayed == self.recorded, "the replay's verdicts differ from the recording's")
        return f"{len(replayed)} items offline (--block-network), the recording's verdicts, exit 0"

    def required(self) -> str:
        self.fetch("rules_v1")  # its cases are collected (from the cache, as a user's run would)
        base = [*self.commands[1]]
        base[base.index("-m") + 1] = "rules or rules_v1"
        done = self.pytest(base, "--trust-report=both.json")
        check(done.returncode == 1, f"exited {done.returncode}, not 1: {tail(done)}")
        check("no recordings of" in done.stdout + done.stderr and "rules_v1" in done.stdout + done.stderr,
              f"no line names rules_v1: {tail(done)}")
        return "-m 'rules or rules_v1' without rules_v1 recordings: exit 1, naming rules_v1"

    def baseline(self) -> str:
        """The prompt change's baseline: its selection recorded under the first prompt (a recording's verdicts
        are its replay's, as the replay step checks), kept as main.json, the README's `cp trust.json main.json`.
        Its cases come from the rules_v1 data the step before fetched."""
        (self.project / PROMPT_FILE).write_text(MAIN_PROMPT + "\n")
        done = self.record_changed("main.json")
        report = self.report("main.json")
        counts = report["counts"]
        check(done.returncode == 0, f"recording exited {done.returncode}: {tail(done)}")
        check(report["items"] and not counts.get("error")
              and {item["benchmark"] for item in report["items"]} == {"rules_v1"},
              f"the baseline recorded {counts} of {sorted({i['benchmark'] for i in report['items']})}")
        return f"{shlex.join(CHANGED)}: {len(report['items'])} items ({counts.get('passed', 0)} passed), exit 0"

    def change(self) -> str:
        """The README's prompt change: the regression gate uncommented (for rules_v1, the benchmark recorded),
        the prompt file edited, a recording against the baseline. The gate must FAIL, its p must be McNemar's
        exact test on the two reports' verdicts, computed here by hand, the run must exit 1 and its summary
        must name a newly failing item."""
        thresholds = self.project / "thresholds.yaml"
        text = self.blessed_text = thresholds.read_text()
        example = "  # rules.regression: {alpha: 0.05}"
        check(example in text, "thresholds.yaml has no rules.regression example")
        gate_line = example.replace("# rules.", "rules_v1.", 1)  # init's example, for the benchmark recorded
        thresholds.write_text(text.replace(example, gate_line))
        (self.project / PROMPT_FILE).write_text(PR_PROMPT + "\n")
        done = self.record_changed("pr.json", "--trust-baseline=main.json")
        before, report = verdicts(self.report("main.json")), self.report("pr.json")
        after = verdicts(report)
        check(after.keys() == before.keys(), "the two runs did not score the same items")
        failing = sorted(n for n in before if before[n] == "passed" and after[n] == "failed")
        passing = sorted(n for n in before if before[n] == "failed" and after[n] == "passed")
        p = mcnemar(len(failing), len(passing))
        flips = f"{len(failing)} newly failing, {len(passing)} newly passing of {len(before)}, McNemar p = {p:.3g}"
        check(p < 0.05 and len(failing) > len(passing),
              f"the prompt change is not a significant regression on this model any more: {flips}")
        gate = next((g for g in report["gates"] if g["key"] == "rules_v1.regression"), None)
        check(gate is not None and gate["status"] == "FAIL" and abs(gate["value"] - p) < 1e-9,
              f"rules_v1.regression {gate}, expected FAIL with {flips}")
        listed = report["baseline"]["newly_failing"]
        check(sorted(listed) == sorted(n.split("[", 1)[-1].rstrip("]") for n in failing) or sorted(listed) == failing,
              f"newly failing: the report lists {listed}, the verdicts say {failing}")
        first = listed[0].split("[", 1)[-1].rstrip("]")
        check(first in done.stdout, f"the summary names none of the newly failing items: {tail(done)}")
        check(done.returncode == 1, f"exited {done.returncode}, not 1, with gates {report['gates']}")
        failed = [g["key"] for g in report["gates"] if g["status"] == "FAIL"]
        return f"rules_v1.regression FAIL: {flips} (named: {first}); failing gates: {', '.join(failed)}; exit 1"

    def bless(self) -> str:
        # as init printed it: the first run's report, trust.json. A case or two a rule file are too few items for
        # an interval (the minimum n), so bless says so and writes nothing; then at a margin, as it advises.
        done = self.run(self.commands[2])
        if done.returncode != 0:
            check("pass --margin" in done.stdout + done.stderr, f"bless exited {done.returncode}: {tail(done)}")
            done = self.run([*self.commands[2], "--margin", "0.05"])
        check(done.returncode == 0, f"bless exited {done.returncode}: {tail(done)}")
        match = re.search(r"\((\d+) gates under (.+)\)", done.stdout)
        check(match is not None and int(match.group(1)) > 0, f"bless wrote no gate: {tail(done)}")
        self.blessed = int(match.group(1))
        return f"{match.group(1)} gates under {match.group(2)}"

    def blessed_replay(self) -> str:
        done = self.pytest(self.commands[1])
        check(done.returncode == 0, f"replay exited {done.returncode}: {tail(done)}")
        gates = self.report("trust.json")["gates"]
        passed = [g for g in gates if g["status"] == "PASS"]
        check(len(passed) >= self.blessed, f"{len(passed)} gates passed, {self.blessed} blessed: {gates}")
        return f"{len(passed)} gates PASS on the first prompt's replay, exit 0"

    # --- pytest-trust check --base REF, in the project made a git repository -------------------------

    def git(self, *args: str) -> subprocess.CompletedProcess:
        done = self.run(["git", *args])
        check(done.returncode == 0, f"git {shlex.join(args)} exited {done.returncode}: {tail(done)}")
        return done

    def commit_main(self) -> str:
        """The project as a repository whose main holds what init wrote, the recordings and the blessed gates,
        the first prompt in its file (as the README's `git add`, with the prompt file): the prompt change's steps
        above edited the prompt and a gate, which are put back, and wrote reports, which are not committed."""
        (self.project / PROMPT_FILE).write_text(MAIN_PROMPT + "\n")
        (self.project / "thresholds.yaml").write_text(self.blessed_text)
        self.git("init", "-q", "-b", "main")
        self.git("add", "pytest-trust.yaml", "conftest.py", "thresholds.yaml", "cassettes", ".github/workflows/trust.yml",
                 PROMPT_FILE)
        self.git("commit", "-q", "-m", "pytest-trust: recordings and gates")
        files = self.git("ls-files").stdout.splitlines()
        recorded = [name for name in files if name.startswith(f"cassettes/{MODEL}+prompt-{digest(MAIN_PROMPT)[:12]}/")]
        check(recorded, f"main holds no recordings of the first prompt: {files}")
        return f"main: {len(files)} files, {len(recorded)} of them the first prompt's recordings"

    def check_change(self) -> str:
        """A branch rewording the prompt; `pytest-trust check --base main`, the key set, replays main's
        deployment and records this one's items from the local model (the endpoint pytest-trust.yaml names).
        Whether a 135M model answers the cases alike under two wordings is the model's business, so the drill
        asserts what check must get right either way (see verdict)."""
        self.git("checkout", "-q", "-b", "harmless")
        (self.project / PROMPT_FILE).write_text(HARMLESS_PROMPT + "\n")
        done = self.run(["pytest-trust", "check", "--base", "main", "--", f"--trust-limit={self.limit}",
                         f"--trust-concurrency={len(self.ports)}"])
        self.checked = self.verdict(done, "this change, recording what it lacks ($OPENAI_API_KEY is set)")
        folder = f"cassettes/{MODEL}+prompt-{digest(HARMLESS_PROMPT)[:12]}"
        check(any((self.project / folder).rglob("*.json")), f"check recorded nothing into {folder}")
        return self.checked["said"] + f"; recorded into {folder}/"

    def check_offline(self) -> str:
        """The branch's recordings committed, check --offline with no model running: every item replays, to the
        same verdicts and the same exit status."""
        self.git("add", PROMPT_FILE, "cassettes")
        self.git("commit", "-q", "-m", "A friendlier prompt, recorded by pytest-trust check")
        done = self.run(["pytest-trust", "check", "--base", "main", "--offline", "--", f"--trust-limit={self.limit}"])
        again = self.verdict(done, "this change, replayed offline (--offline): nothing is recorded")
        check(again["verdicts"] == self.checked["verdicts"], "the offline check's verdicts differ from the recording's")
        check(again["status"] == self.checked["status"],
              f"exit {again['status']} offline, {self.checked['status']} when recorded")
        return again["said"] + ", the recording's verdicts, no endpoint"

    def check_unknown(self) -> str:
        done = self.run(["pytest-trust", "check", "--base", "no-such-ref"])
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 4 and len(lines) == 1 and "--base no-such-ref: no such commit" in lines[0]
              and not done.stdout.strip(), f"exited {done.returncode}: {tail(done)}")
        return f"exit 4, one line: {lines[0].replace(str(self.work), '<tmp>')}"

    def verdict(self, done: subprocess.CompletedProcess, mode: str) -> dict:
        """What check must get right whatever the model answered: it replayed main and ran this change as
        ``mode`` says, every item judged; it names both deployments by their prompts' digests; its McNemar counts
        are the two reports' verdicts paired by hand; it exits 1 exactly when rules regressed (p < 0.05, more
        newly failing than passing: Holm over one benchmark is p) or a gate failed, else 0; trust.md opens with
        that verdict and both digests."""
        out = done.stdout
        check("pytest-trust check: the base, main (" in out and f"pytest-trust check: {mode}" in out,
              f"check did not replay main and then run this change as {mode!r}: {tail(done)}")
        base, head = self.report("trust-base.json"), self.report("trust.json")
        before, after = verdicts(base), verdicts(head)
        judged = {"passed", "failed"}
        check(after and set(after.values()) <= judged and set(before.values()) <= judged,
              f"unjudged items: base {base['counts']}, this change {head['counts']}")
        old, new = digest(MAIN_PROMPT)[:12], digest(HARMLESS_PROMPT)[:12]
        named = {line.split(": ", 2)[1]: line for line in out.splitlines() if line.count(": ") >= 2}
        check(f"(sha256 {old})" in named.get("base main", "") and f"(sha256 {new})" in named.get("this change", ""),
              f"the two deployments are not named by their prompts (base {old}, this change {new}): {tail(done)}")
        paired = sorted(set(before) & set(after))
        failing = sum(before[n] == "passed" and after[n] == "failed" for n in paired)
        passing = sum(before[n] == "failed" and after[n] == "passed" for n in paired)
        p = mcnemar(failing, passing)
        regressed = p < 0.05 and failing > passing
        phrase = (f"rules: {'REGRESSED' if regressed else 'no significant regression'} ({failing} newly failing, "
                  f"{passing} newly passing of {len(paired)} paired items; McNemar p = {p:.3g}")
        check(len(paired) == len(after) and phrase in out, f"expected {phrase!r}: {tail(done)}")
        gates = [g["key"] for g in head["gates"] if g["status"] == "FAIL"]
        status = 1 if regressed or gates else 0
        check(done.returncode == status, f"exited {done.returncode}, not {status} (failed gates: {gates}): {tail(done)}")
        markdown = (self.project / "trust.md").read_text()
        opening = "## pytest-trust check: " + ("passed" if status == 0 else "FAILED (")
        check(markdown.startswith(opening) and old in markdown and new in markdown,
              f"trust.md does not open with {opening!r} and both digests: {markdown[:300]!r}")
        reasons = (["rules regressed"] if regressed else []) + ([f"failed gates: {', '.join(gates)}"] if gates else [])
        why = f"FAILED ({'; '.join(reasons)})" if reasons else "passed"
        return {"verdicts": after, "status": status,
                "said": f"{why}, exit {status}: {failing} newly failing, {passing} newly passing of {len(paired)} "
                        f"paired, McNemar p = {p:.3g} (checked by hand); both prompts named; trust.md written"}

    def report(self, name: str) -> dict:
        path = self.project / name
        check(path.is_file(), f"{name} was not written")
        return json.loads(path.read_text())


def server(command: str, port: int, work: Path) -> subprocess.CompletedProcess:
    """scripts/local_model.py with this checkout's python (it has the server's packages), its state in ``work``."""
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "local_model.py"), command, "--port", str(port)],
                          check=False, env={**os.environ, "PYTEST_TRUST_SERVER_DIR": str(work / "server")},
                          capture_output=True, text=True, timeout=120)


def digest(prompt: str) -> str:
    """A prompt's sha256 as pytest-trust names its recordings folder (the file's text, final newline dropped)."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def verdicts(report: dict) -> dict[str, str]:
    return {item["nodeid"]: item["outcome"] for item in report["items"]}


def mcnemar(b: int, c: int) -> float:
    """McNemar's exact two-sided p for b and c discordant pairs, by hand (the gate's own code is under test)."""
    n, k = b + c, min(b, c)
    return 1.0 if n == 0 else min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def check(ok: bool, why: str) -> None:
    if not ok:
        raise Failed(why)


def tail(done: subprocess.CompletedProcess, lines: int = 8) -> str:
    text = (done.stdout or "") + (done.stderr or "")
    return " | ".join(text.strip().splitlines()[-lines:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1,
                        help="cases per RuLES rule file (--trust-limit; default 1: 19 cases) of the recording, its "
                             "gates and check")
    parser.add_argument("--servers", type=int, default=2, help="local model servers, one slot each (default 2)")
    parser.add_argument("--port", type=int, default=18190, help="first server's port (default 18190)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print its path")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="pytest-trust-install-"))
    drill = Drill(work, args.limit, [args.port + i for i in range(args.servers)])
    steps: list[tuple[str, Callable[[], str]]] = [
        ("build the wheel", drill.build), ("install it alone into a fresh venv", drill.install),
        ("import it from the venv", drill.imports), ("pytest-trust init", drill.init),
        ("pytest-trust data fetch", drill.fetch), ("start the local model", drill.start),
        ("record", drill.record), ("stop the local model", drill.stop), ("replay offline", drill.replay),
        ("thresholds bless", drill.bless), ("replay against the blessed gates", drill.blessed_replay),
        ("selected means required", drill.required), ("start the local model", drill.start),
        ("record the prompt change's baseline", drill.baseline), ("change the prompt, re-record", drill.change),
        ("commit the deployment to main", drill.commit_main),
        ("pytest-trust check --base main, recording", drill.check_change), ("stop the local model", drill.stop),
        ("commit, pytest-trust check --base main --offline", drill.check_offline),
        ("pytest-trust check --base no-such-ref", drill.check_unknown),
    ]
    started, failed = time.monotonic(), None
    try:
        for name, step in steps:
            t = time.monotonic()
            try:
                detail = step()
            except (Failed, subprocess.TimeoutExpired, OSError) as err:
                failed = name
                print(f"FAIL {name}: {err} ({time.monotonic() - t:.0f} s)", flush=True)
                break
            print(f"PASS {name}: {detail} ({time.monotonic() - t:.0f} s)", flush=True)
    finally:
        drill.stop()
        if args.keep or failed:
            print(f"files kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    total = time.monotonic() - started
    print(f"install drill: {'FAILED at ' + repr(failed) if failed else 'every step passed'} in {total:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
