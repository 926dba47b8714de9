"""What ``check`` says of a change: which deployment each side ran, the paired tests, the items that moved.
Plain text for the terminal, Markdown for ``trust.md`` (a pull request's job summary or comment)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from .verdict import Tested

IDS_SHOWN = 20  # per list, in trust.md; trust.json lists every one


def deployment(run: Mapping[str, Any]) -> str:
    """A run's deployment in one phrase: the model, its prompt (or deployment hook), its application target and the
    project's files the benchmarks read (trust_rules.yaml), each with its digest."""
    prompt, target = run.get("system_prompt"), run.get("target")
    shaped = "no system prompt"
    if prompt:
        shapes = ", ".join(prompt.get("shapes") or ["system prompt"])
        shaped = f"{shapes} from {prompt.get('source')} (sha256 {str(prompt.get('sha256'))[:12]})"
    app = ""
    if target:
        version = f"version {target.get('version')}, " if target.get("version") else ""
        app = f", application {target.get('name')} ({version}sha256 {str(target.get('sha256'))[:12]})"
    files = "".join(f", {PurePath(str(file.get('path'))).name} (sha256 {str(file.get('sha256'))[:12]})"
                    for file in (run.get("files") or {}).values())
    return f"model {run.get('model')}, {shaped}{app}{files}"


def same_deployment(base: Mapping[str, Any], head: Mapping[str, Any]) -> bool:
    def digest(run: Mapping[str, Any]) -> tuple:
        files = {key: file.get("sha256") for key, file in (run.get("files") or {}).items()}
        return (run.get("model"), (run.get("system_prompt") or {}).get("sha256"), (run.get("target") or {}).get("sha256"),
                files)

    return digest(base) == digest(head)


def lines(ref: str, base_run: Mapping[str, Any] | None, head_run: Mapping[str, Any], tests: Sequence[Tested],
          alpha: float) -> list[str]:
    """The change in a few plain lines (the terminal)."""
    out = [f"base {ref}: {deployment(base_run) if base_run else 'no recordings: nothing to compare with'}",
           f"this change: {deployment(head_run)}"]
    if base_run is not None and same_deployment(base_run, head_run):
        out.append("same deployment on both sides: the change leaves what the benchmarks send as it was")
    for test in tests:
        out.append(f"{test.benchmark}: {_test_phrase(test, alpha)}")
    return out


def _test_phrase(test: Tested, alpha: float) -> str:
    if test.incomparable:
        return f"not compared: {test.incomparable}"
    verdict = "REGRESSED" if test.regressed else "no significant regression"
    return (f"{verdict} ({test.newly_failing} newly failing, {test.newly_passing} newly passing of {test.paired} "
            f"paired items; McNemar p = {test.p:.3g}, Holm-adjusted {test.adjusted:.3g}, alpha {alpha:g})")


def markdown(ref: str, base_run: Mapping[str, Any] | None, head_run: Mapping[str, Any],
             baseline: Mapping[str, Any], tests: Sequence[Tested], alpha: float, status: str) -> str:
    """The change's section of trust.md, above the run's own report."""
    out = [f"## pytest-trust check: {status}", "",
           "| side | deployment |", "|---|---|",
           f"| base `{ref}` | {deployment(base_run) if base_run else 'no recordings: nothing to compare with'} |",
           f"| this change | {deployment(head_run)} |", ""]
    if base_run is not None and same_deployment(base_run, head_run):
        out += ["Same deployment on both sides: the change leaves what the benchmarks send as it was.", ""]
    if tests:
        out += ["| benchmark | paired | newly failing | newly passing | McNemar p | Holm-adjusted | verdict |",
                "|---|---:|---:|---:|---:|---:|---|"]
        for test in tests:
            verdict = ("not compared" if test.incomparable else "**regressed**" if test.regressed
                       else "no significant regression")
            out.append(f"| {test.benchmark} | {test.paired} | {test.newly_failing} | {test.newly_passing} | "
                       f"{test.p:.3g} | {test.adjusted:.3g} | {verdict} |")
        out += ["", (f"Alpha {alpha:g} across the benchmarks (Holm's method); an item is paired when it was judged "
                "on both sides."), ""]
    for title, key in (("Regressed items (passed at the base, fail now)", "newly_failing"),
                       ("Improved items (failed at the base, pass now)", "newly_passing"),
                       ("Items that error now", "newly_erroring")):
        ids = [entry["id"] if isinstance(entry, Mapping) else str(entry) for entry in baseline.get(key, [])]
        if ids:
            shown = "".join(f"- `{item}`\n" for item in ids[:IDS_SHOWN])
            more = f"- ... and {len(ids) - IDS_SHOWN} more (trust.json lists every one)\n" if len(ids) > IDS_SHOWN else ""
            out += [f"<details><summary>{title}: {len(ids)}</summary>", "", shown + more, "</details>", ""]
    return "\n".join(out) + "\n"
