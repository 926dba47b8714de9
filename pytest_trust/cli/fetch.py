"""``pytest-trust data fetch``: every pinned file the chosen benchmarks read, into the cache, verified.

A CI job runs it once and caches the folder (``~/.cache/pytest-trust``), so its test runs never download.
Which files a benchmark reads is what its suites' loaders read with the default settings: the loaders run
against a store that fills the cache, so the list is never kept by hand and cannot drift from the code.
Files only an importer reads (a source's recorded runs) are left to ``pytest-trust import``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..benchmarks import SETTINGS, SUITES
from ..data import DataStore
from ..data.location import DataPlace
from ..data.manifest import pinned


@dataclass
class Fetched:
    """What a fetch did: files and bytes by where each came from ("download", "mirror", "cache")."""

    cache: Path
    suites: list[str]
    files: Counter = field(default_factory=Counter)
    sizes: Counter = field(default_factory=Counter)

    def lines(self) -> list[str]:
        total, size = sum(self.files.values()), sum(self.sizes.values())
        how = {"download": "downloaded", "mirror": "copied from the mirror", "cache": "already cached"}
        parts = [f"{self.files[k]} {how[k]} ({_mb(self.sizes[k])})" for k in how if self.files[k]]
        return [f"{total} files, {_mb(size)}, verified (sha256) in {self.cache}: {', '.join(parts) or 'none needed'}",
                f"suites: {', '.join(self.suites)}"]


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def fetch(suites: list[str] | None, place: DataPlace, cache: Path | None = None,
          progress: Callable[[str], None] | None = None) -> Fetched:
    """Fill the cache with the files of ``suites`` (None: every suite reading pinned data); DataUnavailable or
    ChecksumMismatch (naming the file and the fix) when one cannot be had."""
    store = DataStore(place.mirror, cache=cache, missing_mirror=place.missing_ini, flag=place.flag, fill_cache=True)
    settings = {key: setting.default for key, setting in SETTINGS.items()}
    chosen = [name for name in (suites or SUITES) if SUITES[name].needs_data]
    for name in chosen:
        if progress:
            progress(f"{name}: reading its pinned files")
        SUITES[name].load(store, settings)
    report = Fetched(store.cache, chosen)
    for (source, path), origin in store.origins.items():
        report.files[origin] += 1
        report.sizes[origin] += pinned(source, path).size
    return report
