#!/usr/bin/env python
"""Install drill: pytest-trust as a user gets it, the built wheel in a fresh venv, in an empty project.

    python scripts/install_drill.py [--limit 2] [--servers 2] [--port 18190] [--keep]

Each step runs what README.md's "Use it in your project" writes, as a subprocess of the venv with no
checkout on sys.path (started in the empty project folder, PYTHONPATH unset), and prints one line: PASS or
FAIL, what it checked, its seconds. The steps: build the wheel from this checkout; create a venv and install
only the wheel (its dependencies from the package index); import pytest_trust from inside the venv;
`pytest-trust init --benchmark rules`; `pytest-trust data fetch --benchmark rules` into a cache of its own
(from $PYTEST_TRUST_DATA when set, else downloaded; the later runs read only that cache); start the local
model (scripts/local_model.py, this checkout's python); run the commands init printed, sized with
--trust-limit N (N cases per RuLES rule file) and given the deployment's system prompt file: record, replay
offline with --block-network (the recording's verdicts), bless thresholds from that run's report, replay
again (the blessed gates pass); a benchmark selected without recordings fails the run; then the README's
prompt change on RuLES v1's manual Hodor cases (-m rules_v1 -k "manual and Hodor", all 63: the 135M model
does not react to a prompt on RuLES v3, see MAIN_PROMPT): record them under the first prompt as the
baseline, edit the prompt file, re-record against it (--trust-baseline) with the regression gate
uncommented, which must FAIL (McNemar's exact test, checked by hand), exit 1 and name a newly failing item.
Exit status 1 on any failed step (the rest are then skipped).
"""

from __future__ import annotations

import argparse
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
        return env

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
        done = self.run(["pytest-trust", "init", "--benchmark", "rules", f"--model={MODEL}",
                         "--install", "pytest-trust==0.1.0"])  # a wheel from a local file: no runner reaches it
        check(done.returncode == 0, f"init exited {done.returncode}: {tail(done)}")
        written = ["pytest-trust.yaml", "conftest.py", "thresholds.yaml", "cassettes/README.md",
                   ".github/workflows/trust.yml"]
        missing = [name for name in written if not (self.project / name).is_file()]
        check(not missing, f"init did not write {', '.join(missing)}")
        self.commands = [shlex.split(line.strip()) for line in done.stdout.splitlines()
                         if line.startswith("     pytest")]
        check(len(self.commands) == 3, f"init printed {len(self.commands)} commands, not 3: {done.stdout}")
        return f"wrote {', '.join(written)}; printed record, replay and bless"

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
        """One of init's pytest commands, sized (unless not ``sized``), with the deployment's prompt and ``extra``."""
        size = [f"--trust-limit={self.limit}"] if sized else []
        return self.run([*base, *size, f"--trust-system-prompt={PROMPT_FILE}", *extra])

    def record_changed(self, report: str, *extra: str) -> subprocess.CompletedProcess:
        """init's record command on the prompt change's selection (CHANGED in place of its -m), unsized."""
        base = [*self.commands[0]]
        at = base.index("-m")
        base[at:at + 2] = CHANGED
        urls = ",".join(f"http://127.0.0.1:{port}/v1" for port in self.ports)
        return self.pytest(base, f"--trust-base-url={urls}", f"--trust-concurrency={len(self.ports)}",
                           f"--trust-report={report}", *extra, sized=False)

    def record(self) -> str:
        (self.project / PROMPT_FILE).parent.mkdir(exist_ok=True)
        (self.project / PROMPT_FILE).write_text(MAIN_PROMPT + "\n")
        urls = ",".join(f"http://127.0.0.1:{port}/v1" for port in self.ports)
        done = self.pytest(self.commands[0], f"--trust-base-url={urls}", f"--trust-concurrency={len(self.ports)}")
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
        text = thresholds.read_text()
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
        # as init printed it: the first run's report, trust.json. Two cases a rule file are too few items for
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

    def report(self, name: str) -> dict:
        path = self.project / name
        check(path.is_file(), f"{name} was not written")
        return json.loads(path.read_text())


def server(command: str, port: int, work: Path) -> subprocess.CompletedProcess:
    """scripts/local_model.py with this checkout's python (it has the server's packages), its state in ``work``."""
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "local_model.py"), command, "--port", str(port)],
                          check=False, env={**os.environ, "PYTEST_TRUST_SERVER_DIR": str(work / "server")},
                          capture_output=True, text=True, timeout=120)


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
    parser.add_argument("--limit", type=int, default=2, help="cases per RuLES rule file (--trust-limit; default 2)")
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
        ("stop the local model", drill.stop),
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
