"""What a run leaves out, and says it left out: --trust-recorded-only and --trust-shard as a suite's items are
parametrized, a cassette unit left out unread, a -m expression that names no marker."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_trust.items import Item
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.run.selection import Selection, marker_lines


def item(cassette: str, number: int) -> Item:
    return Item(id=f"{cassette}/{number}", benchmark="bench", cassette=cassette, inputs={}, decoding={})


def recorded(tmp_path: Path, ids: list[str]) -> Recorder:
    folder = tmp_path / "m" / "bench"
    folder.mkdir(parents=True)
    interactions = [{"item_id": item_id, "digest": "d" * 64, "episode": 0, "request": {"body": "{}"},
                     "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}}}
                    for item_id in ids]
    (folder / "s.json").write_text(json.dumps({"version": 1, "interactions": interactions}))
    return Recorder(tmp_path, "m", RecordMode.NONE)


def test_recorded_only_keeps_the_recorded_items_and_counts_the_rest(tmp_path):
    selection = Selection(None, None, recorded(tmp_path, ["s/1"]))
    assert [i.id for i in selection.keep([item("s", 0), item("s", 1), item("s", 2)])] == ["s/1"]
    assert selection.left_out_lines() == ["--trust-recorded-only: 2 items without a recording left out"]


def test_a_cassette_unit_without_a_file_is_left_out_unread_and_counted(tmp_path):
    selection = Selection(None, None, recorded(tmp_path, ["s/1"]))
    assert selection.skips("bench", "other", 7) and not selection.skips("bench", "s", 3)
    assert not selection.skips("unrecorded-benchmark", "x", 5)  # kept whole: the plugin says it has no recordings
    assert selection.unrecorded == 7
    sharded = Selection((1, 2), "1/2", recorded(tmp_path / "sharded", ["s/1"]))
    assert not sharded.skips("bench", "other", 7)  # a shard needs each item's key to count what it leaves out
    assert not Selection(None, None, None).skips("bench", "other", 7)  # not --trust-recorded-only


def test_a_marker_nobody_registered_is_named_with_the_closest_one():
    lines = marker_lines("rulez", ["rules: RuLES", "slow: a registered marker"], 0)
    assert len(lines) == 1 and "names 'rulez', no marker of a pytest-trust suite; did you mean rules?" in lines[0]
    assert marker_lines("slow", ["slow: a registered marker"], 3) == []
