"""The toxicity scorer of one run: chosen once from the options, built on its first use, closed at the run's end.

The run makes one (``choose``) and hands it to each benchmark that declares it needs one (``Benchmark.needs``,
docs/adding-a-benchmark.md); no module holds a scorer for the process, so two runs in one process (pytester's, a
script's) never share one, and a test gives a benchmark a scorer of its own (``RunScorer.given``).
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
from .perspective import KEY_VARIABLE, URL
from .registry import SCORERS
from .settings import DEFAULT_RPM, MODERATION_URL, Settings, scorer_mode
from .spec import Scorer

_versions: dict[str, str] = {}  # by scorer name: digesting model files once per process (a cache, not a choice)


@dataclass(frozen=True)
class Identity:
    """Which scorer scored: its report name and version (items, reports and baselines carry both)."""

    name: str
    version: str

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


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


class RunScorer:
    """One run's toxicity scorer: its settings, and the scorer built from them on first use (items may be played
    on several threads at once, hence the lock); the offline one with default settings when nothing was chosen."""

    def __init__(self, settings: Settings | None = None, scorer: Scorer | None = None) -> None:
        self.settings = settings if settings is not None else Settings()
        self._scorer = scorer
        self._identity: Identity | None = None
        self._lock = threading.Lock()

    @classmethod
    def given(cls, scorer: Scorer) -> RunScorer:
        """A run scorer of another implementation of the interface (in tests, a script's own), named by its own
        ``name`` and ``version`` attributes ("unversioned" without one)."""
        return cls(scorer=scorer)

    def scorer(self) -> Scorer:
        """The scorer, built the first time it is asked for."""
        with self._lock:
            if self._scorer is None:
                name = self.settings.name or "offline"
                self._scorer = SCORERS[resolve_name(name)].build(replace(self.settings, registered=tuple(SCORERS)))
                self._identity = Identity(SCORERS[name].report_name, version_of(name))
            return self._scorer

    def identity(self) -> Identity:
        """The scorer's name and version."""
        scorer = self.scorer()
        with self._lock:
            if self._identity is not None:
                return self._identity
        return Identity(scorer.name, str(getattr(scorer, "version", "unversioned")))

    def _recordings(self) -> tuple[Path, str] | None:
        """Where a recording scorer's answers go: the model's cassette folder and the scorer's folder in it."""
        root = self.settings.scores_root
        folder = SCORERS[self.settings.name].recordings if self.settings.name in SCORERS else None
        return (root, folder) if root is not None and folder else None

    def merge_left_behind(self) -> MergeReport:
        """In the main process, at the start: merge the score journals a killed run left behind, as the session
        does its model's."""
        where = self._recordings()
        if where is None or self.settings.worker != "main":
            return MergeReport()
        return merge_journals(where[0] / where[1])

    def finish(self, merge: bool = True) -> MergeReport:
        """Close the scorer; with ``merge`` (the main process, after its workers), merge this run's score
        journals into the score cassettes."""
        with self._lock:
            scorer, self._scorer = self._scorer, None
        if scorer is not None:
            scorer.close()
        where = self._recordings()
        if not merge or where is None:
            return MergeReport()
        mode = scorer_mode(self.settings.record_mode, bool(self.settings.key))
        if not mode.can_record:
            return MergeReport()
        return merge_journals(where[0] / where[1], self.settings.session_id, rewrite=mode is RecordMode.REWRITE)


def choose(name: str | None = None, *, cassettes: Path | None = None, model: str | None = None,
           record_mode: RecordMode = RecordMode.NONE, rpm: float = DEFAULT_RPM, session_id: str | None = None,
           worker: str = "main", url: str = URL, moderation_url: str = MODERATION_URL,
           environ: Mapping[str, str] | None = None) -> RunScorer:
    """A run's scorer, by registered name (None: perspective when its key is set, else offline), not built yet;
    its key is read from ``environ`` now and never stored on disk."""
    environ = os.environ if environ is None else environ
    chosen = resolve_name(name, environ)
    if rpm <= 0:
        raise UsageProblem(f"--trust-perspective-rpm must be a positive number, not {rpm}")
    variable = SCORERS[chosen].key_variable
    return RunScorer(Settings(chosen, cassettes, model, record_mode, rpm, session_id, worker, url,
                              (environ.get(variable) or None) if variable else None, moderation_url))
