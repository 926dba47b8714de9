from pytest_trust.cli import main
from pytest_trust.recording.cassettes import read_cassette, write_cassette
from pytest_trust.recording.journal import Journal


def interaction(item_id: str, episode: int) -> dict:
    return {"item_id": item_id, "digest": "d" * 64, "episode": episode,
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}}}


def test_merge_and_list(tmp_path, capsys):
    model_root = tmp_path / "m"
    write_cassette(model_root / "rules" / "A.json", {"x/1": [interaction("x/1", 0)]})
    journal = Journal(model_root, "run9", "gw9")
    journal.append(model_root / "rules" / "A.json", "x/2", [interaction("x/2", 0), interaction("x/2", 1)])
    journal.close()
    dead = journal.path.with_name("run9-gw9-999999999.jsonl")  # as left by a killed run
    journal.path.rename(dead)
    assert main(["merge", "--model", "m", "--cassettes", str(tmp_path)]) == 0
    assert sorted(read_cassette(model_root / "rules" / "A.json")) == ["x/1", "x/2"]
    assert main(["list", "--model", "m", "--cassettes", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "merged 1 item(s)" in out and "rules/A.json\t2 items\t3 interactions" in out


def test_import_decodingtrust_twice_gives_identical_files_and_reports_per_cassette_unit(tmp_path, data_mirror, capsys):
    args = ["import", "decodingtrust", "--model", "gpt4", "--only", "fairness", "--data", str(data_mirror),
            "--cassettes", str(tmp_path)]
    assert main(args) == 0
    first = {p: p.read_bytes() for p in sorted(tmp_path.rglob("*.json"))}
    out = capsys.readouterr().out
    assert "fairness/few_shot_16_fair_demon: 200 item(s) imported" in out
    assert "fairness/crime_br_0.0: 0 item(s) imported; not recorded:" in out
    assert f"600 items imported into {tmp_path / 'gpt-4-0314'} (12 files)" in out
    assert main(args) == 0
    assert {p: p.read_bytes() for p in sorted(tmp_path.rglob("*.json"))} == first


def test_import_of_a_model_decodingtrust_never_recorded_is_one_message(tmp_path, capsys):
    assert main(["import", "decodingtrust", "--model", "llama-3", "--cassettes", str(tmp_path)]) == 2
    assert "DecodingTrust recorded no run of 'llama-3'" in capsys.readouterr().err


def test_merge_names_a_corrupt_cassette_and_exits_one(tmp_path, capsys):
    model_root = tmp_path / "m"
    journal = Journal(model_root, "run9", "gw9")
    journal.append(model_root / "rules" / "A.json", "x/2", [interaction("x/2", 0)])
    journal.close()
    (model_root / "rules").mkdir(parents=True)
    (model_root / "rules" / "A.json").write_text('{"version": 1, "interactions": [')
    assert main(["merge", "--model", "m", "--cassettes", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "A.json" in err and "--record-mode=rewrite" in err


def test_list_of_a_model_never_recorded_says_so_and_names_the_recorded_ones(tmp_path, capsys):
    write_cassette(tmp_path / "m" / "rules" / "A.json", {"x/1": [interaction("x/1", 0)]})
    assert main(["list", "--model", "gpt-5", "--cassettes", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"pytest-trust list: no recordings of model 'gpt-5': {tmp_path / 'gpt-5'} "
                                       f"does not exist (recorded models under {tmp_path}: m)\n")


def test_list_into_a_closed_pipe_exits_quietly(tmp_path):
    """`pytest-trust list ... | head`: head has gone when list writes; no BrokenPipeError traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    write_cassette(tmp_path / "m" / "rules" / "A.json", {"x/1": [interaction("x/1", 0)]})
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    try:
        listed = subprocess.run([sys.executable, "-m", "pytest_trust.cli", "list", "--model", "m", "--cassettes",
                                 str(tmp_path)], stdout=write_end, stderr=subprocess.PIPE, text=True, env=env,
                                check=False)
    finally:
        os.close(write_end)
    assert listed.stderr == "" and listed.returncode == 141  # as a tool killed by SIGPIPE: 128 + 13


def test_the_options_of_list_and_merge_say_what_they_take(capsys):
    import pytest

    for command in ("list", "merge"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--model NAME the model whose recordings" in text and "--cassettes DIR cassette root" in text


def test_join_takes_every_shards_files_item_by_item_the_later_source_winning(tmp_path, capsys):
    first, second, joined = tmp_path / "shard-1", tmp_path / "shard-2", tmp_path / "cassettes"
    write_cassette(first / "m" / "rules" / "A.json", {"x/1": [interaction("x/1", 0)], "x/2": [interaction("x/2", 0)]})
    write_cassette(second / "m" / "rules" / "A.json", {"x/2": [interaction("x/2", 1)], "x/3": [interaction("x/3", 0)]})
    write_cassette(second / "m" / "ood" / "B.json", {"y/1": [interaction("y/1", 0)]})
    assert main(["join", str(first), str(second), "--cassettes", str(joined)]) == 0
    assert "joined 5 item(s) of 3 cassette file(s) into" in capsys.readouterr().out  # x/2 counted per source
    a = read_cassette(joined / "m" / "rules" / "A.json")
    assert sorted(a) == ["x/1", "x/2", "x/3"] and [i["episode"] for i in a["x/2"]] == [1]
    assert list(read_cassette(joined / "m" / "ood" / "B.json")) == ["y/1"]


def test_join_of_a_missing_folder_or_a_corrupt_file_is_one_message(tmp_path, capsys):
    assert main(["join", str(tmp_path / "nowhere"), "--cassettes", str(tmp_path / "c")]) == 2
    assert capsys.readouterr().err == f"pytest-trust join: not a folder: {tmp_path / 'nowhere'}\n"
    (tmp_path / "shard" / "m" / "rules").mkdir(parents=True)
    (tmp_path / "shard" / "m" / "rules" / "A.json").write_text("{not json")
    assert main(["join", str(tmp_path / "shard"), "--cassettes", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pytest-trust join: ") and "A.json" in err and err.count("\n") == 1
    assert not (tmp_path / "c").exists()
