"""The pinned manifest: every upstream file a benchmark may read, at one commit, with its sha256."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..errors import DataError


@dataclass(frozen=True)
class PinnedFile:
    source: str  # folder name in the mirror, e.g. "rules"
    repository: str
    commit: str
    path: str
    size: int
    sha256: str


@lru_cache(maxsize=1)
def manifest() -> dict[tuple[str, str], PinnedFile]:
    text = resources.files(__package__).joinpath("manifest.tsv").read_text(encoding="utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    pinned = {}
    for source, repository, commit, path, size, sha256 in rows[1:]:
        pinned[(source, path)] = PinnedFile(source, repository, commit, path, int(size), sha256)
    return pinned


def data_commits() -> dict[str, str]:
    """Each source's ``repository@commit`` (its last row's), read a row at a time: what a run's report names, without
    the whole manifest, which a replay from the item cache never otherwise reads (1.3 MB kept once built)."""
    commits: dict[str, str] = {}
    with resources.files(__package__).joinpath("manifest.tsv").open(encoding="utf-8") as rows:
        header = True
        for line in rows:
            if not line.strip() or line.startswith("#"):
                continue
            if not header:
                source, repository, commit, _ = line.split("\t", 3)
                commits[source] = f"{repository}@{commit}"
            header = False
    return commits


@lru_cache(maxsize=1)
def absent() -> dict[tuple[str, str], str]:
    """Files benchmarks name that cannot be pinned (absent upstream, hub downloads), with why."""
    text = resources.files(__package__).joinpath("absent.tsv").read_text(encoding="utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    return {(source, path): reason for source, path, reason in rows[1:]}


def absent_reason(source: str, path: str) -> str | None:
    return absent().get((source, path))


def is_pinned(source: str, path: str) -> bool:
    return (source, path) in manifest()


def pinned(source: str, path: str) -> PinnedFile:
    try:
        return manifest()[(source, path)]
    except KeyError:
        raise DataError(f"{source}/{path} is not pinned in pytest_trust/data/manifest.tsv; "
                        "pin it (repository, commit, path, size, sha256) before reading it") from None
