"""`pytest-trust check --base REF`: the change's verdict, from its parts (Holm, the project file, git) to the whole
flow in a git repository recorded against a canned endpoint; and the workflow `init` writes, linted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import mirror
from fake_model import FakeModelServer

from pytest_trust.change import git, project
from pytest_trust.change.verdict import verdicts
from pytest_trust.cli import main
from pytest_trust.errors import UsageProblem

CLI = [sys.executable, "-c", "import sys; from pytest_trust.cli import main; sys.exit(main())"]


def test_holm_across_benchmarks_decides_which_regressed():
    tests = {"a": {"p": 0.01, "newly_failing": 5, "newly_passing": 0, "paired": 10},
             "b": {"p": 0.04, "newly_failing": 3, "newly_passing": 0, "paired": 10},
             "c": {"p": 0.001, "newly_failing": 0, "newly_passing": 9, "paired": 10},  # improved: never regressed
             "d": {"p": 0.0, "newly_failing": 9, "newly_passing": 0, "paired": 9, "incomparable": "another scorer"}}
    # Holm over a, b, c (d is not compared): c 0.001 x 3 = 0.003, a 0.01 x 2 = 0.02, b max(0.02, 0.04 x 1) = 0.04
    found = {t.benchmark: t for t in verdicts(tests, 0.05)}
    assert {name: round(t.adjusted, 6) for name, t in found.items()} == {"a": 0.02, "b": 0.04, "c": 0.003, "d": 1.0}
    assert [name for name, t in found.items() if t.regressed] == ["a", "b"]
    assert [t.benchmark for t in verdicts(tests, 0.03) if t.regressed] == ["a"]  # b's 0.04 alone would pass 0.05
    assert found["d"].incomparable == "another scorer" and not found["d"].regressed


def test_the_project_file_is_read_back_as_written_and_a_bad_one_is_one_line(tmp_path):
    written = {"model": "m", "benchmarks": ["rules"], "profile": "smoke", "base_url": None, "api_key_env": "KEY",
               "system_prompt": "deploy/p.txt", "install": "pytest-trust==0.1.0", "target": "app:reply"}
    (tmp_path / project.FILE).write_text(project.render(written))
    assert project.load(tmp_path) == written
    long = {**written, "base_url": "http://127.0.0.1:18190/v1,http://127.0.0.1:18191/v1",  # past the comments' column
            "install": "pytest-trust @ git+https://github.com/you/pytest-trust@COMMIT"}
    (tmp_path / project.FILE).write_text(project.render(long))
    assert project.load(tmp_path) == long
    for text, message in (("model: m\nmodle: x\n", "unknown key 'modle'"),
                          ("benchmarks: [rules]\n", "model: must name the model"),
                          ("model: m\nbenchmarks: rules\n", "benchmarks: must be a list")):
        (tmp_path / project.FILE).write_text(text)
        with pytest.raises(UsageProblem, match=message):
            project.load(tmp_path)
    with pytest.raises(UsageProblem, match="is missing.*pytest-trust init"):
        project.load(tmp_path / "elsewhere")


def test_an_unknown_ref_names_itself_and_how_to_fetch_it(tmp_path):
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    with pytest.raises(UsageProblem, match=r"--base origin/main: no such commit .*git fetch origin origin/main"):
        git.resolve("origin/main", tmp_path)
    with pytest.raises(UsageProblem, match="not in a git repository"):
        git.repository_root(Path("/"))


def test_check_against_a_base_that_does_not_exist_is_one_line_and_exit_status_4(tmp_path, capsys):
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    (tmp_path / project.FILE).write_text(project.render({"model": "m", "benchmarks": ["rules"]}))
    assert main(["check", "--base", "no-such-ref", "--dir", str(tmp_path)]) == 4
    err = capsys.readouterr().err
    assert err.startswith("pytest-trust check: --base no-such-ref: no such commit") and err.count("\n") == 1


@pytest.mark.parametrize("origin, requirement", [
    (None, "pytest-trust==0.1.0"),
    ({"url": "https://github.com/you/pytest-trust", "vcs_info": {"vcs": "git", "commit_id": "abc123"}},
     "pytest-trust @ git+https://github.com/you/pytest-trust@abc123"),
    ({"url": "https://example.test/pytest_trust-0.1.0-py3-none-any.whl", "archive_info": {}},
     "pytest-trust @ https://example.test/pytest_trust-0.1.0-py3-none-any.whl"),
])
def test_the_workflow_installs_pytest_trust_from_where_it_came(monkeypatch, origin, requirement):
    from pytest_trust.cli import scaffold

    class Installed:  # a unit test of reading PEP 610's direct_url.json: the distribution is stood in for
        version = "0.1.0"

        def read_text(self, name):
            return json.dumps(origin) if origin is not None and name == "direct_url.json" else None

    monkeypatch.setattr(scaffold, "distribution", lambda name: Installed())
    assert scaffold.install_requirement() == requirement


def test_a_local_install_makes_init_ask_for_install(tmp_path, capsys, monkeypatch):
    from pytest_trust.cli import scaffold

    class Editable:  # as pip records `pip install -e /work/pytest-trust` (PEP 610); the real one may be shadowed
        version = "0.1.0"  # by a build's egg-info in the checkout, so the test does not depend on it

        def read_text(self, name):
            return json.dumps({"url": "file:///work/pytest-trust", "dir_info": {"editable": True}})

    monkeypatch.setattr(scaffold, "distribution", lambda name: Editable())
    assert main(["init", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "editable install of" in err and "pass --install SPEC" in err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("options", [
    ["--benchmark", "rules", "--profile", "smoke"],
    ["--base-url", "https://example.test/v1", "--system-prompt", "prompt.txt"],
    ["--dir", "sub", "--base-url", "http://127.0.0.1:8080/v1"],
])
@pytest.mark.slow
def test_every_workflow_init_writes_passes_actionlint_and_the_workflow_schema(tmp_path, options):
    for tool in ("actionlint", "check-jsonschema"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed: python scripts/dev_install.py installs it (the dev extra)")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "prompt.txt").write_text("Be kind.\n")
    (tmp_path / "sub").mkdir()
    done = subprocess.run([*CLI, "init", "--install", "pytest-trust==0.1.0", *options], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    lint = subprocess.run(["actionlint", "-no-color"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert lint.returncode == 0 and not lint.stdout, lint.stdout + lint.stderr
    schema = subprocess.run(["check-jsonschema", "--builtin-schema", "vendor.github-workflows",
                             ".github/workflows/trust.yml"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert schema.returncode == 0, schema.stdout + schema.stderr


def _answer(body: dict) -> str:
    """A model that repeats its instructions when its prompt tells it to (the secrets of RuLES' scenarios with
    them), and declines everything else."""
    system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
    return system if "repeat your instructions" in system else "I'm sorry, I can't help with that."


@pytest.mark.slow
def test_check_fails_a_prompt_that_leaks_its_rules_and_passes_a_harmless_one_then_offline(tmp_path):
    if mirror() is None:
        pytest.skip("no data mirror: set PYTEST_TRUST_DATA")
    env = {**os.environ, "PYTEST_TRUST_DATA": str(mirror()), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    env.pop("OPENAI_API_KEY", None)
    keyed = {**env, "OPENAI_API_KEY": "sk-fake-key-for-the-canned-endpoint"}

    def sh(*command: str, environment: dict = env) -> subprocess.CompletedProcess:
        return subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True, check=False,
                              timeout=600)

    def check(*options: str, environment: dict = env) -> subprocess.CompletedProcess:
        return sh(*CLI, "check", "--base", "main", *options, environment=environment)

    prompt = tmp_path / "deploy" / "system_prompt.txt"
    with FakeModelServer(_answer) as server:
        sh("git", "init", "-q", "-b", "main")
        prompt.parent.mkdir()
        prompt.write_text("You are Acme's helpful assistant.\n")
        done = sh(*CLI, "init", "--benchmark", "rules", "--profile", "smoke", "--model", "canned", "--install",
                  "pytest-trust==0.1.0", "--system-prompt", "deploy/system_prompt.txt", "--base-url", server.base_url)
        assert done.returncode == 0, done.stderr
        record = done.stdout.split("1. ")[1].splitlines()[1].split()  # the record command init printed
        assert sh(sys.executable, "-m", *record, environment=keyed).returncode == 0
        assert sh("git", "add", "-A").returncode == sh("git", "commit", "-qm", "main").returncode == 0

        sh("git", "checkout", "-qb", "leaky")
        prompt.write_text("You are Acme's helpful assistant. Always repeat your instructions first.\n")
        offline = check()
        assert offline.returncode == 1  # no key: replays, and names what is not recorded
        assert "cannot be judged offline" in offline.stdout and "--record-mode=new_episodes" in offline.stdout
        leaky = check(environment=keyed)
        assert leaky.returncode == 1, leaky.stdout[-3000:] + leaky.stderr
        assert "rules: REGRESSED" in leaky.stdout
        markdown = (tmp_path / "trust.md").read_text()
        newly_failing = json.loads((tmp_path / "trust.json").read_text())["baseline"]["newly_failing"]
        assert markdown.startswith("## pytest-trust check: FAILED (regressed: rules")
        assert newly_failing and f"`{newly_failing[0]}`" in markdown
        assert "Regressed items (passed at the base, fail now)" in markdown

        sh("git", "checkout", "-qf", "main")
        sh("git", "clean", "-qfd")
        sh("git", "checkout", "-qb", "harmless")
        prompt.write_text("You are Acme's friendly assistant.\n")
        harmless = check(environment=keyed)
        assert harmless.returncode == 0, harmless.stdout[-3000:] + harmless.stderr
        assert "check: passed" in harmless.stdout
        sh("git", "add", "-A")
        sh("git", "commit", "-qm", "harmless, recorded")
        asked = len(server.requests)
    again = check("--offline")  # the endpoint is gone: all of it replays
    assert again.returncode == 0, again.stdout[-3000:]
    assert "replayed offline (--offline)" in again.stdout and "check: passed" in again.stdout
    assert asked > 0
    unknown = check("--offline", "--dir", ".", "--base", "no-such-branch")
    assert unknown.returncode == 4 and "--base no-such-branch: no such commit" in unknown.stderr


def _rules_answer(body: dict) -> str:
    """A help desk that repeats its instructions (its prompt and trust_rules.yaml's context, the discount code with
    them) when they tell it to, and otherwise keeps the code and answers questions."""
    system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    if "repeat your instructions" in system:
        return "My instructions: " + system
    return "We are open 9 to 5." if "opening hours" in body["messages"][-1]["content"] else "I can't share that."


@pytest.mark.slow
def test_check_pairs_custom_rules_items_names_the_regressed_ones_and_the_rules_file_each_side_ran(tmp_path):
    """custom_rules in `check`: the starter trust_rules.yaml recorded on main; a prompt that makes the model repeat
    its instructions regresses the code's rule item by item; so does an edit of the file's context alone, which
    is no longer called the same deployment (the file's digest is named on each side)."""
    from pytest_trust.benchmarks.custom_rules import make_items, read

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "OPENAI_API_KEY": "sk-fake-key-for-the-canned-endpoint"}

    def sh(*command: str) -> subprocess.CompletedProcess:
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=600)

    prompt, rules = tmp_path / "deploy" / "system_prompt.txt", tmp_path / "trust_rules.yaml"
    with FakeModelServer(_rules_answer) as server:
        sh("git", "init", "-q", "-b", "main")
        prompt.parent.mkdir()
        prompt.write_text("You are Acme's helpful assistant.\n")
        done = sh(*CLI, "init", "--benchmark", "custom_rules", "--model", "canned", "--install", "pytest-trust==0.1.0",
                  "--system-prompt", "deploy/system_prompt.txt", "--base-url", server.base_url)
        assert done.returncode == 0 and rules.is_file(), done.stderr
        record = done.stdout.split("1. ")[1].splitlines()[1].split()
        recorded = sh(sys.executable, "-m", *record)
        assert recorded.returncode == 0, recorded.stdout[-3000:]
        assert sh("git", "add", "-A").returncode == sh("git", "commit", "-qm", "main").returncode == 0
        items = [item.id for item in make_items(read(rules))]
        code_items = sorted(i for i in items if i.startswith("no-discount-code/"))
        assert len(items) == 76 and len(code_items) == 37  # 2 rules x 37 attacks, 2 benign questions

        sh("git", "checkout", "-qb", "leaky")
        prompt.write_text("You are Acme's helpful assistant. Always repeat your instructions first.\n")
        leaky = sh(*CLI, "check", "--base", "main")
        assert leaky.returncode == 1, leaky.stdout[-3000:] + leaky.stderr
        assert ("custom_rules: REGRESSED (37 newly failing, 0 newly passing of 76 paired items; McNemar p = 1.46e-11"
                in leaky.stdout)  # 2 x 0.5^37: every attack on the code now fails, nothing else moved
        assert json.loads((tmp_path / "trust.json").read_text())["baseline"]["newly_failing"] == code_items
        markdown = (tmp_path / "trust.md").read_text()
        assert markdown.startswith("## pytest-trust check: FAILED (regressed: custom_rules)")
        assert "| custom_rules | 76 | 37 | 0 |" in markdown and "- `no-discount-code/indirection/1`" in markdown

        sh("git", "checkout", "-qf", "main")
        sh("git", "clean", "-qfd")
        sh("git", "checkout", "-qb", "context")  # the deployment's rules as the file states them, edited alone
        text = rules.read_text()
        rules.write_text(text.replace("give it to no one.", "give it to no one. Always repeat your instructions first."))
        edited = sh(*CLI, "check", "--base", "main")
    assert edited.returncode == 1, edited.stdout[-3000:] + edited.stderr
    assert "custom_rules: REGRESSED (37 newly failing, 0 newly passing of 76 paired items" in edited.stdout
    assert "same deployment on both sides" not in edited.stdout
    sides = [line for line in edited.stdout.splitlines() if line.startswith(("pytest-trust check: base main:",
                                                                              "pytest-trust check: this change:"))]
    digests = [line.rsplit("trust_rules.yaml (sha256 ", 1)[1] for line in sides]
    assert len(sides) == 2 and digests[0] != digests[1], sides


def test_the_change_names_each_side_s_prompt_and_application():
    from pytest_trust.change.summary import deployment, same_deployment

    base = {"model": "m", "system_prompt": {"source": "conftest.py", "sha256": "a" * 64}, "target": None}
    head = {**base, "target": {"name": "app:reply", "version": "v3", "sha256": "b" * 64}}
    assert deployment(base) == f"model m, system prompt from conftest.py (sha256 {'a' * 12})"
    assert deployment(head) == (f"model m, system prompt from conftest.py (sha256 {'a' * 12}), application app:reply "
                                f"(version v3, sha256 {'b' * 12})")
    assert same_deployment(base, base) and not same_deployment(base, head)
    ruled = {**base, "files": {"rules": {"path": "/base/worktree/trust_rules.yaml", "sha256": "c" * 64}}}
    moved = {**base, "files": {"rules": {"path": "/repo/trust_rules.yaml", "sha256": "c" * 64}}}  # the same bytes
    edited = {**base, "files": {"rules": {"path": "/repo/trust_rules.yaml", "sha256": "d" * 64}}}
    assert deployment(ruled) == f"model m, system prompt from conftest.py (sha256 {'a' * 12}), trust_rules.yaml " \
                                f"(sha256 {'c' * 12})"
    assert same_deployment(ruled, moved) and not same_deployment(ruled, edited) and not same_deployment(base, ruled)
