"""Toxicity scorers behind one interface, and the one the session chose.

A scorer turns a batch of texts into toxicity scores in [0, 1], ``None`` for a text it does not score
(empty or whitespace only, as DecodingTrust's evaluator leaves them unscored). Two exist:

    perspective   Google's Perspective API (TOXICITY), the scorer DecodingTrust used: a live HTTP client
                  whose answers are recorded as cassettes of their own (``cassettes/<model>/perspective-api/``),
                  so re-scoring a recorded run is offline and free. Needs ``PERSPECTIVE_API_KEY`` to score
                  what was never scored.
    offline       alt-profanity-check, a linear model inside its wheel: no key, no network. A stand-in for
                  Perspective, not an equivalent (its agreement with Perspective: scripts/toxicity_agreement.py).

The session calls ``configure`` once (the default is perspective when the key is set, else offline) and
``finish`` at its end; benchmarks call ``current()`` and never see HTTP, keys or cassettes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import UsageProblem
from ..items import Item
from ..recording import Recorder, RecordMode
from ..recording.cassettes import model_dir
from ..recording.journal import MergeReport, merge_journals
from .offline import OfflineScorer
from .perspective import KEY_VARIABLE, URL, PerspectiveScorer

NAMES = ("offline", "perspective")  # the values of --trust-toxicity-scorer
DEFAULT_RPM = 60.0  # Perspective's default quota is one query per second
SCORES_FOLDER = "perspective-api"  # under cassettes/<model>/: the scores' own cassettes and journals


class Scorer(Protocol):
    name: str  # as reports name it, e.g. "perspective-api"
    stand_in: bool  # True when the scores only approximate DecodingTrust's scorer

    def score(self, texts: Sequence[str], item: Item | None = None) -> list[float | None]:
        """One score per text, in order; ``item`` names where recorded scores live."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Settings:
    """What the session tells the registry; the key is read from the environment, never stored on disk."""

    name: str | None = None  # one of NAMES, resolved by configure; None before it (offline)
    cassettes: Path | None = None  # cassette root; None: Perspective scores are not recorded
    model: str | None = None  # the evaluated model, whose cassette folder holds its scores
    record_mode: RecordMode = RecordMode.NONE  # the session's record mode
    rpm: float = DEFAULT_RPM
    run: str | None = None  # the session's run name (its journals), shared with its xdist workers
    worker: str = "main"
    url: str = URL  # the analyze endpoint (another only in tests)

    @property
    def scores_root(self) -> Path | None:
        """The folder the Perspective recorder treats as its cassette root."""
        if self.cassettes is None or self.model is None:
            return None
        return model_dir(self.cassettes, self.model)


_lock = threading.Lock()
_settings = Settings()
_key: str | None = None
_current: Scorer | None = None


def resolve_name(name: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The scorer a run uses: the one named, else perspective when a key is set, else offline."""
    environ = os.environ if environ is None else environ
    if name is None:
        return "perspective" if environ.get(KEY_VARIABLE) else "offline"
    if name not in NAMES:
        raise UsageProblem(f"unknown toxicity scorer {name!r}: use one of {', '.join(NAMES)}")
    return name


def scorer_mode(session: RecordMode, has_key: bool) -> RecordMode:
    """How Perspective scores are recorded: as the session records; in a replay, scores never recorded
    are fetched (and recorded) only when a key is given, else they miss."""
    if session.can_record:
        return session
    return RecordMode.NEW_EPISODES if has_key else RecordMode.NONE


def configure(name: str | None = None, *, cassettes: Path | None = None, model: str | None = None,
              record_mode: RecordMode = RecordMode.NONE, rpm: float = DEFAULT_RPM, run: str | None = None,
              worker: str = "main", url: str = URL, environ: Mapping[str, str] | None = None) -> MergeReport:
    """Choose the session's scorer (built on first use). The main process (``worker="main"``) also merges
    score journals a killed run left behind, as the session does for its model's, and returns that report."""
    global _settings, _key, _current
    environ = os.environ if environ is None else environ
    chosen = resolve_name(name, environ)
    if rpm <= 0:
        raise UsageProblem(f"--trust-perspective-rpm must be a positive number, not {rpm}")
    with _lock:
        if _current is not None:
            _current.close()
        _current = None
        _key = environ.get(KEY_VARIABLE) or None
        _settings = Settings(chosen, cassettes, model, record_mode, rpm, run, worker, url)
    root = _settings.scores_root
    if chosen == "perspective" and worker == "main" and root is not None:
        return merge_journals(root / SCORES_FOLDER)
    return MergeReport()


def current() -> Scorer:
    """The configured scorer (offline when ``configure`` was never called)."""
    global _current
    with _lock:
        if _current is None:
            _current = get_scorer(_settings.name or "offline")
        return _current


def get_scorer(name: str) -> Scorer:
    """A new scorer by option name, with the configured settings."""
    if resolve_name(name) == "offline":
        return OfflineScorer()
    mode = scorer_mode(_settings.record_mode, bool(_key))
    root = _settings.scores_root
    recorder = (Recorder(root, SCORES_FOLDER, mode, _settings.run, _settings.worker) if root is not None else None)
    return PerspectiveScorer(_key, recorder=recorder, rpm=_settings.rpm, url=_settings.url)


def use(scorer: Scorer) -> None:
    """Make ``scorer`` the current one (another implementation of the interface, e.g. in tests)."""
    global _current
    with _lock:
        if _current is not None and _current is not scorer:
            _current.close()
        _current = scorer


def finish(merge: bool = True) -> MergeReport:
    """Close the scorer; with ``merge`` (the main process, after its workers), merge this run's score
    journals into the score cassettes."""
    global _current
    with _lock:
        scorer, _current = _current, None
    if scorer is not None:
        scorer.close()
    root = _settings.scores_root
    if not merge or root is None or _settings.name != "perspective":
        return MergeReport()
    mode = scorer_mode(_settings.record_mode, bool(_key))
    if not mode.can_record:
        return MergeReport()
    return merge_journals(root / SCORES_FOLDER, _settings.run, rewrite=mode is RecordMode.REWRITE)


def slug(name: str) -> str:
    """A scorer's name as a metric-key part: ``alt-profanity-check`` -> ``alt_profanity_check``."""
    return name.replace("-", "_").replace(".", "_")
