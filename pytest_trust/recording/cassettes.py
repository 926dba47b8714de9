"""Cassette files: vcrpy's JSON cassette format, one file per cassette unit, one logical cassette per item.

A file is what ``vcr.serialize`` writes (``{"version": 1, "interactions": [...]}``) so vcrpy can read
it; each interaction also carries ``item_id``, ``digest`` and ``episode`` (the n-th time the item sent
that digest). An imported run may add ``not_recorded``: item id (or ``"*"``, the whole file) ->
why its source never recorded it, so replay skips those items with the reason instead of missing.
Reading is strict: any file replay could trip over is a ``CorruptCassette`` naming the file and the
repair, never a KeyError in the middle of a run; so is a file of another format version than this release
reads (or of none), whatever it holds.
Files are written sorted by item id, then episode, through a temporary file and a rename, so an
interrupted write never leaves half a cassette and re-recording gives no spurious diff; the new file
gets the permissions the old one had (or, for a new file, those an ordinary ``open`` would give). A
cassette that is a symlink (recordings shared between folders) is written through the link: the
temporary file goes beside its target, which the rename replaces, and the link is left as it was.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from ..errors import CorruptCassette

FORMAT_VERSION = 1  # vcrpy's CASSETTE_FORMAT_VERSION
FIRST_LINE = f'{{"version": {FORMAT_VERSION}, "interactions": [\n'.encode()  # write_cassette's, an interaction a line
REPAIR = "restore it from git, or re-record its items with --record-mode=rewrite"
Interaction = dict[str, Any]


def model_dir(root: Path, model: str) -> Path:
    """``cassettes/<model>``, with characters that cannot be in a folder name replaced."""
    return root / re.sub(r"[^A-Za-z0-9._+=-]", "_", model)


def cassette_file(root: Path, model: str, benchmark: str, cassette: str) -> Path:
    return model_dir(root, model) / benchmark / f"{cassette}.json"


def read_cassette(path: Path) -> dict[str, list[Interaction]]:
    """The interactions of a cassette file, grouped by item id in file order ({} if absent)."""
    return read_cassette_file(path)[0]


def read_cassette_file(path: Path) -> tuple[dict[str, list[Interaction]], dict[str, str]]:
    """A cassette file's interactions by item id, and its ``not_recorded`` marks.

    Raises only ``CorruptCassette`` (with the repair), whatever the file holds.
    """
    try:
        data = _parse_file(path)
    except FileNotFoundError:
        return {}, {}
    except (OSError, ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
        raise CorruptCassette(f"cassette {path} cannot be read ({_short(err)}): {REPAIR}") from None
    if isinstance(data, dict) and not _readable_version(data.get("version", _NONE)):
        found = "no version" if data.get("version", _NONE) is _NONE else f"version {data['version']!r}"
        raise CorruptCassette(f"cassette {path} has {found}, but this release of pytest-trust reads version "
                              f"{FORMAT_VERSION} only (vcrpy's JSON cassettes, as it writes them); another tool or "
                              f"release wrote it, and no converter exists: {REPAIR}")
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise CorruptCassette(f"cassette {path} is not a vcrpy JSON cassette (no 'interactions' list): {REPAIR}")
    by_item: dict[str, list[Interaction]] = {}
    for number, interaction in enumerate(data["interactions"]):
        problem = interaction_problem(interaction)
        if problem:
            raise CorruptCassette(f"cassette {path}: interaction {number} {problem}: {REPAIR}")
        by_item.setdefault(interaction["item_id"], []).append(interaction)
    not_recorded = data.get("not_recorded", {})
    if not isinstance(not_recorded, dict) or not all(isinstance(v, str) for v in not_recorded.values()):
        raise CorruptCassette(f"cassette {path}: 'not_recorded' must map item ids to reasons: {REPAIR}")
    return by_item, not_recorded


_NONE = object()  # a file without a "version" key


def _readable_version(version: Any) -> bool:
    """Whether this release reads a file of that format version (1 only, not True, 1.0 or "1": what vcrpy
    writes); a file of another version may mean anything by the same keys, so it is never served."""
    return type(version) is int and version == FORMAT_VERSION


def _parse_file(path: Path) -> Any:
    """The file's JSON value. A file as ``write_cassette`` lays it out is parsed an interaction (a line) at a time:
    orjson sets aside about 13 times the length of what it parses (10.7 MB for a 0.8 MB cassette), and the heap
    those blocks grow is kept (docs/decisions.md, "Recording layer"). Any other file, or one whose lines stray from
    that layout, is parsed whole: the value, or the error, is the whole document's either way."""
    with path.open("rb") as fh:
        if fh.readline() == FIRST_LINE:
            data = _parse_lines(fh)
            if data is not None:
                return data
        fh.seek(0)
        return parse_json(fh.read())


def _parse_lines(rest: BinaryIO) -> dict[str, Any] | None:
    """The cassette after its first line, when each line up to the one opening with ``]`` is one interaction,
    each but the last followed by a comma; None otherwise. JSON text holds no raw newline inside a string, so the
    lines' values are the document's interactions, and the first line with the last ones is the rest of it."""
    interactions: list[Any] = []
    comma = False  # whether the previous interaction's line ended with one
    for line in rest:
        if line.startswith(b"]"):
            tail = line + rest.read()
            if comma or b'"interactions"' in tail:  # a trailing comma, or a second "interactions" key
                return None
            try:
                data = parse_json(FIRST_LINE + tail)
            except (ValueError, RecursionError):
                return None
            if not isinstance(data, dict) or data.get("interactions") != []:
                return None
            data["interactions"] = interactions
            return data
        if interactions and not comma:
            return None
        comma = line.endswith(b",\n")
        try:
            interactions.append(parse_json(line[:-2] if comma else line))
        except (ValueError, RecursionError):
            return None
    return None


def parse_json(raw: bytes | str) -> Any:
    """UTF-8 JSON (a file's bytes, a recorded body's text) as ``json.loads`` reads it. orjson reads a replay's
    cassettes and bodies in half the time; what it refuses and json reads (a lone surrogate escape, NaN) is read by
    json. One difference is left: orjson reads an integer beyond 64 bits as a float, which neither a cassette's own
    numbers (version, episode, status) nor a completion's (created, token counts) can be."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw if isinstance(raw, str) else raw.decode("utf-8"))


def interaction_problem(interaction: Any) -> str | None:
    """What replay would trip over in one stored interaction, or None if it can be served."""
    if not isinstance(interaction, dict):
        return "is not an object"
    for key in ("item_id", "digest"):
        if not isinstance(interaction.get(key), str):
            return f"has no '{key}' string"
    episode = interaction.get("episode")
    if type(episode) is not int or episode < 0:
        return "has no 'episode' number (0, 1, ...)"
    return _response_problem(interaction.get("response"))


def _response_problem(response: Any) -> str | None:
    if not isinstance(response, dict):
        return "has no 'response' object"
    status = response.get("status")
    code = status.get("code") if isinstance(status, dict) else None
    if type(code) is not int or not 100 <= code <= 599:
        return "has no HTTP status code in 'response.status.code'"
    body = response.get("body")
    if not isinstance(body, dict) or not isinstance(body.get("string"), str):
        return "has no text in 'response.body.string'"
    headers = response.get("headers", {})
    if not isinstance(headers, dict) or not all(
            isinstance(values, list) and all(isinstance(v, str) for v in values) for values in headers.values()):
        return "has 'response.headers' that do not map names to lists of strings"
    return None


def write_cassette(path: Path, by_item: Mapping[str, Iterable[Interaction]],
                   not_recorded: Mapping[str, str] | None = None) -> None:
    """Write all items' interactions atomically, in a stable order. A symlinked file is written at its target, so
    the link stays a link and the file it shares is the one updated."""
    interactions = [i for item_id in sorted(by_item) for i in by_item[item_id]]
    marks = {k: v for k, v in sorted((not_recorded or {}).items()) if k not in by_item}
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(FIRST_LINE.decode())
            for n, interaction in enumerate(interactions):
                fh.write(",\n" if n else "")
                json.dump(interaction, fh, ensure_ascii=False, sort_keys=True)
            fh.write("\n]")
            if marks:
                fh.write(',\n"not_recorded": ')
                json.dump(marks, fh, ensure_ascii=False, sort_keys=True, indent=0)
            fh.write("}\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _create_beside(path: Path) -> tuple[int, Path]:
    """A new temporary file next to ``path``, with the mode ``open(path, "w")`` would leave.

    Created with 0o666 so the kernel applies the umask (and any default ACL) as for an ordinary
    file, unlike mkstemp's 0600; an existing cassette's own mode is kept.
    """
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        try:
            os.fchmod(fd, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        return fd, tmp


def _short(err: BaseException) -> str:
    return str(err) if not isinstance(err, RecursionError) else "nested too deeply"
