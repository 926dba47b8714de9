"""``pytest-trust init``: the files a project needs to run the packaged benchmarks, record and gate them in CI.

Written into the project (``--dir``, default the current folder), never over an existing file:

    pytest-trust.yaml              what the project runs: model, suites, run size, endpoint (check reads it)
    conftest.py                    the hooks a deployment implements (pytest_trust/hookspecs.py), commented;
                                   with --system-prompt FILE, the hook that sends it
    thresholds.yaml                an ``<benchmark>.error_rate: {max: 0.0}`` gate per chosen benchmark, examples
    cassettes/README.md            where the recordings go (committed: CI replays them)
    .github/workflows/trust.yml    ``pytest-trust check`` on pull requests; record by hand, sharded, joined

No pytest.ini and no suite modules (docs/decisions.md, "Collection"): the command is
``pytest --pyargs pytest_trust.suites``, so the cases are the installed version's, and a project's own
``pytest`` (its tests, its ini file) is left as it was.
"""

from __future__ import annotations

import inspect
import ipaddress
import json
import shlex
import string
from dataclasses import dataclass, field, replace
from importlib import resources
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .. import hookspecs
from ..benchmarks import BENCHMARKS, SUITES, suites_named
from ..change import project
from ..errors import UsageProblem
from ..options import PROFILES
from . import textmerge

PACKAGE = "pytest_trust.suites"
DEFAULT_MODEL = "gpt-4o-mini"
SHARDS = 3  # the record job's matrix
# Majors of the actions that run on node24 (node20 left GitHub's runners on 2026-09-23); actionlint 1.17 reports
# nothing on them (tests/test_init.py runs it on every workflow init writes).
ACTIONS = {"checkout": "actions/checkout@v6", "python": "actions/setup-python@v6", "cache": "actions/cache@v5",
           "upload": "actions/upload-artifact@v6", "download": "actions/download-artifact@v7"}
WORKFLOW = Path(".github") / "workflows" / "trust.yml"
DATA_CACHE = "~/.cache/pytest-trust"
# What a recording run leaves beside the cassettes and no commit should carry: journals merged at the next start,
# the lock recording runs share.
CASSETTES_IGNORED = "# written by pytest-trust init: a recording run's journals and lock, never committed\n*/.journal/\n*/.lock\n"

# Example bodies of hooks, by name; a hook without one gets a plain ``...``.
HOOK_EXAMPLES = {
    "pytest_trust_deployment": ['return {"system_prompt": open("deploy/system_prompt.txt", encoding="utf-8").read(),',
                                '        "user_template": "A customer writes:\\n{user}",  # each user turn goes at {user}',
                                '        "preamble": [{"role": "assistant", "content": "Hi! How can I help?"}]}'],
    "pytest_trust_system_prompt": ["from myapp.prompts import build_system_prompt  # your code",
                                   'return build_system_prompt(locale="en")  # a str, or None for no system prompt'],
}


@dataclass
class Plan:
    """What ``init`` was asked for, resolved: the suites to run, their benchmarks, and the commands."""

    directory: Path
    benchmarks: list[str]  # benchmark names, registry order
    suites: list[str]  # suite names (markers), registry order; every registered suite when all were chosen
    everything: bool  # no --benchmark: every registered suite, no -m
    model: str
    base_url: str | None
    profile: str | None
    workflow_root: Path = field(default=Path("."))  # the repository root the workflow goes under
    install: str = ""  # the pip requirement the workflow installs pytest-trust with
    system_prompt: str | None = None  # the deployment's prompt file, relative to the project folder
    api_key_env: str = project.DEFAULT_KEY_ENV
    target: str | None = None  # --trust-target module:function: the application answers, not an endpoint

    def settings(self) -> dict[str, object]:
        """What pytest-trust.yaml holds of this plan."""
        return {"model": self.model, "benchmarks": None if self.everything else self.suites,
                "profile": self.profile, "base_url": self.base_url, "api_key_env": self.api_key_env,
                "system_prompt": self.system_prompt, "install": self.install, "target": self.target}

    @property
    def selection(self) -> list[str]:
        """pytest's arguments that select the chosen suites (and the run size)."""
        args = ["--pyargs", PACKAGE]
        if not self.everything:
            args += ["-m", " or ".join(self.suites)]
        if self.profile:
            args += ["--trust-profile", self.profile]
        if self.target:
            args += ["--trust-target", self.target]
        return args

    def command(self, *extra: str) -> str:
        return shlex.join(["pytest", *self.selection, *extra])


def resolve(names: list[str] | None, model: str | None, base_url: str | None, profile: str | None,
            directory: Path, install: str | None = None, system_prompt: Path | None = None,
            previous: Plan | None = None, target: str | None = None) -> Plan:
    """The plan for these options, over what an earlier init chose (``previous``: its benchmarks kept, the others
    replaced where given); UsageProblem (one line) for a name the registry does not know, a prompt file that is
    not there, or an install the workflow could not repeat."""
    chosen = suites_named(_suites_over_previous(previous, names), "init: --benchmark")
    everything = chosen is None
    suites = list(SUITES) if chosen is None else list(dict.fromkeys(chosen))
    benchmarks = [b for b in BENCHMARKS if any(SUITES[s].benchmark == b for s in suites)]
    if profile is not None and profile not in PROFILES:
        raise UsageProblem(f"init: --profile {profile}: expected one of {', '.join(PROFILES)}")
    prompt = _prompt_file(system_prompt, directory, previous)
    before = previous or Plan(directory, [], [], False, DEFAULT_MODEL, None, None)
    return Plan(directory, benchmarks, suites, everything, model or before.model, base_url or before.base_url,
                profile or before.profile, _repository_root(directory),
                install or before.install or install_requirement(), prompt, before.api_key_env,
                target or before.target)


def _suites_over_previous(previous: Plan | None, names: list[str] | None) -> list[str] | None:
    """The suites asked for over an earlier init's choice: its suites kept and ``names`` added; with no names, its
    choice (None: every registered suite)."""
    if previous is None:
        return names
    if names is None:
        return None if previous.everything else previous.suites
    return names if previous.everything else [*previous.suites, *names]


def _prompt_file(system_prompt: Path | None, directory: Path, previous: Plan | None) -> str | None:
    """The deployment's prompt file the plan names: the one given, which must be in the project folder, else
    the earlier init's."""
    if system_prompt is None:
        return previous.system_prompt if previous is not None else None
    if not (directory / system_prompt).is_file():
        raise UsageProblem(f"init: --system-prompt {system_prompt}: no such file in {directory}; give the "
                           "prompt's path relative to the project folder")
    return system_prompt.as_posix()


def previous(directory: Path) -> Plan | None:
    """What an earlier init chose, from its pytest-trust.yaml (None when there is none): the base of a re-run's
    three-way merge."""
    if not (directory / project.FILE).is_file():
        return None
    return plan_of(directory, project.load(directory, "init"))


def plan_of(directory: Path, found: dict[str, Any]) -> Plan:
    """The plan pytest-trust.yaml's settings (project.load) describe."""
    plan = resolve(found["benchmarks"], found["model"], found["base_url"], found["profile"], directory,
                   found["install"] or "pytest-trust", None)
    return replace(plan, system_prompt=found["system_prompt"], api_key_env=found["api_key_env"],
                   install=found["install"] or "", target=found["target"])


def install_requirement() -> str:
    """How a CI runner installs the pytest-trust that runs this: where it came from (PEP 610's direct_url.json:
    a VCS URL at its commit, an archive URL) or its version from an index; UsageProblem for what a runner cannot
    reach (a local folder, file or editable install)."""
    try:
        dist = distribution("pytest-trust")
    except PackageNotFoundError:
        raise _cannot_install("it is not installed as a package (run from a source folder)") from None
    origin = json.loads(dist.read_text("direct_url.json") or "null")
    if origin is None:
        return f"pytest-trust=={dist.version}"
    url = origin.get("url", "")
    vcs = origin.get("vcs_info")
    if vcs and not url.startswith("file:"):
        return f"pytest-trust @ {vcs.get('vcs', 'git')}+{url}@{vcs.get('commit_id', '')}".rstrip("@")
    if "archive_info" in origin and not url.startswith("file:"):
        return f"pytest-trust @ {url}"
    where = url.removeprefix("file://")
    editable = origin.get("dir_info", {}).get("editable")
    raise _cannot_install(f"it is an editable install of {where}" if editable else f"it was installed from {where}")


def _cannot_install(why: str) -> UsageProblem:
    return UsageProblem(f"init: the workflow cannot install this pytest-trust: {why}, which a CI runner cannot "
                        "reach; pass --install SPEC, the pip requirement CI should use (say 'pytest-trust @ "
                        "git+https://github.com/you/pytest-trust@<commit>', a wheel's URL, or pytest-trust==X.Y)")


def notes(plan: Plan) -> list[str]:
    """What the user should know of what init wrote: an endpoint the workflow leaves out."""
    if plan.base_url and not _reachable(plan.base_url):
        return [(f"--base-url {plan.base_url} is a local address no CI runner reaches: the workflow's record job "
                "records from the client's default endpoint (give it a reachable --base-url, or set "
                "OPENAI_BASE_URL in the workflow)")]
    return []


def _reachable(url: str | None) -> bool:
    """Whether a CI runner could reach ``url``: not a loopback or private address."""
    host = urlsplit(url or "").hostname or ""
    if host == "localhost" or host.endswith(".local"):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return bool(host)
    return not (address.is_loopback or address.is_private or address.is_link_local)


def _repository_root(directory: Path) -> Path:
    """The git work tree holding ``directory`` (its workflows live there), else ``directory`` itself."""
    start = directory.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def files(plan: Plan) -> dict[Path, str]:
    """Every file init writes, by path (relative to the current folder), and its text."""
    d = plan.directory
    workflow = plan.workflow_root / WORKFLOW if plan.workflow_root != d.resolve() else d / WORKFLOW
    starters = {d / name: text for b in ([] if plan.everything else plan.benchmarks)  # a benchmark named by --benchmark
                for name, text in BENCHMARKS[b].starter_files.items()}
    return {d / project.FILE: project.render(plan.settings()), d / "conftest.py": conftest(plan.system_prompt), d / "thresholds.yaml": thresholds(plan),
            d / "cassettes" / "README.md": cassettes_readme(plan), d / "cassettes" / ".gitignore": CASSETTES_IGNORED,
            workflow: workflow_yaml(plan), **starters}


@dataclass(frozen=True)
class Outcome:
    """What init did to one file: written, unchanged, updated (init's change merged into your copy), kept (it
    exists and init has no earlier version of its own to merge from), or not merged (``detail`` says where)."""

    path: Path
    status: str
    detail: str = ""


def write(plan: Plan, before: Plan | None = None) -> list[Outcome]:
    """Write what is missing; merge init's change since ``before`` into each file that exists, keeping the
    user's edits; where both changed the same lines, keep the file and write init's version beside it."""
    outcomes = []
    earlier = files(before) if before is not None else {}
    for path, text in files(plan).items():
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "x", encoding="utf-8") as fh:  # "x": not even a file created meanwhile is overwritten
                fh.write(text)
            outcomes.append(Outcome(path, "written"))
            continue
        yours = path.read_text(encoding="utf-8")
        merged = textmerge.merge(yours, earlier[path], text) if path in earlier else None
        if merged is None:
            outcomes.append(Outcome(path, "kept", "it exists, not overwritten" if yours != text else "unchanged"))
        elif merged.text == yours:
            outcomes.append(Outcome(path, "unchanged"))
        elif merged.conflicts:
            beside = path.with_name(path.name + ".init")
            beside.write_text(text, encoding="utf-8")
            lines = ", ".join(map(str, merged.conflicts))
            outcomes.append(Outcome(path, "not merged", f"your edits and init's change meet at {len(merged.conflicts)} "
                                                        f"place(s) (lines {lines} of the merge); the file is kept, "
                                                        f"init's version is in {beside}: merge it by hand"))
        else:
            path.write_text(merged.text, encoding="utf-8")
            outcomes.append(Outcome(path, "updated", "init's change merged, your edits kept"
                                    if yours != earlier[path] else ""))
    return outcomes


def next_commands(plan: Plan) -> list[tuple[str, str]]:
    """(what, command): record, replay, bless."""
    record = _record_options(plan)
    return [
        ("record (OPENAI_API_KEY from the environment; resumes where it stopped)",
         plan.command(*record, "--record-mode=new_episodes", "--trust-report=trust.json", "-q", "--tb=no")),
        ("replay offline, the gates deciding the exit status",
         plan.command(f"--model={plan.model}", "--block-network", "--trust-report=trust.json", "-q", "--tb=no")),
        ("gate the headline metrics at the recorded run's level",
         "pytest-trust thresholds bless trust.json"),
    ]


def _record_options(plan: Plan) -> list[str]:
    return [f"--model={plan.model}"] + ([f"--trust-base-url={plan.base_url}"] if plan.base_url else [])


def fetch_command(plan: Plan) -> str:
    """`pytest-trust data fetch` for the chosen benchmarks (all of them: no --benchmark)."""
    chosen = [] if plan.everything else [arg for name in plan.benchmarks for arg in ("--benchmark", name)]
    return shlex.join(["pytest-trust", "data", "fetch", *chosen])


def conftest(system_prompt: str | None = None) -> str:
    lines = [
        '"""pytest-trust hooks of this project (written by `pytest-trust init`; edit freely).',
        "",
        f"The benchmarks run from the installed package: pytest --pyargs {PACKAGE} (see",
        ".github/workflows/trust.yml). No pytest.ini and no test modules are written: the cases are those of the",
        "installed pytest-trust, a plain `pytest` runs this project's own tests as before, and pytest takes the",
        "folder it is started in as the rootdir, so cassettes/ and thresholds.yaml beside this file are used.",
        "pytest reads this file when started here. Uncomment a hook to use it.",
        '"""',
    ]
    if system_prompt is not None:  # wired: a plain pytest run and `pytest-trust check` both send it
        lines += ["", "from pathlib import Path", "", "",
                  "def pytest_trust_system_prompt(config):",
                  '    """The deployment\'s system prompt, sent with every benchmark request (written by init)."""',
                  f"    return (Path(__file__).parent / {system_prompt!r}).read_text(encoding=\"utf-8\")"]
    for name, spec in inspect.getmembers(hookspecs, inspect.isfunction):
        if not name.startswith("pytest_trust_") or (system_prompt is not None and name == "pytest_trust_system_prompt"):
            continue
        lines += ["", ""]
        lines += [f"# {line}".rstrip() for line in inspect.cleandoc(spec.__doc__ or "").splitlines()]
        params = ", ".join(inspect.signature(spec).parameters)
        lines += ["#", f"# def {name}({params}):"]
        lines += [f"#     {line}" for line in HOOK_EXAMPLES.get(name, ["..."])]
    return "\n".join(lines) + "\n"


def thresholds(plan: Plan) -> str:
    lines = [
        "# Gates of pytest-trust (README, \"Gating CI\"): a metric key, then a bound, min and/or max. Bounds are",
        "# fractions in [0, 1], as every metric is (a score of 87.5% is 0.875). A bad key lists the valid ones.",
        "# `pytest-trust thresholds bless trust.json` adds gates at the level of a recorded run.",
        "settings:",
        "  # Benchmark items are expected to fail at some rate: the gates are the verdict of a run.",
        "  soft: true",
        "default:                      # gates for every model",
        "  # Errored items (a missing recording, a failed endpoint) are left out of every score: these gates",
        "  # make sure no score is computed on a silent subset.",
    ]
    lines += [f"  {name}.error_rate: {{max: 0.0}}" for name in plan.benchmarks]
    lines.append("  # Examples:")
    for name in plan.benchmarks:
        headline = _headline_key(name)
        if headline:
            lines += [f"  # {headline}: {{min: 0.5}}                    # the metric's value >= 0.5",
                      f"  # {headline}: {{min: 0.5, confidence: 0.95}}  # its whole 95% interval >= 0.5"]
            break
    if plan.benchmarks:
        lines.append(f"  # {plan.benchmarks[0]}.regression: {{alpha: 0.05}}  # no significant regression against "
                     "--trust-baseline")
    lines += ["# models:                     # per-model gates, merged over default",
              f"#   {plan.model}:",
              "#     <metric key>: {min: 0.7}"]
    return "\n".join(lines) + "\n"


def _headline_key(benchmark: str) -> str | None:
    """A benchmark's first headline metric, for an example."""
    return next(iter(BENCHMARKS[benchmark].headline_keys()), None)


def cassettes_readme(plan: Plan) -> str:
    return (
        "# Recorded model answers\n\n"
        "pytest-trust records each model's answers here (`cassettes/<model>/<benchmark>/<unit>.json`, vcrpy\n"
        "JSON cassettes) and replays them offline. Commit them: CI replays them with the network blocked. Check\n"
        "them for credentials before committing: `pytest-trust audit cassettes`.\n\n"
        f"Record what is missing: `{plan.command(*_record_options(plan), '--record-mode=new_episodes')}`\n"
    )


class _Template(string.Template):
    """``${name}`` placeholders only: GitHub's ``${{ expressions }}`` and the shell's ``$VARIABLES`` in the
    templates pass through as written."""

    flags = 0
    pattern = r"\$(?:(?P<escaped>(?!))|(?P<named>(?!))|\{(?P<braced>[a-z_][a-z0-9_]*)\}|(?P<invalid>(?!)))"


def _template(name: str) -> _Template:
    return _Template(resources.files(__package__).joinpath("templates").joinpath(name).read_text(encoding="utf-8"))


def workflow_yaml(plan: Plan) -> str:
    """The GitHub Actions workflow (templates/workflow.yml): the check job on pull requests, the record and merge
    jobs by hand, each job starting with the same setup steps (templates/setup-steps.yml)."""
    root = plan.directory.resolve()
    where = root.relative_to(plan.workflow_root) if plan.workflow_root != root else Path(".")
    prefix = "" if where == Path(".") else f"{where.as_posix()}/"
    reachable = plan.base_url and _reachable(plan.base_url)
    setup = _template("setup-steps.yml").substitute(
        ACTIONS, install=shlex.quote(plan.install), data_cache=DATA_CACHE, fetch=fetch_command(plan))
    return _template("workflow.yml").substitute(
        ACTIONS, model=plan.model, setup=setup.removesuffix("\n"), selection=shlex.join(plan.selection),
        defaults=f"\n    defaults: {{run: {{working-directory: {where.as_posix()}}}}}" if prefix else "",
        base_url=f" --trust-base-url={shlex.quote(plan.base_url)}" if reachable else "",
        shards=", ".join(str(i) for i in range(1, SHARDS + 1)), shard_count=SHARDS, prefix=prefix)
