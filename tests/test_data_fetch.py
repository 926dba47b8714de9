"""`pytest-trust data fetch` and the one rule every command finds the data mirror by (pytest_trust/data/location.py).

Downloads are real HTTP downloads, from a local server laid out as GitHub raw (``$PYTEST_TRUST_DATA_URL``),
serving the pinned files decompressed from the data mirror."""

from __future__ import annotations

import hashlib
import http.server
import lzma
import threading

import pytest

from pytest_trust.cli import main
from pytest_trust.data import DataStore, pinned
from pytest_trust.data.location import find_ini, locate_for_command
from pytest_trust.data.manifest import data_commits, manifest
from pytest_trust.errors import UsageProblem


class Raw(http.server.SimpleHTTPRequestHandler):
    requested: list[str]

    def log_message(self, *args) -> None:  # quiet; the paths are kept instead
        type(self).requested.append(self.path)


@pytest.fixture
def raw_server(tmp_path, data_mirror, monkeypatch):
    """A GitHub-raw-shaped server of every pinned RuLES v3 file: (its root folder, the paths it was asked)."""
    root = tmp_path / "raw"
    for pin in manifest().values():
        if pin.source == "rules":
            target = root / pin.repository / pin.commit / pin.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(lzma.decompress((data_mirror / pin.source / f"{pin.path}.xz").read_bytes()))
    handler = type("Handler", (Raw,), {"requested": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("PYTEST_TRUST_DATA_URL", f"http://127.0.0.1:{server.server_port}/{{repository}}/{{commit}}/{{path}}")
    yield root, handler.requested
    server.shutdown()
    server.server_close()


@pytest.fixture
def user_folder(tmp_path, monkeypatch):
    """An empty project folder outside any checkout: no mirror, the cache under tmp_path."""
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("PYTEST_TRUST_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return folder


def test_fetch_downloads_verifies_and_caches_then_reads_nothing_again(raw_server, user_folder, tmp_path, capsys):
    _, requested = raw_server
    assert main(["data", "fetch", "--benchmark", "rules"]) == 0
    out = capsys.readouterr().out
    cache = tmp_path / "cache" / "pytest-trust" / "data"
    fetched = sorted(p for p in cache.rglob("*") if p.is_file())
    assert fetched and len(fetched) == len(requested) == len(set(requested))
    size = 0
    for path in fetched:
        source, commit, rel = path.relative_to(cache).parts[0], path.relative_to(cache).parts[1], \
            path.relative_to(cache).parts[2:]
        pin = pinned(source, "/".join(rel))
        assert pin.commit == commit and hashlib.sha256(path.read_bytes()).hexdigest() == pin.sha256
        size += pin.size
    n = len(fetched)
    assert f"{n} files, {size / 1e6:,.1f} MB, verified (sha256) in {cache}: {n} downloaded" in out
    assert "suites: rules\n" in out
    requested.clear()
    assert main(["data", "fetch", "--benchmark", "rules"]) == 0
    assert f"{n} already cached" in capsys.readouterr().out and requested == []
    some = pinned("rules", "/".join(fetched[0].relative_to(cache).parts[2:]))
    assert DataStore(None, download=False).read_bytes("rules", some.path)  # a later run reads the cache offline


def test_a_corrupt_download_is_named_and_never_cached(raw_server, user_folder, tmp_path, capsys):
    root, _ = raw_server
    bad = next(p for p in root.rglob("*.jsonl"))
    bad.write_bytes(bad.read_bytes() + b"\n")
    assert main(["data", "fetch", "--benchmark", "rules"]) == 2
    err = capsys.readouterr().err
    rel = bad.relative_to(root).parts
    assert f"pytest-trust data fetch: rules/{'/'.join(rel[3:])} from http://127.0.0.1:" in err
    assert "but the manifest pins" in err and "Traceback" not in err
    assert not list((tmp_path / "cache").rglob(bad.name))


def test_offline_fetch_and_import_name_their_own_flag(user_folder, monkeypatch, capsys):
    monkeypatch.setenv("PYTEST_TRUST_DATA_URL", "http://127.0.0.1:9/{repository}/{commit}/{path}")  # nothing listens
    assert main(["data", "fetch", "--benchmark", "rules_v1"]) == 2
    err = capsys.readouterr().err
    assert "no data mirror is set (--data DIR," in err and "point --data DIR at a mirror" in err
    assert "--trust-data" not in err
    assert main(["import", "decodingtrust", "--model", "gpt4", "--only", "fairness", "--cassettes", "c"]) == 2
    err = capsys.readouterr().err
    assert "\npytest-trust import: " in err and "point --data DIR at a mirror" in err
    assert "--trust-data" not in err


def test_a_mirror_that_is_not_a_folder_names_the_option_given(user_folder, capsys, monkeypatch):
    assert main(["data", "fetch", "--data", "nowhere"]) == 2
    assert "pytest-trust data fetch: --data=nowhere: " in capsys.readouterr().err
    assert main(["import", "decodingtrust", "--model", "gpt4", "--data", "nowhere"]) == 2
    assert "pytest-trust import: --data=nowhere: " in capsys.readouterr().err
    monkeypatch.setenv("PYTEST_TRUST_DATA", "elsewhere")
    assert main(["data", "fetch"]) == 2
    assert "PYTEST_TRUST_DATA=elsewhere: " in capsys.readouterr().err


def test_an_unknown_benchmark_is_one_line_with_the_closest_name(user_folder, capsys):
    assert main(["data", "fetch", "--benchmark", "rulez"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pytest-trust data fetch: --benchmark rulez: no such benchmark; did you mean rules?")


def test_fetch_copies_what_the_mirror_holds_into_the_cache(user_folder, data_mirror, tmp_path, capsys):
    assert main(["data", "fetch", "--benchmark", "rules", f"--data={data_mirror}"]) == 0
    assert "copied from the mirror" in capsys.readouterr().out
    cached = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert cached and all(p.is_relative_to(tmp_path / "cache" / "pytest-trust" / "data" / "rules") for p in cached)


@pytest.mark.parametrize("name, text, found", [
    ("pyproject.toml", '[tool.pytest.ini_options]\ntrust_data = "mirror"\n', True),
    ("pyproject.toml", '[tool.pytest]\ntrust_data = "mirror"\n', True),
    ("pytest.ini", "[pytest]\ntrust_data = mirror\n", True),
    ("tox.ini", "[pytest]\ntrust_data = mirror\n", True),
    ("setup.cfg", "[tool:pytest]\ntrust_data = mirror\n", True),
    ("setup.cfg", "[metadata]\nname = x\n", False),  # not a pytest configuration: pytest looks further up
])
def test_console_commands_read_the_ini_option_as_pytest_finds_it(tmp_path, monkeypatch, name, text, found):
    monkeypatch.delenv("PYTEST_TRUST_DATA", raising=False)
    (tmp_path / name).write_text(text)
    below = tmp_path / "a" / "b"
    below.mkdir(parents=True)
    rootdir, value = find_ini(below)
    assert (rootdir, value) == (tmp_path, "mirror") if found else (rootdir != tmp_path and value is None)
    if found:
        assert locate_for_command("--data", None, below).missing_ini == tmp_path / "mirror"  # set but absent
        (tmp_path / "mirror").mkdir()
        assert locate_for_command("--data", None, below).mirror == tmp_path / "mirror"  # relative to the rootdir
        with pytest.raises(UsageProblem, match="--data=x: "):
            locate_for_command("--data", "x", below)  # the option comes first, and must be a folder


def test_the_reports_data_commits_are_each_sources_pins_read_row_by_row():
    """data_commits reads the rows without building the manifest; each source's last pin, as the manifest has it."""
    pins = manifest().values()
    assert data_commits() == {pin.source: f"{pin.repository}@{pin.commit}" for pin in pins}
    assert set(data_commits()) == {"rules", "rules_v1", "decodingtrust", "advglue"}
