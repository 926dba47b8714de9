"""What README.md and docs/*.md show still works: every command of their code blocks runs in its cheapest real form,
and every relative link reaches a file (and heading) that exists. Users copy these commands; a renamed option or a
moved page must fail here, not on their machine.

The commands are read from the shell blocks (```bash) and from the `run:` steps of the CI workflows (```yaml), one
simple command at a time (split at &&, ||, |, ;). Each is
- `pytest ...`: run with `--collect-only -q` added, which parses every option and builds the selection (as written,
  in a scratch copy of this checkout or, for `--pyargs`, a scratch project, holding what the page has the reader
  make first: the prompt files, a baseline report, recordings of the models it names);
- `pytest-trust <command> ...`, `python scripts/X.py ...`, `python bench/X.py ...`: `--help`, which must exit 0 and
  name every option the page passes (these record, download or run for minutes as written);
- a program of the project's that cannot run cheaply even so, or another tool (pip, git, ...): in NOT_RUN or OTHER
  below with the reason; a command that is in none of these fails the test, so nothing is skipped silently.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import mirror

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DEFAULT_MODEL = "smollm2-135m-instruct"  # pyproject.toml's trust_model: the checkout's recordings

# The project's commands the test does not run even in a cheap form, with why; each must still be shown somewhere.
NOT_RUN = {
    "scripts/record_rules.sh": "records RuLES from two local model servers for about 75 minutes; takes no --help",
    "scripts/record_decodingtrust.sh": "records DecodingTrust from the local model for hours; takes no --help",
    "scripts/record_rules_v1.sh": "records RuLES v1 from the local model for hours; takes no --help",
}
# Other programs the pages show, which are not the project's: why they are not run.
OTHER = {
    "pip": "installs packages (the install drill and .ci/run install the project)",
    "git": "works on the reader's repository",
    "cp": "copies the reader's files",
    "export": "sets the reader's credentials",
    "$EDITOR": "the reader edits a file",
    "cat": "appends a report to the CI job summary",
    "gh": "comments on a pull request (GitHub's CLI, a token)",
    "jq": "reads the report in CI",
    "test": "a shell test in the CI workflow",
    "true": "the CI workflow ignores a shard's exit status (`|| true`)",
}


# --- reading the pages ------------------------------------------------------------------------------------------

FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.MULTILINE | re.DOTALL)


def blocks(page: Path) -> Iterator[tuple[str, str]]:
    """(language, text) of each fenced code block, the block's indentation removed."""
    for match in FENCE.finditer(page.read_text(encoding="utf-8")):
        indent = len(match["indent"])
        yield match["lang"], "\n".join(line[indent:] for line in match["body"].splitlines())


def workflow_runs(node: object) -> Iterator[str]:
    """The `run:` scripts of a GitHub Actions snippet."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "run" and isinstance(value, str):
                yield value
            else:
                yield from workflow_runs(value)
    elif isinstance(node, list):
        for value in node:
            yield from workflow_runs(value)


def shell_lines(text: str) -> Iterator[str]:
    """Logical lines of a shell script: continuations joined, comments and blank lines dropped."""
    for line in text.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words:
            yield line


def simple_commands(line: str) -> Iterator[list[str]]:
    """The simple commands of one shell line, each as its words; `$(...)` substitutions and `${{ }}` expressions are
    replaced by a plain word, as the shell and Actions would by a value."""
    line = re.sub(r"\$\{\{\s*matrix\.shard\s*\}\}", "1", line)
    line = re.sub(r"\$\{\{[^}]*\}\}", "VALUE", line)
    line = re.sub(r"\$\([^)]*\)", "", line)
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    command: list[str] = []
    for word in lexer:
        if word and set(word) <= set(";&|<>"):
            if command:
                yield command
            command = [] if word in ("&&", "||", "|", ";") else ["REDIRECT"]
        elif command[:1] != ["REDIRECT"]:
            command.append(word)
    if command and command[:1] != ["REDIRECT"]:
        yield command


def shown_commands() -> list[tuple[str, list[str]]]:
    """(page, words) of every simple command the pages show, in order, each once."""
    found: dict[str, tuple[str, list[str]]] = {}
    for page in PAGES:
        for lang, text in blocks(page):
            if lang in ("bash", "sh", "shell"):
                scripts = [text]
            elif lang == "yaml":
                scripts = list(workflow_runs(yaml.safe_load(text)))
            else:
                continue
            for script in scripts:
                for line in shell_lines(script):
                    for words in simple_commands(line):
                        found.setdefault(shlex.join(words), (page.relative_to(ROOT).as_posix(), words))
    return list(found.values())


COMMANDS = shown_commands()


def kind(words: list[str]) -> str:
    program = words[0]
    if program == "pytest":
        return "pytest"
    if program == "pytest-trust":
        return "pytest-trust"
    if program == "python" and len(words) > 1 and re.fullmatch(r"(scripts|bench)/\w+\.py", words[1]):
        return "script"
    if program in NOT_RUN:
        return "not run"
    if program in OTHER:
        return "other"
    return "unknown"


def options(words: list[str]) -> list[str]:
    return sorted({word.split("=", 1)[0] for word in words if word.startswith("--")})


# --- the checks ---------------------------------------------------------------------------------------------------


def test_the_pages_show_commands_of_every_kind():
    """The reading itself works: a parser that found nothing would pass every test below."""
    kinds = {kind(words) for _, words in COMMANDS}
    assert {"pytest", "pytest-trust", "script", "not run", "other"} <= kinds, kinds
    assert any(page == "README.md" for page, _ in COMMANDS)


@pytest.mark.parametrize("page,words", COMMANDS, ids=[shlex.join(w)[:80] for _, w in COMMANDS])
def test_every_command_is_accounted_for(page, words):
    """A command of a program the test does not know is neither run nor listed: name it in NOT_RUN or OTHER."""
    assert kind(words) != "unknown", f"{page}: {shlex.join(words)}: not run and not listed in NOT_RUN or OTHER"
    if kind(words) == "not run":
        assert os.access(ROOT / words[0], os.X_OK), f"{page}: {words[0]} is not an executable file"


def test_not_run_lists_only_what_the_pages_show():
    """NOT_RUN and OTHER stay a true account: an entry no page uses any longer is removed."""
    shown = {words[0] for _, words in COMMANDS}
    assert set(NOT_RUN) <= shown and set(OTHER) <= shown, (set(NOT_RUN) | set(OTHER)) - shown


def console_script() -> str:
    found = shutil.which("pytest-trust", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                                 os.environ.get("PATH", "")]))
    assert found, "the pytest-trust console script is not installed beside this Python"
    return found


def subcommand(words: list[str]) -> list[str]:
    """`pytest-trust report compare A B --html X` -> ["report", "compare"]: the leading words that each level's
    --help lists as its subcommands (argparse indents them by four spaces)."""
    path: list[str] = []
    for word in words[1:]:
        listed = re.findall(r"^    ([a-z][\w-]*)(?:\s|$)", help_text([console_script(), *path, "--help"]), re.MULTILINE)
        if word not in listed:
            break
        path.append(word)
    return path


_HELP: dict[tuple[str, ...], str] = {}


def help_text(command: list[str]) -> str:
    if tuple(command) not in _HELP:
        done = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{shlex.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}"
        _HELP[tuple(command)] = done.stdout
    return _HELP[tuple(command)]


HELPED = [(page, words) for page, words in COMMANDS if kind(words) in ("pytest-trust", "script")]


@pytest.mark.parametrize("page,words", HELPED, ids=[shlex.join(w)[:80] for _, w in HELPED])
@pytest.mark.slow
def test_command_help_names_its_options(page, words):
    """The command exists (its --help exits 0) and takes every option the page passes it."""
    if words[0] == "pytest-trust":
        path = subcommand(words)
        assert path, f"{page}: {shlex.join(words)}: no such pytest-trust command"
        command = [console_script(), *path, "--help"]
    else:
        command = [sys.executable, words[1], "--help"]
    text = help_text(command)
    missing = [option for option in options(words) if not re.search(rf"{re.escape(option)}\b", text)]
    assert not missing, f"{page}: {shlex.join(words)}: {shlex.join(command)} does not name {missing}"


# --- pytest commands, collected ------------------------------------------------------------------------------------

PYTESTS = [(page, words) for page, words in COMMANDS if kind(words) == "pytest"]
PROMPT = "You are the support assistant of Example Ltd. Answer questions about orders only.\n"


def option_values(words: list[str], name: str) -> list[str]:
    values = []
    for i, word in enumerate(words):
        if word == name and i + 1 < len(words):
            values.append(words[i + 1])
        elif word.startswith(name + "="):
            values.append(word.split("=", 1)[1])
    return values


@pytest.fixture(scope="module")
def data_dir() -> Path:
    """The data mirror the pytest commands read (as the product finds it), so collecting downloads nothing."""
    path = mirror()
    if path is None:
        pytest.skip("no data mirror: set PYTEST_TRUST_DATA")
    return path


@pytest.fixture(scope="module")
def scratch(tmp_path_factory, data_dir) -> dict[str, Path]:
    """A copy of this checkout's run configuration and suites ("checkout") and an empty project ("project"), each
    with the files the pages have the reader make before these commands, and a baseline report."""
    checkout = tmp_path_factory.mktemp("checkout")
    for name in ("pyproject.toml", "thresholds.yaml"):
        shutil.copy(ROOT / name, checkout / name)
    shutil.copytree(ROOT / "suites", checkout / "suites")
    project = tmp_path_factory.mktemp("project")
    for where in (checkout, project):
        (where / "deploy").mkdir()
        (where / "deploy" / "system_prompt.txt").write_text(PROMPT)
        (where / "main_prompt.txt").write_text(PROMPT)
        (where / "cassettes").mkdir()
        (where / "myapp").mkdir()  # docs/your-application.md's application, for --trust-target
        (where / "myapp" / "__init__.py").write_text("")
        (where / "myapp" / "answer.py").write_text("def reply(messages, params):\n    return 'I cannot help.'\n")
    from pytest_trust.benchmarks.custom_rules import STARTER
    (project / "trust_rules.yaml").write_text(STARTER)  # docs/custom-rules.md's `pytest-trust init --benchmark custom_rules`
    report = tmp_path_factory.mktemp("report") / "report.json"
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/", "-m", "rules", "--trust-limit", "1",
                           "--trust-recorded-only", "--block-network", "-q", "--tb=no", "-p", "no:cacheprovider",
                           f"--trust-cassettes={ROOT / 'cassettes'}", f"--trust-report={report}"],
                          check=False, cwd=checkout, capture_output=True, text=True, env=env(data_dir), timeout=600)
    assert report.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    for where in (checkout, project):
        for name in ("baseline.json", "main.json", "ood.json", "trust.json"):
            shutil.copy(report, where / name)
    return {"checkout": checkout, "project": project}


def env(data: Path) -> dict[str, str]:
    return {**os.environ, "PYTEST_TRUST_DATA": str(data)}


def recordings_for(words: list[str], where: Path) -> None:
    """The recordings the pages have the reader make (or import) before a replay: for each model the command names,
    and each prompt file it passes, this checkout's committed recordings stand in (collection reads which items
    are recorded, not what the model answered)."""
    from pytest_trust.endpoint.system_prompt import from_file

    models = option_values(words, "--model") or [DEFAULT_MODEL]
    prompts = option_values(words, "--trust-system-prompt")
    for model in models:
        folders = [model] + [from_file(prompt, where).folder(model) for prompt in prompts]
        for folder in folders:
            link = where / "cassettes" / folder
            if not link.exists():
                link.symlink_to(ROOT / "cassettes" / DEFAULT_MODEL, target_is_directory=True)


@pytest.mark.parametrize("page,words", PYTESTS, ids=[shlex.join(w)[:80] for _, w in PYTESTS])
@pytest.mark.slow
def test_pytest_command_collects(page, words, scratch, data_dir):
    """As written plus --collect-only -q: every option parses and the selection builds (exit status 0)."""
    args = words[1:]
    if "tests/" in args:  # this repository's own tests, collected where they are
        where = ROOT
    else:
        where = scratch["project"] if "--pyargs" in args else scratch["checkout"]
        recordings_for(words, where)
    command = [sys.executable, "-m", "pytest", *args, "--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(command, check=False, cwd=where, capture_output=True, text=True, env=env(data_dir),
                          timeout=600)
    assert done.returncode == 0, (f"{page}: {shlex.join(words)} --collect-only exited {done.returncode}:\n"
                                  f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    counts = re.findall(r"^\S+: (\d+)$|(\d+)(?:/\d+)? tests? collected", done.stdout, re.MULTILINE)
    assert sum(int(a or b) for a, b in counts) > 0, f"{page}: {shlex.join(words)} selects no item:\n{done.stdout[-2000:]}"


# --- links ---------------------------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation but - and _ dropped, spaces as -."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    names = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, re.MULTILINE):
        heading = re.sub(r"[`*]", "", heading).lower()
        names.add(re.sub(r"[^\w\- ]", "", heading).replace(" ", "-"))
    return names


LINKS = [(page, match["target"]) for page in PAGES
         for match in LINK.finditer(FENCE.sub("", page.read_text(encoding="utf-8")))
         if not re.match(r"[a-z]+:", match["target"])]


def test_the_pages_have_relative_links():
    """The link check below checks something: the README's index alone has a dozen."""
    assert sum(page.name == "README.md" for page, _ in LINKS) >= 12


@pytest.mark.parametrize("page,target", LINKS, ids=[f"{p.relative_to(ROOT)}->{t}" for p, t in LINKS])
def test_relative_link_resolves(page, target):
    """A relative link reaches a file of this repository, and its #anchor a heading of that file."""
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    assert file.is_file(), f"{page.relative_to(ROOT)}: {target}: no file {file}"
    if anchor:
        assert anchor in anchors(file), f"{page.relative_to(ROOT)}: {target}: no heading #{anchor} in {file.name}"
