from pytest_trust.cli import main
from pytest_trust.recording.cassettes import read_cassette, write_cassette
from pytest_trust.recording.journal import Journal


def test_merge_and_list(tmp_path, capsys):
    model_root = tmp_path / "m"
    write_cassette(model_root / "rules" / "A.json", {"x/1": [{"item_id": "x/1", "episode": 0}]})
    journal = Journal(model_root, "run9", "gw9")
    journal.append(model_root / "rules" / "A.json", "x/2", [{"item_id": "x/2", "episode": 0},
                                                           {"item_id": "x/2", "episode": 1}])
    journal.close()
    dead = journal.path.with_name("run9-gw9-999999999.jsonl")  # as left by a killed run
    journal.path.rename(dead)
    assert main(["merge", "--model", "m", "--cassettes", str(tmp_path)]) == 0
    assert sorted(read_cassette(model_root / "rules" / "A.json")) == ["x/1", "x/2"]
    assert main(["list", "--model", "m", "--cassettes", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "merged 1 item(s)" in out and "rules/A.json\t2 items\t3 interactions" in out
