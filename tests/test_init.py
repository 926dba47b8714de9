"""`pytest-trust init`: the files a project needs, never overwriting, and a layout that collects."""

import os
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, mirror

from pytest_trust.benchmarks import BENCHMARKS, SUITES
from pytest_trust.cli import main
from pytest_trust.results.gates import load_thresholds

FIRST = next(iter(BENCHMARKS))  # the registry's first benchmark, whichever it is
VALID = [k for name, b in BENCHMARKS.items() for k in [*b.metric_keys(), f"{name}.error_rate"]]


INSTALL = ["--install", "pytest-trust==0.1.0"]  # this checkout is an editable install, which no CI runner reaches


def _workflow(path):
    return yaml.safe_load((path / ".github" / "workflows" / "trust.yml").read_text())


def _runs(job):
    return [step.get("run", "") for step in job["steps"]]


def test_init_writes_the_layout_and_prints_the_next_commands(tmp_path, capsys):
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--model", "my-model", "--profile", "smoke"]) == 0
    out = capsys.readouterr().out
    for name in ("conftest.py", "thresholds.yaml", "cassettes/README.md", "cassettes/.gitignore",
                 ".github/workflows/trust.yml"):
        assert (tmp_path / name).is_file(), name
        assert f"written: {tmp_path / name}" in out
    assert "record" in out and "--record-mode=new_episodes" in out and "--block-network" in out
    assert "pytest-trust thresholds bless trust.json" in out
    conftest = (tmp_path / "conftest.py").read_text()
    compile(conftest, "conftest.py", "exec")
    assert "# def pytest_trust_system_prompt(config):" in conftest  # commented: nothing runs until uncommented
    thresholds = load_thresholds(tmp_path / "thresholds.yaml", "my-model", VALID)
    assert {g.key for g in thresholds.gates} == {f"{name}.error_rate" for name in BENCHMARKS}
    assert all(g.max == 0.0 for g in thresholds.gates) and thresholds.settings == {"soft": True}


def test_the_workflow_replays_offline_on_pull_requests_and_records_by_hand_in_shards(tmp_path):
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--model", "my-model", "--base-url", "https://example.test/v1"]) == 0
    flow = _workflow(tmp_path)
    assert set(flow["on"]) == {"pull_request", "workflow_dispatch"}
    assert flow["env"]["PYTEST_TRUST_MODEL"] == "my-model"
    check, record, merge = flow["jobs"]["check"], flow["jobs"]["record"], flow["jobs"]["merge"]
    assert "pull_request" in check["if"]
    assert 'pytest-trust check --base "origin/${{ github.base_ref }}"' in _runs(check)
    checking = next(s for s in check["steps"] if s.get("run", "").startswith("pytest-trust check"))
    assert checking["env"]["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    assert check["steps"][0]["with"]["fetch-depth"] == 0  # the base branch's commits, for --base
    assert any('>> "$GITHUB_STEP_SUMMARY"' in r for r in _runs(check))
    assert any(r.startswith("pytest-trust audit cassettes") and "trust.json" in r for r in _runs(check))
    assert "pip install pytest-trust==0.1.0" in _runs(check)
    comment = next(s for s in check["steps"] if "gh pr comment" in s.get("run", ""))
    assert "vars.PYTEST_TRUST_COMMENT == 'true'" in comment["if"] and "--edit-last" in comment["run"]  # opt-in, one
    for job in (check, record, merge):
        cache = [s for s in job["steps"] if s.get("uses", "").startswith("actions/cache@")]
        assert cache and cache[0]["with"]["path"] == "~/.cache/pytest-trust"
        assert "pytest-trust data fetch" in _runs(job)  # every benchmark: no --benchmark
    assert "workflow_dispatch" in record["if"] and "workflow_dispatch" in merge["if"]
    assert record["env"]["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    assert "OPENAI_BASE_URL" not in record["env"]  # the endpoint is an option of the command, as it was given
    shards = record["strategy"]["matrix"]["shard"]
    recording = next(r for r in _runs(record) if r.startswith("pytest "))
    assert "--trust-base-url=https://example.test/v1" in recording
    assert "--record-mode=new_episodes" in recording and f"--trust-shard=${{{{ matrix.shard }}}}/{len(shards)}" in recording
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in record["steps"])
    assert merge["needs"] == "record" and merge["permissions"] == {"contents": "write"}
    assert any(r.startswith("pytest-trust report merge shards/*/shard-*.json") for r in _runs(merge))
    assert any("git push" in r for r in _runs(merge))
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in merge["steps"])


@pytest.mark.slow
def test_the_generated_layout_collects_the_chosen_benchmarks(tmp_path, capsys):
    chosen = SUITES[BENCHMARKS[FIRST].suites[0].name].name
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--benchmark", chosen, "--profile", "smoke"]) == 0
    thresholds = load_thresholds(tmp_path / "thresholds.yaml", None, VALID)
    assert [g.key for g in thresholds.gates] == [f"{FIRST}.error_rate"]
    run = next(r for r in _runs(_workflow(tmp_path)["jobs"]["record"]) if r.startswith("pytest "))
    args = shlex.split(run.split("--record-mode")[0])[1:]  # the workflow's own selection, collecting only
    assert args[args.index("-m") + 1] == chosen
    assert f"pytest-trust data fetch --benchmark {FIRST}" in _runs(_workflow(tmp_path)["jobs"]["check"])
    with open(tmp_path / "conftest.py", "a") as fh:  # the generated conftest.py is read: it names what was collected
        fh.write("\ndef pytest_collection_finish(session):\n"
                 "    from pytest_trust.benchmarks import SUITES\n"
                 "    names = {m.name for item in session.items for m in item.iter_markers() if m.name in SUITES}\n"
                 "    print('suites collected:', sorted(names))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if mirror():
        env["PYTEST_TRUST_DATA"] = str(mirror())
    done = subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "--collect-only", "-p", "no:cacheprovider"],
                          check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"suites collected: {[chosen]!r}" in done.stdout
    assert "test_trust.py::test_trust[" in done.stdout


def test_init_never_overwrites_and_says_which_files_it_kept(tmp_path, capsys):
    (tmp_path / "conftest.py").write_text("# mine\n")
    (tmp_path / "thresholds.yaml").write_text("default: {}\n")
    assert main(["init", *INSTALL, "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "conftest.py").read_text() == "# mine\n"
    assert (tmp_path / "thresholds.yaml").read_text() == "default: {}\n"
    assert f"kept: {tmp_path / 'conftest.py'} (it exists, not overwritten)" in out
    assert f"written: {tmp_path / '.github' / 'workflows' / 'trust.yml'}" in out
    assert main(["init", *INSTALL, "--dir", str(tmp_path)]) == 0
    assert "written:" not in capsys.readouterr().out


def test_a_subfolder_of_a_repository_gets_its_workflow_at_the_root(tmp_path):
    (tmp_path / ".git").mkdir()
    assert main(["init", *INSTALL, "--dir", str(tmp_path / "trust")]) == 0
    flow = _workflow(tmp_path)
    assert flow["jobs"]["check"]["defaults"] == {"run": {"working-directory": "trust"}}
    assert (tmp_path / "trust" / "thresholds.yaml").is_file()
    assert not (tmp_path / "trust" / ".github").exists()


def test_an_unknown_benchmark_is_one_line_with_a_suggestion(tmp_path, capsys):
    typo = FIRST[:-1] + ("x" if FIRST[-1] != "x" else "y")
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--benchmark", typo]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--benchmark {typo}: no such benchmark; did you mean {FIRST}?" in err
    assert not any(tmp_path.iterdir())


def test_a_bad_option_is_one_line_exit_2(tmp_path, capsys):
    try:
        main(["init", *INSTALL, "--dir", str(tmp_path), "--profile", "huge"])
    except SystemExit as exit:
        assert exit.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--profile" in err and "huge" in err


@pytest.mark.slow
def test_init_record_replay_bless_replay_end_to_end_on_the_committed_recordings(tmp_path, capsys):
    """The flow README's "Use it in your project" gives, on this repository's recordings of its local model."""
    import tomllib

    model = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["trust_model"]
    recorded = ROOT / "cassettes" / model / FIRST
    if not recorded.is_dir() or mirror() is None:
        pytest.skip("needs the committed recordings of the local model and the data mirror")
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--benchmark", FIRST, "--model", model]) == 0
    replay = capsys.readouterr().out.split("2. ")[1].splitlines()[1].split()
    assert replay[0] == "pytest" and "--block-network" in replay
    shutil.copytree(recorded, tmp_path / "cassettes" / model / FIRST)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_TRUST_DATA": str(mirror())}

    def run():
        return subprocess.run([sys.executable, "-m", *replay, "-p", "no:cacheprovider"], check=False, cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)

    assert run().returncode == 0  # the error-rate gate alone
    assert main(["thresholds", "bless", str(tmp_path / "trust.json"), "--thresholds",
                 str(tmp_path / "thresholds.yaml")]) == 0
    gates = load_thresholds(tmp_path / "thresholds.yaml", model, VALID).gates
    assert len(gates) > 1
    done = run()
    assert done.returncode == 0, done.stdout[-3000:]
    assert f"gates passed: {len(gates)} passed, 0 failed" in done.stdout  # the run blessed passes its own gates


def test_the_merge_job_joins_the_shards_recordings(tmp_path):
    """Each shard records a slice of the items into the same cassette files: the merge job's script joins them."""
    from pytest_trust.recording.cassettes import read_cassette_file, write_cassette

    assert main(["init", *INSTALL, "--dir", str(tmp_path)]) == 0
    steps = _workflow(tmp_path)["jobs"]["merge"]["steps"]
    script = next(s["run"] for s in steps if s.get("name", "").startswith("join the shards"))
    items = read_cassette_file(next((ROOT / "cassettes").rglob("*.json")))[0]  # committed recordings
    assert len(items) > 6
    relative = "m/bench/scenario.json"
    write_cassette(tmp_path / "cassettes" / relative, {k: items[k] for k in list(items)[:3]})  # the branch's
    for shard, part in enumerate((list(items)[:len(items) // 2], list(items)[len(items) // 2:]), 1):
        write_cassette(tmp_path / "shards" / f"recorded-{shard}" / "cassettes" / relative,
                       {k: items[k] for k in [*list(items)[:3], *part]})
    subprocess.run(["bash", "-c", script], check=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert read_cassette_file(tmp_path / "cassettes" / relative)[0] == items


def test_a_re_run_merges_init_s_change_into_the_user_s_edits_and_names_what_it_cannot(tmp_path, capsys):
    """A second benchmark after the first: the workflow and the thresholds gain it, the user's edits (values,
    comments, steps) stay; an edit on the very lines init changes is kept and named, init's version beside it."""
    first, second = list(SUITES)[:2]
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--benchmark", first]) == 0
    thresholds, flow = tmp_path / "thresholds.yaml", tmp_path / ".github" / "workflows" / "trust.yml"
    thresholds.write_text(thresholds.read_text().replace("  soft: true", "  soft: true  # ours: keep it\n  inconclusive: pass"))
    flow.write_text(flow.read_text().replace("jobs:\n  check:\n", "jobs:\n  check:\n    timeout-minutes: 30  # ours\n"))
    capsys.readouterr()
    assert main(["init", "--dir", str(tmp_path), "--benchmark", second]) == 0
    out = capsys.readouterr().out
    assert f"updated: {thresholds} (init's change merged, your edits kept)" in out
    assert f"updated: {flow} (init's change merged, your edits kept)" in out
    assert f"unchanged: {tmp_path / 'conftest.py'}" in out
    gates = load_thresholds(thresholds, None, VALID)
    chosen = [SUITES[first].benchmark, SUITES[second].benchmark]
    assert {g.key for g in gates.gates} == {f"{name}.error_rate" for name in dict.fromkeys(chosen)}
    assert gates.settings == {"soft": True, "inconclusive": "pass"} and "# ours: keep it" in thresholds.read_text()
    workflow = _workflow(tmp_path)
    assert workflow["jobs"]["check"]["timeout-minutes"] == 30
    fetch = next(r for r in _runs(workflow["jobs"]["check"]) if r.startswith("pytest-trust data fetch"))
    assert all(f"--benchmark {name}" in fetch for name in dict.fromkeys(chosen))
    assert yaml.safe_load((tmp_path / "pytest-trust.yaml").read_text())["benchmarks"] == [first, second]

    third = list(SUITES)[2]
    text = flow.read_text()
    fetch_line = next(line for line in text.splitlines() if "pytest-trust data fetch" in line)
    flow.write_text(text.replace(fetch_line, fetch_line + "  # ours too", 1))  # the line init changes next
    edited = flow.read_text()
    assert main(["init", "--dir", str(tmp_path), "--benchmark", third]) == 0
    out = capsys.readouterr().out
    assert f"not merged: {flow} (your edits and init's change meet at" in out
    assert flow.read_text() == edited  # kept as the user left it
    assert f"--benchmark {SUITES[third].benchmark}" in (flow.parent / "trust.yml.init").read_text()


def test_an_application_target_goes_into_the_project_file_and_every_command(tmp_path, capsys):
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--benchmark", FIRST, "--target", "myapp.answer:reply"]) == 0
    out = capsys.readouterr().out
    assert yaml.safe_load((tmp_path / "pytest-trust.yaml").read_text())["target"] == "myapp.answer:reply"
    record = next(r for r in _runs(_workflow(tmp_path)["jobs"]["record"]) if r.startswith("pytest "))
    assert "--trust-target myapp.answer:reply" in record
    assert out.count("--trust-target myapp.answer:reply") == 2  # the record and replay commands printed


def test_a_local_endpoint_stays_out_of_the_workflow_and_init_says_so(tmp_path, capsys):
    assert main(["init", *INSTALL, "--dir", str(tmp_path), "--base-url", "http://127.0.0.1:8080/v1"]) == 0
    assert "note: --base-url http://127.0.0.1:8080/v1 is a local address no CI runner reaches" in capsys.readouterr().out
    record = next(r for r in _runs(_workflow(tmp_path)["jobs"]["record"]) if r.startswith("pytest "))
    assert "--trust-base-url" not in record and "127.0.0.1" not in (tmp_path / ".github/workflows/trust.yml").read_text()


def test_a_recording_run_s_journals_and_lock_are_ignored_by_git(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert main(["init", *INSTALL, "--dir", str(tmp_path)]) == 0
    for leftover in ("cassettes/m/.journal/run.jsonl", "cassettes/m/.lock", "cassettes/m/rules/s.json"):
        (tmp_path / leftover).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / leftover).write_text("{}")
    listed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "cassettes"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout
    assert "cassettes/m/rules/s.json" in listed and ".journal" not in listed and ".lock" not in listed
