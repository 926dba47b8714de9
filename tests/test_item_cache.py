"""The item-list cache: built once, read back while nothing it depends on changes, rebuilt otherwise."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path

import pytest

from pytest_trust.data.item_cache import CHUNK, HEADER_AT, OFF, ItemKey, cached_items
from pytest_trust.items import Item


class Builder:
    def __init__(self, n: int = 3) -> None:
        self.calls, self.n = 0, n

    def __call__(self) -> list[Item]:
        self.calls += 1
        return [Item(id=f"s/{i}", benchmark="b", cassette="s", inputs={"i": i}, decoding={"temperature": 0})
                for i in range(self.n)]


def test_a_list_is_built_once_then_read_back(tmp_path: Path) -> None:
    build = Builder()
    first = cached_items(tmp_path, "suite", {"a": 1}, Path("/data"), build)
    second = cached_items(tmp_path, "suite", {"a": 1}, Path("/data"), build)
    assert build.calls == 1
    assert second == first and second is not first
    assert len(list(tmp_path.glob("suite@*.pickle"))) == 1


def test_other_settings_or_data_folder_build_anew_and_replace_the_stale_list(tmp_path: Path) -> None:
    build = Builder()
    cached_items(tmp_path, "suite", {"a": 1}, Path("/data"), build)
    cached_items(tmp_path, "suite", {"a": 2}, Path("/data"), build)
    cached_items(tmp_path, "suite", {"a": 2}, Path("/other"), build)
    assert build.calls == 3
    assert len(list(tmp_path.glob("suite@*.pickle"))) == 1  # only the newest key is kept


def test_suites_sharing_a_prefix_keep_their_own_lists(tmp_path: Path) -> None:
    cached_items(tmp_path, "rules", {}, None, Builder(1))
    cached_items(tmp_path, "rules-gcg", {}, None, Builder(2))
    again = Builder()
    assert len(cached_items(tmp_path, "rules", {}, None, again)) == 1 and again.calls == 0


def test_an_unreadable_list_is_rebuilt_and_rewritten(tmp_path: Path) -> None:
    build = Builder()
    cached_items(tmp_path, "suite", {}, None, build)
    (path,) = tmp_path.glob("suite@*.pickle")
    path.write_bytes(b"\x80\x05truncated")
    items = cached_items(tmp_path, "suite", {}, None, build)
    assert build.calls == 2 and [item.id for item in items] == ["s/0", "s/1", "s/2"]
    assert cached_items(tmp_path, "suite", {}, None, build) == items and build.calls == 2


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(OFF, "0")
    build = Builder()
    cached_items(tmp_path, "suite", {}, None, build)
    cached_items(tmp_path, "suite", {}, None, build)
    assert build.calls == 2 and not list(tmp_path.iterdir())


def test_a_folder_that_cannot_be_written_costs_speed_only(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    build = Builder()
    assert len(cached_items(blocked / "items", "suite", {}, None, build)) == 3
    assert len(cached_items(blocked / "items", "suite", {}, None, build)) == 3 and build.calls == 2


def interleaved() -> list[Item]:
    """Two cassette units whose items alternate: the list's order is not the units' order."""
    return [Item(id=f"{s}/{i}", benchmark="b", cassette=s, inputs={"i": i}, decoding={}) for i in range(4) for s in "ab"]


def test_a_cut_sees_one_cassette_unit_at_a_time_and_its_items_keep_the_lists_order(tmp_path: Path, monkeypatch) -> None:
    seen: list[set[str]] = []

    def cut(block: list[Item]) -> list[Item]:  # read back, it sees each item's ItemKey only
        seen.append({item.cassette for item in block})
        return [item for item in block if int(item.id.split("/")[1]) % 2 == 0]

    expected = [item for item in interleaved() if item.inputs["i"] % 2 == 0]
    built = cached_items(tmp_path, "suite", {}, None, interleaved, cut)  # built, stored, then cut
    read = cached_items(tmp_path, "suite", {}, None, list, cut)  # read back a cassette unit at a time
    monkeypatch.setenv(OFF, "0")
    uncached = cached_items(tmp_path, "suite", {}, None, interleaved, cut)
    assert built == read == uncached == expected
    assert [item.id for item in expected] == ["a/0", "b/0", "a/2", "b/2"]
    assert seen == [{"a"}, {"b"}] * 3
    monkeypatch.delenv(OFF)
    assert cached_items(tmp_path, "suite", {}, None, list, None) == interleaved()  # no cut: the whole list


def test_a_cassette_unit_skip_leaves_out_is_stepped_over_unread_unless_it_holds_an_item_that_says_why_it_skips(
        tmp_path: Path, monkeypatch) -> None:
    def items() -> list[Item]:
        return [*interleaved(), Item(id="c/0", benchmark="b", cassette="c", inputs={"i": 0}, decoding={},
                                     unavailable="its inputs are absent upstream")]

    asked: list[tuple[str, int]] = []

    def skip(cassette: str, count: int) -> bool:
        asked.append((cassette, count))
        return cassette in ("b", "c")

    cached_items(tmp_path, "suite", {}, None, items)  # stored whole
    read = cached_items(tmp_path, "suite", {}, None, list, None, skip)
    monkeypatch.setenv(OFF, "0")
    built = cached_items(tmp_path, "suite", {}, None, items, None, skip)
    assert [item.id for item in read] == [item.id for item in built] == ["a/0", "a/1", "a/2", "a/3", "c/0"]
    assert asked == [("a", 4), ("b", 4)] * 2  # "c" is never offered: its item must run to say why it skips


def test_a_stepped_over_cassette_unit_is_not_unpickled(tmp_path: Path, monkeypatch) -> None:
    cached_items(tmp_path, "suite", {}, None, interleaved)
    loads: list[int] = []
    real = pickle.load
    monkeypatch.setattr(pickle, "load", lambda handle: loads.append(1) or real(handle))
    cached_items(tmp_path, "suite", {}, None, list, None, lambda cassette, count: cassette == "b")
    assert len(loads) == 2  # the header and cassette unit "a"


def test_only_the_chunks_holding_what_the_cut_keeps_are_unpickled(tmp_path: Path, monkeypatch) -> None:
    many = Builder(3 * CHUNK + 2)
    cached_items(tmp_path, "suite", {}, None, many)
    offered: list[list[ItemKey]] = []

    def cut(keys: list[ItemKey]) -> list[ItemKey]:
        offered.append(keys)
        return [keys[CHUNK + 1], keys[3 * CHUNK + 1]]

    loads: list[int] = []
    real = pickle.load
    monkeypatch.setattr(pickle, "load", lambda handle: loads.append(1) or real(handle))
    read = cached_items(tmp_path, "suite", {}, None, list, cut)
    assert read == [many()[CHUNK + 1], many()[3 * CHUNK + 1]]
    assert len(loads) == 3  # the header, the second chunk and the last
    assert offered == [[ItemKey(f"s/{i}", "b", "s", "") for i in range(3 * CHUNK + 2)]]


def test_a_list_whose_header_does_not_match_its_chunks_is_rebuilt(tmp_path: Path) -> None:
    build = Builder(CHUNK + 1)
    cached_items(tmp_path, "suite", {}, None, build)
    (path,) = tmp_path.glob("suite@*.pickle")
    data = path.read_bytes()
    (at,) = HEADER_AT.unpack(data[:HEADER_AT.size])
    header = pickle.loads(data[at:])
    keys = header[0][2]
    keys[0], keys[1] = keys[1], keys[0]  # as if the items were stored in another order than the header says
    path.write_bytes(data[:at] + pickle.dumps(header))
    items = cached_items(tmp_path, "suite", {}, None, build)
    assert build.calls == 2 and [item.id for item in items] == [f"s/{i}" for i in range(CHUNK + 1)]


# --- a cached list still notices a changed source file ---------------------------------------------------------------

RULES_DATA = "lm_eval/tasks/realguardrails/s_rules/data/benign_harmless.jsonl"


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def tampered(path: Path) -> None:
    import lzma

    path.write_bytes(lzma.compress(lzma.decompress(path.read_bytes()).replace(b'"id"', b'"Id"', 1)))


@pytest.mark.parametrize("change, says", [(flip_a_byte, "is not a readable xz file"),
                                          (tampered, "has sha256 * but the manifest pins 1568f296f5be*")],
                         ids=["a flipped byte", "other content"])
@pytest.mark.slow
def test_a_mirror_file_changed_after_a_run_cached_the_items_stops_the_run_as_without_the_cache(
        pytester, data_mirror, monkeypatch, change, says):
    """The list is cached by a first run; then one of the files it was built from changes. The next run stops before
    any item (exit 2) with the message naming the file, as a run without the cache does, never replaying from the
    list built from the old file."""
    from conftest import suite_module

    shutil.copytree(data_mirror / "rules", pytester.path / "mirror" / "rules")
    monkeypatch.setenv("PYTEST_TRUST_DATA", str(pytester.path / "mirror"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(pytester.path / "cache"))  # this test's own item cache
    pytester.makepyfile(test_suite=suite_module("rules", "rules"))

    def run() -> pytest.RunResult:
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--collect-only", "-q")

    assert run().ret == pytest.ExitCode.OK
    assert list((pytester.path / "cache" / "pytest-trust" / "items").glob("rules@*.pickle"))
    mirrored = pytester.path / "mirror" / "rules" / f"{RULES_DATA}.xz"
    change(mirrored)
    cached = run()
    monkeypatch.setenv(OFF, "0")
    uncached = run()
    for result in (cached, uncached):
        assert result.ret == pytest.ExitCode.INTERRUPTED
        result.stdout.fnmatch_lines([f"cannot load suite rules: *{RULES_DATA}* {says}*"])
        assert "Traceback" not in result.stdout.str()
    assert ([line for line in cached.stdout.lines if line.startswith("cannot load")]
            == [line for line in uncached.stdout.lines if line.startswith("cannot load")])  # the same message


ASSET = "lm_eval/tasks/realguardrails/s_rules/scenarios/assets/animals.txt"


class FromMirror:
    """A build reading one pinned file through a store, counting its calls."""

    def __init__(self, store) -> None:
        self.store, self.calls = store, 0

    def __call__(self) -> list[Item]:
        self.calls += 1
        lines = self.store.read_text("rules", ASSET).splitlines()
        return [Item(id=f"s/{n}", benchmark="b", cassette="s", inputs={"line": line}, decoding={})
                for n, line in enumerate(lines)]


@pytest.fixture
def small_mirror(tmp_path, data_mirror) -> Path:
    copy = tmp_path / "mirror" / "rules" / f"{ASSET}.xz"
    copy.parent.mkdir(parents=True)
    shutil.copyfile(data_mirror / "rules" / f"{ASSET}.xz", copy)
    return copy


def cached(tmp_path, build: FromMirror) -> list[Item]:
    return cached_items(tmp_path / "items", "suite", {}, tmp_path / "mirror", build, store=build.store)


def test_a_file_changed_with_its_size_and_mtime_put_back_is_still_noticed(tmp_path, small_mirror):
    from pytest_trust.data import DataStore
    from pytest_trust.errors import DataError

    build = FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False))
    cached(tmp_path, build)
    before = small_mirror.stat()
    flip_a_byte(small_mirror)
    os.utime(small_mirror, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(DataError, match=f"mirror file {small_mirror} is not a readable xz file"):
        cached(tmp_path, FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False)))


def test_a_file_touched_but_unchanged_is_verified_once_and_the_list_stands(tmp_path, small_mirror):
    from pytest_trust.data import DataStore

    first = FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False))
    items = cached(tmp_path, first)
    os.utime(small_mirror, ns=(1, 1))
    touched = FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False))
    assert cached(tmp_path, touched) == items and touched.calls == 0
    assert touched.store.origins == {("rules", ASSET): "mirror"}  # verified again, from the mirror
    again = FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False))
    assert cached(tmp_path, again) == items and again.calls == 0
    assert again.store.origins == {}  # the stamps were renewed: nothing to verify
    assert not [p for p in (tmp_path / "items").iterdir() if p.name.startswith(".")]


def test_a_list_whose_stamps_are_lost_is_rebuilt(tmp_path, small_mirror):
    from pytest_trust.data import DataStore

    cached(tmp_path, FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False)))
    (stamps,) = (tmp_path / "items").glob("suite@*.files.json")
    stamps.write_text("[")
    rebuilt = FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False))
    cached(tmp_path, rebuilt)
    assert rebuilt.calls == 1 and json.loads(stamps.read_text())[0][:3] == ["rules", ASSET, str(small_mirror)]


def test_a_file_changed_while_the_list_was_being_built_is_noticed_next_time(tmp_path, small_mirror):
    """The stamps are the files' as they were read, not as they are once the build ends."""
    from pytest_trust.data import DataStore
    from pytest_trust.errors import DataError

    class ChangedAfterReading(FromMirror):
        def __call__(self) -> list[Item]:
            items = super().__call__()
            flip_a_byte(small_mirror)
            return items

    cached(tmp_path, ChangedAfterReading(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False)))
    with pytest.raises(DataError, match=f"mirror file {small_mirror} is not a readable xz file"):
        cached(tmp_path, FromMirror(DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False)))


def test_an_item_unpickles_whole_through_its_constructor_and_items_keep_sharing_what_they_share():
    """Item.__reduce__ (the item cache's pickles): every field comes back, and one decoding mapping and tags tuple
    shared by a chunk's items stays one object."""
    import pickle

    from pytest_trust.items import Item

    decoding, tags = {"temperature": 0, "max_tokens": 5}, ("rules", "benign")
    items = [Item(f"id{n}", "rules", "Hodor", {"n": n}, decoding, {"answer": n}, tags, "no data" if n else "")
             for n in range(3)]
    back = pickle.loads(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == items and [b.expected for b in back] == [{"answer": n} for n in range(3)]
    assert back[0].decoding is back[2].decoding and back[0].tags is back[1].tags
    assert Item.__reduce__(items[1])[0] is Item  # the constructor, not __setstate__
