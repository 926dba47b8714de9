"""Where pinned files come from: the mirror, then the user cache, then a verified download.

Every file is checked against its manifest sha256 once per process; a mismatch names the file and
both digests. The mirror has the layout ``<source>/<path>.xz``; a mirror file that is not a whole
xz stream is a ``DataError`` naming it, not a bare LZMAError. What was built from files (the item
cache) keeps their stamps (``stamps``): a file whose stamp changed since is checked again (``recheck``).
"""

from __future__ import annotations

import hashlib
import lzma
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import ChecksumMismatch, DataError, DataUnavailable
from .manifest import PinnedFile, pinned

DOWNLOAD_URL = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"
URL_VARIABLE = "PYTEST_TRUST_DATA_URL"  # another server laid out as GitHub raw (an internal mirror, a test's)


# a file read: its source and path, the file that served it (mirror or cache), and that file's size, mtime and ctime
# (ns): a write changes the ctime even when the size and the mtime are put back
Stamp = tuple[str, str, str, int, int, int]


def download_url(pin: PinnedFile) -> str:
    """Where a pinned file is downloaded from: GitHub raw at the pinned commit, or ``$PYTEST_TRUST_DATA_URL``
    (the same template, e.g. ``http://mirror.internal/{repository}/{commit}/{path}``)."""
    template = os.environ.get(URL_VARIABLE) or DOWNLOAD_URL
    return template.format(repository=pin.repository, commit=pin.commit, path=pin.path)


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-trust" / "data"


class DataStore:
    def __init__(self, mirror: Path | None, cache: Path | None = None, download: bool = True,
                 missing_mirror: Path | None = None, flag: str = "--trust-data", fill_cache: bool = False) -> None:
        self.mirror = mirror
        self.flag = flag  # the option of the command reading the data, which its messages name
        self.fill_cache = fill_cache  # also cache what the mirror serves (pytest-trust data fetch)
        self.origins: dict[tuple[str, str], str] = {}  # each file read: "mirror", "cache" or "download"
        self.missing_mirror = missing_mirror  # the trust_data ini option's folder, set but absent
        self.cache = cache or default_cache()
        self.download = download
        self.download_failed: str | None = None  # after one failed download, the others of the run are not tried
        self._verified: dict[tuple[str, str], bytes] = {}
        self._read_as: dict[tuple[str, str], Stamp] = {}  # each file read: its stamp just before it was read
        self._watches: list[set[tuple[str, str]]] = []

    def read_bytes(self, source: str, path: str) -> bytes:
        key = (source, path)
        for watch in self._watches:
            watch.add(key)
        if key not in self._verified:
            pin = pinned(source, path)
            data, origin = self._fetch(pin)
            _verify(pin, data, origin)
            self._verified[key] = data
        return self._verified[key]

    def read_text(self, source: str, path: str) -> str:
        return self.read_bytes(source, path).decode("utf-8")

    @contextmanager
    def watching(self) -> Iterator[set[tuple[str, str]]]:
        """The (source, path) of every file read inside the block, including those verified before it."""
        watch: set[tuple[str, str]] = set()
        self._watches.append(watch)
        try:
            yield watch
        finally:
            self._watches.remove(watch)

    def stamps(self, keys: Iterable[tuple[str, str]]) -> list[Stamp]:
        """The stamps of files this store read, as they were when it read them: a change since is a change."""
        return [self._read_as.get((source, path)) or self._stamp(source, path, "") for source, path in sorted(keys)]

    def changed(self, stamps: Iterable[Stamp]) -> list[tuple[str, str]]:
        """The files whose stamp differs from the one given (or which a read would now take from elsewhere)."""
        return [(source, path) for source, path, served, *stat in stamps
                if self._where(source, path, served) != (source, path, served, *stat)]

    def restamped(self, stamps: Iterable[Stamp]) -> list[Stamp]:
        """The stamps given, as the files are now (after ``recheck`` of those that changed)."""
        return [self._read_as.get((source, path)) or self._stamp(source, path, served)
                for source, path, served, *_ in stamps]

    def _stamp(self, source: str, path: str, served: str) -> Stamp:
        """The file's stamp now; for a file gone, one no file matches, so it counts as changed."""
        return self._where(source, path, served) or (source, path, served, -1, -1, -1)

    def recheck(self, source: str, path: str) -> None:
        """Read the file as ``read_bytes`` would and verify it against its pin, raising as it would; nothing is
        kept (a replay from the item cache never holds the data)."""
        pin = pinned(source, path)
        data, origin = self._fetch(pin)
        _verify(pin, data, origin)

    def _where(self, source: str, path: str, served: str) -> Stamp | None:
        """The stamp of the file a read would take now: the mirror's copy if there is one, else ``served`` (the
        cache's copy it came from); None when neither is there."""
        mirrored = self.mirror / source / f"{path}.xz" if self.mirror is not None else None
        for candidate in (mirrored, Path(served) if served else None):
            try:
                stat = os.stat(candidate) if candidate is not None else None
            except OSError:
                continue
            if stat is not None:
                return source, path, str(candidate), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns
        return None

    def _fetch(self, pin: PinnedFile) -> tuple[bytes, str]:
        key = (pin.source, pin.path)
        cached = self.cache / pin.source / pin.commit / pin.path
        if self.mirror is not None:
            mirrored = self.mirror / pin.source / f"{pin.path}.xz"
            if mirrored.exists():
                self._read_as[key] = self._stamp(*key, str(mirrored))
                data = _decompress(mirrored)
                self.origins[key] = "mirror"
                if self.fill_cache and not cached.exists():
                    _verify(pin, data, str(mirrored))
                    _write(cached, data)
                return data, str(mirrored)
        if cached.exists():
            self._read_as[key] = self._stamp(*key, str(cached))
            self.origins[key] = "cache"
            return cached.read_bytes(), str(cached)
        self.origins[key] = "download"
        data = self._download(pin, cached)
        self._read_as[key] = self._stamp(*key, str(cached))  # verified, then written there
        return data, f"{pin.repository}@{pin.commit[:10]}:{pin.path}"

    def _download(self, pin: PinnedFile, cached: Path) -> bytes:
        url = download_url(pin)
        if not self.download:
            raise DataUnavailable(self._unavailable(pin, "downloads are off"))
        if self.download_failed is not None:  # offline: each further file would wait for its own timeout
            raise DataUnavailable(self._unavailable(pin, f"downloads failed ({self.download_failed})"))
        import urllib.request  # here: a run that downloads nothing does not load it, nor http.client (0.5 MB)

        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                data = response.read()
        except OSError as err:
            self.download_failed = str(getattr(err, "reason", None) or err)
            raise DataUnavailable(self._unavailable(pin, f"the download failed ({self.download_failed})")) \
                from err
        _verify(pin, data, url)
        _write(cached, data)
        return data

    def _unavailable(self, pin: PinnedFile, why: str) -> str:
        """Where a pinned file is looked for, in order (mirror, cache, download), what each gave, and the fix."""
        if self.mirror is not None:
            mirror = f"the mirror {self.mirror} has no {pin.source}/{pin.path}.xz"
        elif self.missing_mirror is not None:
            mirror = f"the trust_data ini option is set to {self.missing_mirror}, which does not exist"
        else:
            mirror = f"no data mirror is set ({self.flag} DIR, PYTEST_TRUST_DATA=DIR or the trust_data ini option)"
        return (f"{pin.source}/{pin.path} cannot be read: {mirror}; the cache {self.cache} has no copy; {why}. "
                f"Connect to the internet and rerun (it downloads from {pin.repository}@{pin.commit[:10]}, then is "
                f"cached), or point {self.flag} DIR at a mirror laid out as <source>/<path>.xz.")


def _write(cached: Path, data: bytes) -> None:
    """Write a verified file into the cache atomically: a reader sees the whole file or none."""
    cached.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cached.parent)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, cached)


def _decompress(mirrored: Path) -> bytes:
    try:
        return lzma.decompress(mirrored.read_bytes())
    except (lzma.LZMAError, EOFError, OSError) as err:  # EOFError: a stream cut short
        raise DataError(f"mirror file {mirrored} is not a readable xz file ({err}): restore it from the mirror's "
                        "source, or remove it so the cache or a download is used") from None


def _verify(pin: PinnedFile, data: bytes, origin: str) -> None:
    actual = hashlib.sha256(data).hexdigest()
    if actual != pin.sha256:
        raise ChecksumMismatch(
            f"{pin.source}/{pin.path} from {origin} has sha256 {actual}, but the manifest pins {pin.sha256} "
            f"(commit {pin.commit[:10]}); the file is corrupt or from another commit"
        )
