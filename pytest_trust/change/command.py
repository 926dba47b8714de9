"""``pytest-trust check --base REF``: the two runs, their pairing and the verdict, as one command.

REF's deployment is replayed offline from its own recordings in a worktree (items it never recorded are left
out); the working tree's is run against that report as its baseline, recording what it lacks when the
endpoint's key is in the environment (never with ``--offline``), else replaying and naming what is
unrecorded. Both are ordinary pytest runs of the installed suites, so they run as the workflow and a laptop do.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..benchmarks import gate_keys
from ..cli import scaffold
from ..errors import UsageProblem
from ..results.gates import load_thresholds
from ..run.hints import NO_RECORDINGS
from . import git, project, summary
from .verdict import DEFAULT_ALPHA, verdicts

OK, FAILED, INTERRUPTED, USAGE = 0, 1, 2, 4


@dataclass(frozen=True)
class Request:
    """What ``check`` was asked: the base, the project folder, the outputs and pytest's extra arguments."""

    base: str
    directory: Path
    report: Path
    markdown: Path
    offline: bool = False
    pytest_args: Sequence[str] = ()


def run(request: Request, write: Callable[[str], None] = print) -> int:
    """The verdict as an exit status (README, "Exit statuses"); UsageProblem for what the user must fix."""
    directory = request.directory.resolve()
    settings = project.load(directory)
    root = git.repository_root(directory)
    sha = git.resolve(request.base, root)
    alpha = _alpha(directory, settings["model"])
    chosen = [*scaffold.plan_of(directory, settings).selection, "--model", settings["model"]]
    report, markdown = (directory / request.report), (directory / request.markdown)
    base_report = report.with_name(f"{report.stem}-base{report.suffix}")
    base_report.unlink(missing_ok=True)
    with git.worktree(sha, root) as tree:
        base_dir = tree / directory.relative_to(root)
        if (base_dir / "cassettes").is_dir():
            write(f"pytest-trust check: the base, {request.base} ({sha[:12]}), replayed offline from its recordings")
            status, _ = _pytest(base_dir, [*chosen, "--block-network", "--trust-recorded-only", "--trust-soft",
                                        "-p", "no:cacheprovider", "-q", "--tb=no", "-rN",
                                        f"--trust-report={base_report}"])
            if not base_report.is_file():
                raise UsageProblem(f"check: the run of {request.base} ({sha[:12]}) wrote no report (exit status "
                                   f"{status}); its output above says why")
        else:
            write(f"pytest-trust check: {request.base} ({sha[:12]}) has no {directory.relative_to(root) / 'cassettes'}"
                  " folder: nothing to compare with, this change is gated alone")
    key = os.environ.get(settings["api_key_env"])
    recording = bool(key) and not request.offline
    head = [*chosen, f"--trust-report={report}", f"--trust-markdown={markdown}", "-q", "--tb=no", "-rN"]
    if base_report.is_file():
        head.append(f"--trust-baseline={base_report}")
    if "--trust-strict" not in request.pytest_args:
        head.append("--trust-soft")  # items failing on both sides are the benchmark's, not the change's
    if settings["api_key_env"] != project.DEFAULT_KEY_ENV:
        head.append(f"--trust-api-key-env={settings['api_key_env']}")
    if recording:
        head += ["--record-mode=new_episodes"] + ([f"--trust-base-url={settings['base_url']}"]
                                                   if settings["base_url"] else [])
        write(f"pytest-trust check: this change, recording what it lacks (${settings['api_key_env']} is set)")
    else:
        why = "--offline" if request.offline else f"${settings['api_key_env']} is not set"
        write(f"pytest-trust check: this change, replayed offline ({why}): nothing is recorded")
        head.append("--block-network")
    report.unlink(missing_ok=True)
    status, errors = _pytest(directory, [*head, *request.pytest_args], keep_errors=True)
    if status == USAGE and NO_RECORDINGS in errors and not recording:  # the change's deployment is new
        write(f"pytest-trust check: FAILED: this change cannot be judged offline: nothing of it is recorded; "
              f"record it with ${settings['api_key_env']} set (`pytest-trust check --base {request.base}` "
              f"again, or `{_record_command(chosen, settings)}`) and commit cassettes/")
        return FAILED
    if not report.is_file():
        write(f"pytest-trust check: the run wrote no report (exit status {status}); its output above says why")
        return status if status not in (OK, FAILED) else INTERRUPTED
    return _conclude(request, json.loads(report.read_text(encoding="utf-8")), base_report, markdown, alpha,
                     status, recording, chosen, settings, write)


def _conclude(request: Request, head: dict[str, Any], base_report: Path, markdown: Path, alpha: float,
              status: int, recording: bool, chosen: list[str], settings: dict[str, Any],
              write: Callable[[str], None]) -> int:
    base_run = json.loads(base_report.read_text(encoding="utf-8"))["run"] if base_report.is_file() else None
    baseline = head.get("baseline") or {}
    tests = verdicts(baseline.get("tests") or {}, alpha)
    misses = sum(1 for item in head.get("items", []) if item.get("error") == "miss")
    regressed = [test.benchmark for test in tests if test.regressed]
    for line in summary.lines(request.base, base_run, head["run"], tests, alpha):
        write(f"pytest-trust check: {line}")
    if misses and not recording:
        write(f"pytest-trust check: {misses} items of this change are not recorded, so it cannot be judged "
              f"offline: record them with ${settings['api_key_env']} set (`pytest-trust check --base "
              f"{request.base}` again, or `{_record_command(chosen, settings)}`) and commit cassettes/")
    if status not in (OK, FAILED):
        verdict, final = f"the run ended with exit status {status}", status
    elif regressed or status == FAILED or misses:
        why = ([f"regressed: {', '.join(regressed)}"] if regressed else []) + \
              (["a gate failed or an item errored"] if status == FAILED else [])
        verdict, final = f"FAILED ({'; '.join(why) or 'unrecorded items'})", FAILED
    else:
        verdict, final = "passed", OK
    section = summary.markdown(request.base, base_run, head["run"], baseline, tests, alpha, verdict)
    body = markdown.read_text(encoding="utf-8") if markdown.is_file() else ""
    markdown.write_text(section + "\n" + body, encoding="utf-8")
    write(f"pytest-trust check: {verdict}; written: {request.report}, {request.markdown}")
    return final


def _alpha(directory: Path, model: str) -> float:
    """settings.alpha of the project's thresholds file (a bad file is the usage error a run would give)."""
    path = directory / "thresholds.yaml"
    if not path.is_file():
        return DEFAULT_ALPHA
    return float(load_thresholds(path, model, gate_keys()).settings.get("alpha", DEFAULT_ALPHA))


def _record_command(chosen: list[str], settings: dict[str, Any]) -> str:
    return shlex.join(["pytest", *chosen, "--record-mode=new_episodes"]
                      + ([f"--trust-base-url={settings['base_url']}"] if settings["base_url"] else []))


def _pytest(cwd: Path, args: list[str], keep_errors: bool = False) -> tuple[int, str]:
    """A pytest run's exit status (and, with ``keep_errors``, its stderr, passed on as it was)."""
    done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, check=False, text=True,
                          stderr=subprocess.PIPE if keep_errors else None)
    if keep_errors and done.stderr:
        sys.stderr.write(done.stderr)
    return done.returncode, done.stderr or ""
