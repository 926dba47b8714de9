"""Toxicity scorers behind one interface, found through a registry, and the one the session chose.

A scorer turns a batch of texts into toxicity scores in [0, 1] (``spec.Scorer``). Built in:

    perspective   Google's Perspective API (TOXICITY), the scorer DecodingTrust used: a live HTTP client
                  whose answers are recorded as cassettes of their own (``cassettes/<model>/perspective-api/``),
                  so re-scoring a recorded run is offline and free. Needs ``PERSPECTIVE_API_KEY`` to score
                  what was never scored.
    offline       alt-profanity-check, a linear model inside its wheel: no key, no network. A stand-in for
                  Perspective, not an equivalent (its agreement with Perspective: scripts/toxicity_agreement.py).
    openai-moderation  OpenAI's moderation endpoint through the openai client, recorded as Perspective is
                  (``cassettes/<model>/openai-moderation/``); a stand-in too.

Other packages add theirs through the ``pytest_trust.scorers`` entry-point group (``registry``). Each has a
name and a version (``ScorerSpec.version``) that items, reports and baselines carry. The session calls
``configure`` once (the default is perspective when the key is set, else offline) and ``finish`` at its end;
benchmarks call ``current()`` and ``identity()`` and never see HTTP, keys or cassettes.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import UsageProblem
from ..recording import RecordMode
from ..recording.journal import MergeReport, merge_journals
from .perspective import CLOSES as PERSPECTIVE_CLOSES
from .perspective import KEY_VARIABLE, SCORES_FOLDER, URL
from .registry import PROBLEMS, SCORERS
from .settings import DEFAULT_RPM, MODERATION_URL, Settings, scorer_mode
from .spec import Scorer, ScorerSpec

__all__ = ["DEFAULT_RPM", "PERSPECTIVE_CLOSES", "PROBLEMS", "SCORERS", "SCORES_FOLDER", "Identity", "Scorer", "ScorerSpec", "Settings",
           "configure", "current", "finish", "get_scorer", "identity", "names", "resolve_name", "scorer_mode", "slug",
           "use"]


def names() -> tuple[str, ...]:
    """The values of --trust-toxicity-scorer: every registered scorer."""
    return tuple(SCORERS)


@dataclass(frozen=True)
class Identity:
    """Which scorer scored: its report name and version (items, reports and baselines carry both)."""

    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


_lock = threading.Lock()
_settings = Settings()
_current: Scorer | None = None
_identity: Identity | None = None
_versions: dict[str, str] = {}  # by scorer name: digesting model files once per process


def resolve_name(name: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The scorer a run uses: the one named, else perspective when a key is set, else offline."""
    environ = os.environ if environ is None else environ
    if name is None:
        return "perspective" if environ.get(KEY_VARIABLE) else "offline"
    if name not in SCORERS:
        raise UsageProblem(f"unknown toxicity scorer {name!r}: use one of {', '.join(SCORERS)}")
    return name


def version_of(name: str) -> str:
    """A registered scorer's version, computed once per process."""
    if name not in _versions:
        _versions[name] = SCORERS[name].version()
    return _versions[name]


def configure(name: str | None = None, *, cassettes: Path | None = None, model: str | None = None,
              record_mode: RecordMode = RecordMode.NONE, rpm: float = DEFAULT_RPM, session_id: str | None = None,
              worker: str = "main", url: str = URL, moderation_url: str = MODERATION_URL,
              environ: Mapping[str, str] | None = None) -> MergeReport:
    """Choose the session's scorer (built on first use). The main process (``worker="main"``) also merges
    score journals a killed run left behind, as the session does for its model's, and returns that report."""
    global _settings, _current, _identity
    environ = os.environ if environ is None else environ
    chosen = resolve_name(name, environ)
    if rpm <= 0:
        raise UsageProblem(f"--trust-perspective-rpm must be a positive number, not {rpm}")
    with _lock:
        if _current is not None:
            _current.close()
        _current, _identity = None, None
        variable = SCORERS[chosen].key_variable
        _settings = Settings(chosen, cassettes, model, record_mode, rpm, session_id, worker, url,
                             (environ.get(variable) or None) if variable else None, moderation_url)
    root, folder = _settings.scores_root, SCORERS[chosen].recordings
    if folder and worker == "main" and root is not None:
        return merge_journals(root / folder)
    return MergeReport()


def current() -> Scorer:
    """The configured scorer (offline when ``configure`` was never called)."""
    global _current, _identity
    with _lock:
        if _current is None:
            name = _settings.name or "offline"
            _current = get_scorer(name)
            _identity = Identity(SCORERS[name].report_name, version_of(name))
        return _current


def identity() -> Identity:
    """The current scorer's name and version; a scorer set with ``use`` is named by its own ``name`` and
    ``version`` attributes ("unversioned" without one)."""
    scorer = current()
    with _lock:
        if _identity is not None:
            return _identity
    return Identity(scorer.name, str(getattr(scorer, "version", "unversioned")))


def get_scorer(name: str) -> Scorer:
    """A new scorer by registered name, with the configured settings."""
    return SCORERS[resolve_name(name)].build(replace(_settings, registered=tuple(SCORERS)))


def use(scorer: Scorer) -> None:
    """Make ``scorer`` the current one (another implementation of the interface, e.g. in tests)."""
    global _current, _identity
    with _lock:
        if _current is not None and _current is not scorer:
            _current.close()
        _current, _identity = scorer, None


def finish(merge: bool = True) -> MergeReport:
    """Close the scorer; with ``merge`` (the main process, after its workers), merge this run's score
    journals into the score cassettes."""
    global _current
    with _lock:
        scorer, _current = _current, None
    if scorer is not None:
        scorer.close()
    root = _settings.scores_root
    folder = SCORERS[_settings.name].recordings if _settings.name in SCORERS else None
    if not merge or root is None or not folder:
        return MergeReport()
    mode = scorer_mode(_settings.record_mode, bool(_settings.key))
    if not mode.can_record:
        return MergeReport()
    return merge_journals(root / folder, _settings.session_id, rewrite=mode is RecordMode.REWRITE)


def slug(name: str) -> str:
    """A scorer's name as a metric-key part: ``alt-profanity-check`` -> ``alt_profanity_check``."""
    return name.replace("-", "_").replace(".", "_")
