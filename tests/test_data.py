from __future__ import annotations

import hashlib
import lzma
import urllib.request

import pytest

from pytest_trust.data import DataStore, pinned, read_csv, read_jsonl, read_lines
from pytest_trust.errors import ChecksumMismatch, DataError, DataUnavailable

ASSET = "lm_eval/tasks/realguardrails/s_rules/scenarios/assets/animals.txt"


def write_mirror(root, path, data: bytes):
    target = root / "rules" / f"{path}.xz"
    target.parent.mkdir(parents=True)
    target.write_bytes(lzma.compress(data))


def test_mirror_files_are_verified_and_parsed(data_mirror):
    store = DataStore(data_mirror, download=False)
    rows = read_csv(store, "rules", ASSET)
    assert len(rows) == 25 and len(rows[0]) == 2
    assert hashlib.sha256(store.read_bytes("rules", ASSET)).hexdigest() == pinned("rules", ASSET).sha256
    cases = read_jsonl(store, "rules", "lm_eval/tasks/realguardrails/s_rules/data/redteam_helpful.jsonl")
    assert len(cases) == 390 and {c["bucket_category"] for c in cases} == {"helpful"}
    assert len(read_lines(store, "rules", "lm_eval/tasks/realguardrails/s_rules/scenarios/assets/names.txt")) == 100


def test_checksum_mismatch_names_the_file_and_both_digests(tmp_path):
    write_mirror(tmp_path, ASSET, b"cat,meow\n")
    with pytest.raises(ChecksumMismatch) as err:
        DataStore(tmp_path, cache=tmp_path / "cache", download=False).read_bytes("rules", ASSET)
    text = str(err.value)
    assert ASSET in text and pinned("rules", ASSET).sha256 in text
    assert hashlib.sha256(b"cat,meow\n").hexdigest() in text


def test_cache_is_used_after_the_mirror(tmp_path, data_mirror):
    good = DataStore(data_mirror).read_bytes("rules", ASSET)
    pin = pinned("rules", ASSET)
    cached = tmp_path / "cache" / "rules" / pin.commit / ASSET
    cached.parent.mkdir(parents=True)
    cached.write_bytes(good)
    assert DataStore(None, cache=tmp_path / "cache", download=False).read_bytes("rules", ASSET) == good


def test_failed_download_says_how_to_point_at_a_mirror(tmp_path, monkeypatch):
    def offline(*args, **kwargs):
        raise OSError("Name or service not known")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(DataUnavailable) as err:
        DataStore(None, cache=tmp_path).read_bytes("rules", ASSET)
    text = str(err.value)
    assert ASSET in text and "--trust-data" in text and "PYTEST_TRUST_DATA" in text
    assert "no data mirror is set" in text and f"the cache {tmp_path} has no copy" in text  # where it looked
    assert "the download failed (Name or service not known)" in text
    assert "Connect to the internet and rerun (it downloads from swiss-ai/lm-evaluation-harness@" in text
    assert "or point --trust-data DIR at a mirror laid out as <source>/<path>.xz" in text  # how to get it
    assert len(text.replace(str(tmp_path), "CACHE")) < 500  # one readable message, not a page (whatever the tmp path)
    assert "not in no mirror" not in text


def test_a_file_missing_from_the_mirror_names_the_mirror(tmp_path):
    with pytest.raises(DataUnavailable) as err:
        DataStore(tmp_path / "mirror", cache=tmp_path / "cache", download=False).read_bytes("rules", ASSET)
    assert f"the mirror {tmp_path / 'mirror'} has no rules/{ASSET}.xz" in str(err.value)
    assert "downloads are off" in str(err.value)


def test_download_is_verified_and_cached(tmp_path, monkeypatch, data_mirror):
    good = DataStore(data_mirror).read_bytes("rules", ASSET)
    urls = []

    class Response:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return good

    def fake_urlopen(url, timeout):
        urls.append(url)
        return Response()

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    assert DataStore(None, cache=tmp_path).read_bytes("rules", ASSET) == good
    pin = pinned("rules", ASSET)
    assert urls == [f"https://raw.githubusercontent.com/{pin.repository}/{pin.commit}/{ASSET}"]
    assert (tmp_path / "rules" / pin.commit / ASSET).read_bytes() == good


def test_unpinned_files_are_refused(tmp_path):
    with pytest.raises(DataError, match="not pinned"):
        DataStore(tmp_path).read_bytes("rules", "some/other/file.json")


@pytest.mark.parametrize("content", [b"cat,meow\n", lzma.compress(b"cat,meow\n" * 100)[:-12]],
                         ids=["not xz", "truncated xz"])
def test_a_corrupt_mirror_file_names_itself_and_the_repair(tmp_path, content):
    target = tmp_path / "rules" / f"{ASSET}.xz"
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    with pytest.raises(DataError) as err:
        DataStore(tmp_path, cache=tmp_path / "cache", download=False).read_bytes("rules", ASSET)
    text = str(err.value)
    assert type(err.value) is DataError and str(target) in text and "remove it" in text and "\n" not in text


@pytest.mark.slow
def test_the_fuzz_tests_find_the_mirror_the_product_finds(pytester, pytestconfig, monkeypatch):
    """With PYTEST_TRUST_DATA unset, the product reads the trust_data ini option's mirror: so must the tests."""
    from pathlib import Path

    from pytest_trust.options import data_place

    root = Path(__file__).resolve().parent.parent
    monkeypatch.delenv("PYTEST_TRUST_DATA", raising=False)
    if data_place(pytestconfig).mirror is None:
        pytest.skip("the product finds no data mirror here either")
    monkeypatch.setenv("PYTHONPATH", str(root))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rootdir", str(root),
                                           str(root / "tests" / "test_fuzz.py"), "-k", "dt_items_cover_every_scenario")
    result.assert_outcomes(passed=1)  # not skipped for want of PYTEST_TRUST_DATA
