"""The recording layer: cassette files, journals, record modes, scrubbing, replay by digest.

The live side here is an httpx2.MockTransport (vcrpy intercepts it like a real transport); the
plugin tests and the live-model test exercise real HTTP.
"""

from __future__ import annotations

import json
import lzma
import os
import stat
import subprocess
import sys
import textwrap

import httpx2
import openai
import pytest
from conftest import ROOT
from fake_model import completion
from vcr.serialize import deserialize
from vcr.serializers import jsonserializer

from pytest_trust.errors import CassetteMiss, CorruptCassette
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.recording.answers import recorded_choices
from pytest_trust.recording.cassettes import (
    FIRST_LINE,
    cassette_file,
    parse_json,
    read_cassette,
    read_cassette_file,
    write_cassette,
)
from pytest_trust.recording.journal import Journal, MergeReport, merge_journals
from pytest_trust.recording.transport import TrustTransport

REPAIR = "restore it from git, or re-record its items with --record-mode=rewrite"

MESSAGES = [{"role": "user", "content": "say hi"}]


class Live:
    """A MockTransport 'provider' that answers 'answer <k>' to its k-th request."""

    def __init__(self, status: int = 200) -> None:
        self.calls = 0
        self.status = status
        self.transport = httpx2.MockTransport(self.handle)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.calls += 1
        body = json.loads(request.read())
        return httpx2.Response(self.status, json=completion(body, [f"answer {self.calls}"]),
                               headers={"x-request-id": "req-1", "set-cookie": "a=b", "openai-organization": "org-x"})


def client(recorder: Recorder, live: Live | None) -> openai.OpenAI:
    transport = TrustTransport(recorder, "/v1", live.transport if live else None)
    return openai.OpenAI(base_url="http://provider.test/v1", api_key="sk-SECRET-KEY-123", max_retries=0,
                         http_client=httpx2.Client(transport=transport))


def ask(c: openai.OpenAI, content: str = "say hi") -> str:
    r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": content}], temperature=0)
    return r.choices[0].message.content


def stored(item_id: str, digest: str = "d" * 64, episode: int = 0, text: str = "x") -> dict:
    """An interaction as a recording stores it."""
    return {"item_id": item_id, "digest": digest, "episode": episode,
            "request": {"method": "POST", "uri": "http://provider.test/v1/chat/completions", "body": "{}",
                        "headers": {}},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": ["text/plain"]},
                         "body": {"string": text}}}


def record_item(tmp_path, item_id="suite/A/1", live=None, mode=RecordMode.NEW_EPISODES, asks=("say hi",),
                cassette="A"):
    recorder = Recorder(tmp_path, "m", mode)
    live = live or Live()
    c = client(recorder, live)
    recorder.begin("bench", cassette, item_id)
    answers = [ask(c, q) for q in asks]
    recorder.end()
    merged = recorder.merge()
    return answers, merged, live


def test_record_then_replay_without_live_transport(tmp_path):
    answers, merged, live = record_item(tmp_path, asks=("say hi", "say hi", "other"))
    assert answers == ["answer 1", "answer 2", "answer 3"] and merged.items == 1 and live.calls == 3
    replayer = Recorder(tmp_path, "m", RecordMode.NONE)
    c = client(replayer, None)
    replayer.begin("bench", "A", "suite/A/1")
    # the same digest twice is two episodes, served in recorded order
    assert [ask(c, "say hi"), ask(c, "say hi"), ask(c, "other")] == answers
    replayer.end()


def test_cassette_holds_no_credentials_or_volatile_headers(tmp_path):
    record_item(tmp_path)
    text = cassette_file(tmp_path, "m", "bench", "A").read_text()
    for secret in ("sk-SECRET-KEY-123", "authorization", "x-stainless", "user-agent", "set-cookie",
                   "x-request-id", "openai-organization"):
        assert secret.lower() not in text.lower()


def test_vcrpy_reads_our_cassette_files(tmp_path):
    record_item(tmp_path, asks=("say hi", "other"))
    text = cassette_file(tmp_path, "m", "bench", "A").read_text()
    requests, responses = deserialize(text, jsonserializer)
    assert [r.method for r in requests] == ["POST", "POST"]
    assert json.loads(requests[1].body)["messages"][0]["content"] == "other"
    assert json.loads(responses[0]["body"]["string"])["choices"][0]["message"]["content"] == "answer 1"


def test_miss_names_item_digest_cassette_and_hint(tmp_path):
    record_item(tmp_path)
    replayer = Recorder(tmp_path, "m", RecordMode.NONE)
    c = client(replayer, None)
    replayer.begin("bench", "A", "suite/A/1", hint="pytest 'x::y' --record-mode=new_episodes")
    with pytest.raises(CassetteMiss) as err:
        ask(c, "never recorded")
    text = str(err.value)
    assert "suite/A/1" in text and "A.json" in text and "request digest" in text
    assert "--record-mode=new_episodes" in text and "1 interaction(s) recorded" in text


def test_failed_exchange_is_never_recorded(tmp_path):
    with pytest.raises(openai.InternalServerError):
        record_item(tmp_path, live=Live(status=500))
    assert read_cassette(cassette_file(tmp_path, "m", "bench", "A")) == {}


def test_record_modes(tmp_path):
    record_item(tmp_path, asks=("say hi",))
    # new_episodes: replays what is there, records only the missing request
    answers, _, live = record_item(tmp_path, asks=("say hi", "other"), live=Live())
    assert answers == ["answer 1", "answer 1"] and live.calls == 1
    # once: an item with recordings is replayed strictly; a miss is an error, not a recording
    with pytest.raises(CassetteMiss):
        record_item(tmp_path, asks=("third",), mode=RecordMode.ONCE)
    # once: an item with no recording is recorded
    answers, _, live = record_item(tmp_path, item_id="suite/A/2", asks=("say hi",), mode=RecordMode.ONCE)
    assert live.calls == 1
    # all: everything re-recorded, and the item's old interactions replaced
    answers, _, live = record_item(tmp_path, asks=("say hi",), mode=RecordMode.ALL, live=Live())
    assert live.calls == 1
    by_item = read_cassette(cassette_file(tmp_path, "m", "bench", "A"))
    assert [len(by_item[i]) for i in sorted(by_item)] == [1, 1]


def test_files_are_sorted_and_stable(tmp_path):
    path = tmp_path / "x.json"
    interactions = {"b": [stored("b")], "a": [stored("a"), stored("a", episode=1)]}
    write_cassette(path, interactions)
    first = path.read_bytes()
    write_cassette(path, dict(reversed(list(interactions.items()))))
    assert path.read_bytes() == first
    assert [i["item_id"] for i in json.loads(first)["interactions"]] == ["a", "a", "b"]
    assert not list(tmp_path.glob(".*tmp"))


def test_corrupt_cassette_is_one_clear_error(tmp_path):
    path = tmp_path / "A.json"
    path.write_text('{"version": 1, "interactions": [')
    with pytest.raises(CorruptCassette, match="A.json cannot be read"):
        read_cassette(path)


def test_journal_of_a_killed_run_is_merged_without_the_item_in_flight(tmp_path):
    model_root = tmp_path / "m"
    cassette = model_root / "bench" / "A.json"
    journal = Journal(model_root, "run1", "gw0")
    journal.append(cassette, "suite/A/1", [stored("suite/A/1")])
    journal.close()
    with open(journal.path, "a") as fh:  # a SIGKILL mid-write leaves half a line
        fh.write('{"cassette": "bench/A.json", "item_id": "suite/A/2", "interac')
    dead = journal.path.with_name("run1-gw0-999999999.jsonl")
    os.replace(journal.path, dead)
    assert merge_journals(model_root, "another-run").items == 1
    assert list(read_cassette(cassette)) == ["suite/A/1"]
    assert not dead.exists()


def test_journal_of_another_live_session_is_left_alone(tmp_path):
    model_root = tmp_path / "m"
    journal = Journal(model_root, "run1")  # named with this (alive) process's pid
    journal.append(model_root / "bench" / "A.json", "suite/A/1", [])
    assert merge_journals(model_root).items == 0  # at start: only dead writers' journals
    assert merge_journals(model_root, "run2").items == 0  # another session's end: not its journal
    assert merge_journals(model_root, "run1").items == 1  # its own session's end
    journal.close()


# --- journals: a writer's liveness is its lock, not a PID ------------------------------------------


def dead_journal(model_root, name: str, lines: list[tuple[str, str, list]]):
    """A journal as left by a writer that has exited (closed, so its lock is free), renamed to ``name``."""
    journal = Journal(model_root, "old")
    for cassette, item_id, interactions in lines:
        journal.append(model_root / cassette, item_id, interactions)
    journal.close()
    return journal.path.rename(journal.path.with_name(name))


@pytest.mark.parametrize("whose", ["pid-1", "own-pid"])  # PID 1 in containers; a PID reused by us
def test_journal_of_a_gone_writer_is_merged_whatever_pid_its_name_carries(tmp_path, whose):
    pid = 1 if whose == "pid-1" else os.getpid()
    model_root = tmp_path / "m"
    path = dead_journal(model_root, f"run1-main-{pid}.jsonl", [("bench/A.json", "suite/A/1", [stored("suite/A/1")])])
    assert merge_journals(model_root).items == 1
    assert read_cassette(model_root / "bench" / "A.json") == {"suite/A/1": [stored("suite/A/1")]}
    assert not path.exists()


CHILD_WRITER = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from pytest_trust.recording.journal import Journal
    root = Path(sys.argv[1])
    journal = Journal(root, "run1", "gw0")
    journal.append(root / "bench" / "A.json", "suite/A/1", [json.loads(sys.argv[2])])
    print(journal.path, flush=True)
    sys.stdin.read()  # keeps the journal open until the test closes our stdin
""")


def test_journal_held_open_by_another_live_process_is_left_alone_until_it_exits(tmp_path):
    model_root = tmp_path / "m"
    child = subprocess.Popen([sys.executable, "-c", CHILD_WRITER, str(model_root), json.dumps(stored("suite/A/1"))],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        written = child.stdout.readline().strip()
        assert written.endswith(f"run1-gw0-{child.pid}.jsonl")
        # a name whose PID is dead (or reused) must not matter: the open file's lock does
        renamed = model_root / ".journal" / "run1-gw0-999999999.jsonl"
        os.rename(written, renamed)
        assert merge_journals(model_root).items == 0
        assert merge_journals(model_root, "run2").items == 0
        assert renamed.exists() and read_cassette(model_root / "bench" / "A.json") == {}
    finally:
        child.stdin.close()
        child.wait(timeout=60)
    assert merge_journals(model_root).items == 1
    assert not renamed.exists() and list(read_cassette(model_root / "bench" / "A.json")) == ["suite/A/1"]


def test_a_journal_reopened_after_close_is_a_new_locked_file(tmp_path):
    model_root = tmp_path / "m"
    journal = Journal(model_root, "run1")
    journal.append(model_root / "bench" / "A.json", "suite/A/1", [stored("suite/A/1")])
    journal.close()
    first = journal.path
    journal.append(model_root / "bench" / "A.json", "suite/A/2", [stored("suite/A/2")])
    assert journal.path != first and journal.path.name.startswith("run1-")
    assert merge_journals(model_root).items == 1  # the closed one only; the open one is locked
    assert list(read_cassette(model_root / "bench" / "A.json")) == ["suite/A/1"]
    journal.close()
    assert merge_journals(model_root).items == 1
    assert list(read_cassette(model_root / "bench" / "A.json")) == ["suite/A/1", "suite/A/2"]


# --- a damaged file affects only its own items ------------------------------------------------------


def test_a_corrupt_cassette_is_reported_and_the_others_are_merged(tmp_path):
    model_root = tmp_path / "m"
    broken = model_root / "bench" / "A.json"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"version": 1, "interactions": [')
    path = dead_journal(model_root, "run1-main-999999999.jsonl", [
        ("bench/A.json", "suite/A/1", [stored("suite/A/1")]),
        ("bench/B.json", "suite/B/1", [stored("suite/B/1")]),
    ])
    report = merge_journals(model_root)
    assert report.items == 1 and len(report.problems) == 1
    problem = report.problems[0]
    assert str(broken) in problem and REPAIR in problem and "\n" not in problem
    assert read_cassette(model_root / "bench" / "B.json") == {"suite/B/1": [stored("suite/B/1")]}
    # the journal keeps only the line it could not merge: B's item is not merged a second time
    assert [json.loads(line)["item_id"] for line in path.read_text().splitlines()] == ["suite/A/1"]
    assert merge_journals(model_root).problems == (problem,)
    broken.unlink()  # "restored": now A's item merges and the journal is gone
    report = merge_journals(model_root)
    assert (report.items, report.problems) == (1, ())
    assert list(read_cassette(broken)) == ["suite/A/1"] and not path.exists()


@pytest.fixture
def file_size_limit():
    """Writes past ``limit`` bytes a file fail (EFBIG) as on a full disk: a real failing write, no root needed
    (Python ignores SIGXFSZ, so the write returns the error)."""
    import resource

    before = resource.getrlimit(resource.RLIMIT_FSIZE)
    yield lambda limit: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, before[1]))
    resource.setrlimit(resource.RLIMIT_FSIZE, before)


def test_a_merge_whose_writes_fail_leaves_no_temporary_file(tmp_path, file_size_limit):
    """A: merged. B: too big to write, as on a full disk, so its line stays, and the journal's rewrite (B's line
    only) fails too: both are reported, and neither the cassette's nor the journal's temporary file is left."""
    model_root = tmp_path / "m"
    big = stored("suite/B/1", text="x" * 64 * 1024)
    path = dead_journal(model_root, "run1-main-999999999.jsonl", [
        ("bench/A.json", "suite/A/1", [stored("suite/A/1")]),
        ("bench/B.json", "suite/B/1", [big]),
    ])
    journal = path.read_bytes()
    file_size_limit(16 * 1024)
    report = merge_journals(model_root)
    file_size_limit(-1)
    assert report.items == 1 and list(read_cassette(model_root / "bench" / "A.json")) == ["suite/A/1"]
    unwritten = model_root / "bench" / "B.json"
    assert [p.split(" (")[0] for p in report.problems] == [f"cassette {unwritten} cannot be written",
                                                           f"journal {path} cannot be updated"]
    assert path.read_bytes() == journal  # A's line is merged again next time: the same answer, no loss
    assert sorted(p.name for p in model_root.rglob("*") if p.is_file()) == [".lock", "A.json", path.name]


def test_a_damaged_journal_line_is_reported_and_kept_and_the_rest_merged(tmp_path):
    model_root = tmp_path / "m"
    journal_dir = model_root / ".journal"
    journal_dir.mkdir(parents=True)
    good = [json.dumps({"cassette": "bench/A.json", "item_id": f"suite/A/{n}", "interactions": [stored(f"suite/A/{n}")]})
            for n in (1, 2)]
    bad_lines = ["{not json", json.dumps({"cassette": "../../etc/A.json", "item_id": "x", "interactions": []}),
                 json.dumps({"cassette": "bench/A.json", "item_id": "x", "interactions": [{"item_id": "x"}]})]
    path = journal_dir / "run1-main-1.jsonl"
    path.write_text("\n".join([good[0], *bad_lines, good[1]]) + "\n" + '{"cassette": "bench/A.js')  # torn last line
    report = merge_journals(model_root)
    assert report.items == 2 and list(read_cassette(model_root / "bench" / "A.json")) == ["suite/A/1", "suite/A/2"]
    assert [p.split(" cannot be merged")[0] for p in report.problems] == [
        f"journal {path} line {n}" for n in (1, 2, 3)]  # the lines as the journal now numbers them
    assert "is not JSON" in report.problems[0] and "no cassette file" in report.problems[1]
    assert "'digest'" in report.problems[2] and all("delete that line" in p for p in report.problems)
    assert path.read_text().splitlines() == bad_lines  # merged and torn lines gone, damaged ones kept
    assert not (model_root / "etc").exists() and not (tmp_path / "etc").exists()


def test_a_corrupt_cassette_file_fails_only_its_own_items_every_time(tmp_path):
    record_item(tmp_path, "suite/A/1", cassette="A")
    record_item(tmp_path, "suite/B/1", cassette="B")
    broken = cassette_file(tmp_path, "m", "bench", "A")
    broken.write_text('{"version": 1, "interactions": [{"item_id": "suite/A/1"}]}')
    replayer = Recorder(tmp_path, "m", RecordMode.NONE)
    messages = []
    for item_id in ("suite/A/1", "suite/A/2", "suite/A/1"):
        with pytest.raises(CorruptCassette) as err:
            replayer.begin("bench", "A", item_id)
        replayer.end()
        messages.append(str(err.value))
    assert len(set(messages)) == 1 and str(broken) in messages[0] and REPAIR in messages[0]
    assert "suite/A/9" in replayer.recorded("bench", "A")  # kept by --trust-recorded-only, so it reports
    c = client(replayer, None)
    replayer.begin("bench", "B", "suite/B/1")
    assert ask(c) == "answer 1"
    replayer.end()


def test_a_replay_holds_a_files_answers_only_while_its_expected_items_play(tmp_path):
    """Seen through edits to the file between items: the collection's index read holds no answers, the answers read
    for the first item serve the second, and after the last expected item an item played again reads them anew, as
    does a question of its recorded ids."""
    record_item(tmp_path, "suite/A/1")
    record_item(tmp_path, "suite/A/2")
    path = cassette_file(tmp_path, "m", "bench", "A")
    replayer = Recorder(tmp_path, "m", RecordMode.NONE)
    replayer.expect({("bench", "A"): 2})
    c = client(replayer, None)

    def play(item_id: str) -> str:
        replayer.begin("bench", "A", item_id)
        try:
            return ask(c)
        finally:
            replayer.end()

    assert "suite/A/2" in replayer.recorded("bench", "A") and "suite/A/3" not in replayer.recorded("bench", "A")
    path.write_text(path.read_text().replace("answer 1", "edited 1"))
    assert play("suite/A/1") == "edited 1"  # read now, not at the index
    path.write_text(path.read_text().replace("edited 1", "edited 2"))
    assert play("suite/A/2") == "edited 1"  # held for the second expected item
    assert play("suite/A/1") == "edited 2"  # let go after it: a rerun reads the file again
    record_item(tmp_path, "suite/A/3")
    assert "suite/A/3" in replayer.recorded("bench", "A")  # its ids let go with its answers: read again too


def test_rewrite_mode_repairs_a_corrupt_cassette(tmp_path):
    record_item(tmp_path, "suite/A/1")
    broken = cassette_file(tmp_path, "m", "bench", "A")
    broken.write_text("\x00garbage")
    with pytest.raises(CorruptCassette):
        record_item(tmp_path, "suite/A/1", mode=RecordMode.NEW_EPISODES)
    answers, merged, _ = record_item(tmp_path, "suite/A/2", mode=RecordMode.REWRITE)
    assert answers == ["answer 1"] and (merged.items, merged.problems) == (1, ())
    assert list(read_cassette(broken)) == ["suite/A/2"]


def test_a_rewrite_run_does_not_replace_a_corrupt_cassette_it_did_not_record_into(tmp_path):
    model_root = tmp_path / "m"
    other = model_root / "bench" / "C.json"
    other.parent.mkdir(parents=True)
    other.write_text("[]")
    dead_journal(model_root, "run0-main-1.jsonl", [("bench/C.json", "suite/C/1", [stored("suite/C/1")])])
    _, merged, _ = record_item(tmp_path, "suite/A/1", mode=RecordMode.REWRITE)
    assert merged.items == 1 and len(merged.problems) == 1 and str(other) in merged.problems[0]
    assert other.read_text() == "[]"


# --- permissions --------------------------------------------------------------------------------------


@pytest.fixture
def umask():
    def set_umask(value: int) -> None:
        os.umask(value)

    old = os.umask(0o022)
    yield set_umask
    os.umask(old)


def mode_of(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_cassettes_get_the_usual_permissions(tmp_path, umask):
    path = tmp_path / "A.json"
    write_cassette(path, {"a": [stored("a")]})
    assert mode_of(path) == 0o644
    write_cassette(path, {"a": [stored("a", text="y")]})
    assert mode_of(path) == 0o644
    os.chmod(path, 0o664)  # a group-writable checkout keeps its mode on rewrite
    write_cassette(path, {"a": [stored("a")]})
    assert mode_of(path) == 0o664
    umask(0o002)
    write_cassette(tmp_path / "B.json", {})
    assert mode_of(tmp_path / "B.json") == 0o664


def test_merged_cassettes_get_the_usual_permissions(tmp_path, umask):
    record_item(tmp_path, "suite/A/1")
    record_item(tmp_path, "suite/A/2")
    assert mode_of(cassette_file(tmp_path, "m", "bench", "A")) == 0o644


@pytest.mark.parametrize("link", ["relative", "absolute", "a link to a link"])
def test_recording_into_a_symlinked_cassette_writes_through_the_link_to_its_target(tmp_path, link):
    """A team sharing recordings between folders links a cassette to one shared file: the link stays a link, the
    shared file gets what was recorded, and no temporary file is left in either folder."""
    record_item(tmp_path / "shared", "suite/A/1")
    shared = cassette_file(tmp_path / "shared", "m", "bench", "A")
    cassette = cassette_file(tmp_path, "m", "bench", "A")
    cassette.parent.mkdir(parents=True)
    if link == "a link to a link":
        (tmp_path / "hop.json").symlink_to(shared)
        cassette.symlink_to(tmp_path / "hop.json")
    else:
        cassette.symlink_to(os.path.relpath(shared, cassette.parent) if link == "relative" else shared)
    target = os.readlink(cassette)
    record_item(tmp_path, "suite/A/2")
    assert cassette.is_symlink() and os.readlink(cassette) == target
    assert sorted(read_cassette(shared)) == ["suite/A/1", "suite/A/2"]
    assert not [p for folder in (cassette.parent, shared.parent, tmp_path) for p in folder.iterdir()
                if p.name.endswith(".tmp")]


# --- episodes replay by number -------------------------------------------------------------------------


def rewrite_interactions(path, change) -> None:
    data = json.loads(path.read_text())
    data["interactions"] = change(data["interactions"])
    path.write_text(json.dumps(data))


def replay_answers(tmp_path, asks) -> list[str]:
    replayer = Recorder(tmp_path, "m", RecordMode.NONE)
    c = client(replayer, None)
    replayer.begin("bench", "A", "suite/A/1")
    try:
        return [ask(c, q) for q in asks]
    finally:
        replayer.end()


def test_episodes_replay_by_their_number_not_their_place_in_the_file(tmp_path):
    record_item(tmp_path, asks=("say hi", "say hi", "say hi"))
    path = cassette_file(tmp_path, "m", "bench", "A")
    rewrite_interactions(path, lambda interactions: [interactions[2], interactions[0], interactions[1]])
    assert replay_answers(tmp_path, ["say hi"] * 3) == ["answer 1", "answer 2", "answer 3"]


@pytest.mark.parametrize("episodes, problem", [((0, 0), "episode 0 is recorded twice"),
                                               ((0, 2), "episodes 0, 2 are not numbered 0..1"),
                                               ((1, 2), "episodes 1, 2 are not numbered 0..1")])
def test_duplicate_or_missing_episodes_are_a_corrupt_cassette(tmp_path, episodes, problem):
    record_item(tmp_path, asks=("say hi", "say hi"))
    path = cassette_file(tmp_path, "m", "bench", "A")

    def renumber(interactions):
        for interaction, episode in zip(interactions, episodes):
            interaction["episode"] = episode
        return interactions

    rewrite_interactions(path, renumber)
    digest = read_cassette(path)["suite/A/1"][0]["digest"]
    with pytest.raises(CorruptCassette) as err:
        replay_answers(tmp_path, ["say hi"])
    text = str(err.value)
    assert str(path) in text and "suite/A/1" in text and digest[:16] in text and digest[:17] not in text
    assert problem in text and REPAIR in text


# --- read_cassette_file is strict -------------------------------------------------------------------------


def cassette_text(*interactions, **extra) -> str:
    return json.dumps({"version": 1, "interactions": list(interactions), **extra})


def with_response(**changes) -> dict:
    interaction = stored("a")
    interaction["response"].update(changes)
    return interaction


def without(key: str) -> dict:
    interaction = stored("a")
    del interaction[key]
    return interaction


BAD_CASSETTES = {
    "not json": "{",
    "a list": "[]",
    "no interactions": '{"version": 1}',
    "interactions not a list": '{"version": 1, "interactions": {}}',
    "interaction not an object": cassette_text(1),
    "item id not a string": cassette_text({**stored("a"), "item_id": 7}),
    "no item id": cassette_text(without("item_id")),
    "no digest": cassette_text(without("digest")),
    "digest not a string": cassette_text({**stored("a"), "digest": None}),
    "no episode": cassette_text(without("episode")),
    "negative episode": cassette_text({**stored("a"), "episode": -1}),
    "episode a string": cassette_text({**stored("a"), "episode": "0"}),
    "episode a float": cassette_text({**stored("a"), "episode": 0.0}),
    "episode a bool": cassette_text({**stored("a"), "episode": True}),
    "no response": cassette_text(without("response")),
    "response a string": cassette_text({**stored("a"), "response": "ok"}),
    "no status": cassette_text(with_response(status=None)),
    "status code a string": cassette_text(with_response(status={"code": "200"})),
    "no body": cassette_text(with_response(body=None)),
    "body string not a string": cassette_text(with_response(body={"string": 5})),
    "headers a string": cassette_text(with_response(headers="content-type: x")),
    "header values not lists": cassette_text(with_response(headers={"content-type": "x"})),
    "not_recorded a list": cassette_text(stored("a"), not_recorded=["a"]),
    "not_recorded reason not a string": cassette_text(stored("a"), not_recorded={"b": 1}),
    "nested too deeply": "[" * 100_000 + "]" * 100_000,
}


@pytest.mark.parametrize("name", sorted(BAD_CASSETTES))
def test_any_bad_cassette_is_only_a_corrupt_cassette(tmp_path, name):
    path = tmp_path / "A.json"
    path.write_text(BAD_CASSETTES[name])
    with pytest.raises(CorruptCassette) as err:
        read_cassette_file(path)
    assert str(path) in str(err.value) and REPAIR in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("version, found", [(99, "version 99"), (0, "version 0"), ("1", "version '1'"),
                                            (None, "no version")])
def test_a_cassette_of_another_version_is_a_corrupt_cassette_naming_the_version_and_the_versions_read(
        tmp_path, version, found):
    path = tmp_path / "A.json"
    document = json.loads(cassette_text(stored("a")))
    document.pop("version") if version is None else document.update(version=version)
    path.write_text(json.dumps(document))
    with pytest.raises(CorruptCassette) as err:
        read_cassette_file(path)
    message = str(err.value)
    assert message.startswith(f"cassette {path} has {found}") and "reads version 1 only" in message
    assert REPAIR in message and "\n" not in message


def test_a_cassette_of_another_version_is_not_merged_into_and_its_journal_lines_are_kept(tmp_path):
    model_root = tmp_path / "m"
    cassette = model_root / "bench" / "A.json"
    cassette.parent.mkdir(parents=True)
    foreign = cassette_text(stored("suite/A/1")).replace('"version": 1', '"version": 99')
    cassette.write_text(foreign)
    journal = Journal(model_root, "run1")
    journal.append(cassette, "suite/A/2", [stored("suite/A/2")])
    journal.close()
    report = merge_journals(model_root, "run1")
    assert report.items == 0 and "has version 99" in report.problems[0] and str(cassette) in report.problems[0]
    assert cassette.read_text() == foreign and journal.path.exists()


def test_a_cassette_that_is_not_utf8_is_only_a_corrupt_cassette(tmp_path):
    path = tmp_path / "A.json"
    path.write_bytes(lzma.compress(cassette_text(stored("a")).encode()))
    with pytest.raises(CorruptCassette, match="A.json cannot be read"):
        read_cassette_file(path)


def test_a_good_cassette_reads_back_as_written(tmp_path):
    path = tmp_path / "A.json"
    by_item = {"a": [stored("a"), stored("a", episode=1)], "b": [stored("b", text="é")]}
    write_cassette(path, by_item, {"c": "never recorded"})
    assert read_cassette_file(path) == (by_item, {"c": "never recorded"})


def layout_text(*lines: str, tail: str = "]}") -> str:
    """A cassette as write_cassette lays it out, from its interaction lines as given."""
    return FIRST_LINE.decode() + "".join(line + "\n" for line in lines) + tail + "\n"


def read_as_json_would(text: str) -> tuple[dict, dict]:
    """What read_cassette_file gives for a valid cassette's text, computed from the whole document by json."""
    data = json.loads(text)
    by_item: dict = {}
    for interaction in data["interactions"]:
        by_item.setdefault(interaction["item_id"], []).append(interaction)
    return by_item, data.get("not_recorded", {})


def parsed_cassette(text: str) -> dict | None:
    """The text's value if it is an object with an interactions list (json's reading), else None."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("interactions"), list) else None


@pytest.mark.parametrize("name", sorted(name for name, text in BAD_CASSETTES.items() if parsed_cassette(text)))
def test_a_bad_interaction_in_our_layout_is_the_same_corrupt_cassette(tmp_path, name):
    """The lines of a file in write_cassette's layout are parsed one by one: whatever one of them holds, the error
    is the one the whole document gives."""
    data = parsed_cassette(BAD_CASSETTES[name])
    assert data is not None
    tail = f'],\n"not_recorded": {json.dumps(data["not_recorded"])}}}' if "not_recorded" in data else "]}"
    lines = [json.dumps(interaction) for interaction in [stored("b"), *data["interactions"]]]
    text = layout_text(*[line + "," for line in lines[:-1]], lines[-1], tail=tail)
    (tmp_path / "whole.json").write_text(json.dumps(json.loads(text)))
    (tmp_path / "lines.json").write_text(text)
    with pytest.raises(CorruptCassette) as whole:
        read_cassette_file(tmp_path / "whole.json")
    with pytest.raises(CorruptCassette) as by_lines:
        read_cassette_file(tmp_path / "lines.json")
    assert str(by_lines.value) == str(whole.value).replace("whole.json", "lines.json")


A, B = json.dumps(stored("a")), json.dumps(stored("b", text="\u00e9"))
STRAYING = {  # files that start as write_cassette's do, then stray from its layout: read as the whole document
    "pretty-printed interaction": layout_text(json.dumps(stored("a"), indent=2) + ",", B),
    "two interactions on a line": layout_text(f"{A}, {B}"),
    "windows line ends": layout_text(A + ",", B).replace("\n", "\r\n"),
    "a second interactions key": layout_text(A, tail='], "interactions": []}'),
    "a lone surrogate escape": layout_text(A + ",", json.dumps(stored("b", text="\ud800"))),
    "marks in the tail": layout_text(A, tail='],\n"not_recorded": {\n"c": "never"\n}}'),
    "no interactions": layout_text(),
    "blank line": layout_text(A + ",", "", B),
    "missing comma": layout_text(A, B),
    "comma before the bracket": layout_text(A + ",", B + ","),
    "no closing bracket": layout_text(A + ",", B, tail=""),
    "not json after the bracket": layout_text(A, tail="]"),
}


@pytest.mark.parametrize("name", sorted(STRAYING))
def test_a_file_straying_from_our_layout_reads_as_its_whole_document(tmp_path, name):
    path = tmp_path / "A.json"
    path.write_bytes(STRAYING[name].encode())
    try:
        expected = read_as_json_would(STRAYING[name])
    except ValueError:
        with pytest.raises(CorruptCassette, match="A.json cannot be read"):
            read_cassette_file(path)
        return
    got = read_cassette_file(path)
    assert json.dumps(got) == json.dumps(expected)  # the lone surrogate compares as json writes it


def test_a_cassette_in_our_layout_is_read_in_memory_near_its_size(tmp_path):
    """orjson sets aside about 13 times the length of a document it parses, and the allocator keeps those pages: a
    file in write_cassette's layout is parsed a line at a time instead."""
    import tracemalloc

    path = tmp_path / "A.json"
    answer = "a long answer, " * 600
    by_item = {f"i{n:03d}": [stored(f"i{n:03d}", text=answer)] for n in range(80)}
    write_cassette(path, by_item)
    size = path.stat().st_size
    assert size > 500_000
    tracemalloc.start()
    try:
        got = read_cassette_file(path)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == (by_item, {})
    assert peak - held < size / 2, (peak - held, size)


def test_every_committed_cassette_parses_as_json_parses_it():
    """parse_json reads through orjson: each of the project's cassette files gives what json.loads gives."""
    files = sorted((ROOT / "cassettes").rglob("*.json"))
    assert len(files) > 100
    for path in files:
        raw = path.read_bytes()
        assert parse_json(raw) == json.loads(raw.decode("utf-8")), path


@pytest.mark.parametrize("text", ['{"a": "\\ud800 lone"}', '{"a": NaN, "b": -Infinity}', '{"a": 1, "a": 2}'])
def test_what_orjson_refuses_or_reads_otherwise_is_read_as_json_reads_it(text):
    """A lone surrogate escape (a byte-level model can emit half an emoji), NaN and Infinity, a repeated key."""
    for raw in (text.encode(), text):  # a file's bytes, a recorded body's text
        got, expected = parse_json(raw), json.loads(text)
        assert json.dumps(got) == json.dumps(expected)  # NaN != NaN: compared as json writes them


def test_every_committed_recorded_body_is_read_as_json_reads_it():
    """A replay reads each recorded body (a string) through parse_json: the choices are json's, also for the bodies
    that hold characters beyond ASCII."""
    bodies = [interaction["response"]["body"]["string"] for path in sorted((ROOT / "cassettes").rglob("*.json"))
              for interaction in json.loads(path.read_text())["interactions"]]
    assert len(bodies) > 1000 and not all(body.isascii() for body in bodies)
    for body in bodies:
        assert recorded_choices(body) == [(choice["message"].get("content"), choice.get("finish_reason"))
                                          for choice in json.loads(body)["choices"]]


def test_nothing_to_merge_is_an_empty_report(tmp_path):
    assert merge_journals(tmp_path / "nothing") == MergeReport(0, ())


def test_journals_merge_in_the_order_their_lines_were_written_not_by_their_names(tmp_path):
    model_root = tmp_path / "m"
    cassette = model_root / "bench" / "A.json"
    newer, older = Journal(model_root, "aaaa"), Journal(model_root, "zzzz")  # names sort opposite to time
    older.append(cassette, "suite/A/1", [stored("suite/A/1", text="stale")])
    newer.append(cassette, "suite/A/1", [stored("suite/A/1", text="fresh")])
    for journal in (older, newer):
        journal.close()
    assert merge_journals(model_root, "aaaa").items == 1  # this run's journal: both, since zzzz's writer closed
    assert [i["response"]["body"]["string"] for i in read_cassette(cassette)["suite/A/1"]] == ["fresh"]


def test_a_journal_line_without_a_time_counts_as_older_than_any_with_one(tmp_path):
    model_root = tmp_path / "m"
    cassette = model_root / "bench" / "A.json"
    (model_root / ".journal").mkdir(parents=True)
    legacy = {"cassette": "bench/A.json", "item_id": "suite/A/1", "interactions": [stored("suite/A/1", text="old")]}
    (model_root / ".journal" / "zzzz-main-1.jsonl").write_text(json.dumps(legacy) + "\n")
    journal = Journal(model_root, "aaaa")
    journal.append(cassette, "suite/A/1", [stored("suite/A/1", text="new")])
    journal.close()
    merge_journals(model_root, "aaaa")
    assert [i["response"]["body"]["string"] for i in read_cassette(cassette)["suite/A/1"]] == ["new"]


@pytest.mark.parametrize("errno_, fix", [(28, "free space on that disk"), (30, "writable")])
def test_a_journal_that_cannot_be_written_says_which_file_and_what_to_do_then_writes_no_more(
        tmp_path, monkeypatch, errno_, fix):
    from pytest_trust.errors import NotSaved
    from pytest_trust.recording import journal as journal_module

    writes = []

    def failing(fd, data):
        writes.append(data)
        raise OSError(errno_, os.strerror(errno_))

    monkeypatch.setattr(journal_module, "_write_all", failing)
    journal = Journal(tmp_path / "m", "run1")
    with pytest.raises(NotSaved) as raised:
        journal.append(tmp_path / "m" / "bench" / "A.json", "suite/A/1", [stored("suite/A/1")])
    message = str(raised.value)
    assert str(journal.path) in message and fix in message and os.strerror(errno_) in message
    with pytest.raises(NotSaved, match="cannot write the journal"):
        journal.append(tmp_path / "m" / "bench" / "A.json", "suite/A/2", [stored("suite/A/2")])
    assert len(writes) == 1  # after the failure, nothing more is written after the torn line
    journal.close()


@pytest.mark.parametrize("response, problem", [
    ({"status": {"code": 500, "message": "Internal Server Error"}, "body": {"string": '{"error": {}}'}},
     "has HTTP status 500, where only status-200 answers are recorded"),
    ({"status": {"code": 200, "message": "OK"}, "body": {"string": "<html>502</html>"}}, "is not a chat completion"),
    ({"status": {"code": 200, "message": "OK"}, "body": {"string": '{"choices": 5}'}}, "is not a chat completion"),
])
def test_a_recorded_answer_replay_cannot_serve_is_a_corrupt_cassette_naming_file_and_item(tmp_path, response,
                                                                                         problem):
    from pytest_trust.endpoint.client import Endpoint, Model
    from pytest_trust.recording.digest import request_digest

    digest = request_digest("POST", "/chat/completions", {"model": "m", "messages": MESSAGES}, canonical=True)
    interaction = {**stored("suite/A/1", digest=digest),
                   "response": {**response, "headers": {"content-type": ["application/json"]}}}
    path = cassette_file(tmp_path, "m", "bench", "A")
    write_cassette(path, {"suite/A/1": [interaction]})
    recorder = Recorder(tmp_path, "m", RecordMode.NONE)
    model = Model.connect("m", recorder, Endpoint(None))
    recorder.begin("bench", "A", "suite/A/1")
    with pytest.raises(CorruptCassette) as raised:
        model.chat(MESSAGES)
    recorder.end()
    assert str(raised.value) == f"cassette {path}: the recorded answer of item suite/A/1 {problem}: {REPAIR}"
