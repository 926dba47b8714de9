"""``pytest-trust.yaml``: what a project runs (model, suites, run size, endpoint), written by ``init`` and read by
``check``, so that one command needs no other flag and the workflow, a laptop and ``check`` run the same thing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..errors import UsageProblem

FILE = "pytest-trust.yaml"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
KEYS = {  # key -> what it holds, for the file's comments and for a bad key's message
    "model": "--model: the recordings' folder and the requests' model",
    "benchmarks": "the suites (pytest markers) run; leave out for every registered suite",
    "profile": "--trust-profile: smoke, standard or full; leave out for every item",
    "base_url": "the OpenAI-compatible endpoint recorded from (check, the record job)",
    "api_key_env": f"the variable holding the endpoint's key (default {DEFAULT_KEY_ENV})",
    "system_prompt": "the deployment's prompt file, sent by conftest.py's hook (init --system-prompt)",
    "install": "the pip requirement the workflow installs pytest-trust with (init --install)",
    "target": "your application as the target, module:function (init --target; --trust-target)",
}


def render(values: dict[str, Any]) -> str:
    """The file for ``values`` (keys of KEYS; a None value is written as a comment)."""
    lines = ["# pytest-trust: what this project runs (written by `pytest-trust init`; edit freely).",
             "# `pytest-trust check --base REF` and .github/workflows/trust.yml read it."]
    for key, what in KEYS.items():
        value = values.get(key)
        text = f"{key}: {yaml.safe_dump(value, default_flow_style=True, width=10_000).strip().removesuffix('...').strip()}"
        line = text if value is not None else f"# {key}:"
        lines.append(f"{line:<39} # {what}")  # a space before "#" always: without one YAML reads it as the value's
    return "\n".join(lines) + "\n"


def load(directory: Path, command: str = "check") -> dict[str, Any]:
    """The file's settings (keys of KEYS; absent ones None), or one UsageProblem naming the file and the fix."""
    path = directory / FILE
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageProblem(f"{command}: {path} is missing: it names the model and suites to run; write it with "
                           "`pytest-trust init --model NAME --benchmark NAME`") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise UsageProblem(f"{command}: {path}: cannot be read ({err})") from None
    raw = raw or {}
    if not isinstance(raw, dict):
        raise UsageProblem(f"{command}: {path}: must be a mapping of {', '.join(KEYS)}")
    unknown = sorted(set(map(str, raw)) - set(KEYS))
    if unknown:
        raise UsageProblem(f"{command}: {path}: unknown key {unknown[0]!r}; expected one of {', '.join(KEYS)}")
    settings = {key: raw.get(key) for key in KEYS}
    if not isinstance(settings["model"], str) or not settings["model"]:
        raise UsageProblem(f"{command}: {path}: model: must name the model (e.g. model: gpt-4o-mini)")
    suites = settings["benchmarks"]
    if suites is not None and (not isinstance(suites, list) or not all(isinstance(s, str) for s in suites)):
        raise UsageProblem(f"{command}: {path}: benchmarks: must be a list of suite names (e.g. [rules]), or left out")
    for key in ("profile", "base_url", "api_key_env", "system_prompt", "install", "target"):
        if settings[key] is not None and not isinstance(settings[key], str):
            raise UsageProblem(f"{command}: {path}: {key}: must be a string, not {settings[key]!r}")
    settings["api_key_env"] = settings["api_key_env"] or DEFAULT_KEY_ENV
    return settings
