"""What a toxicity scorer declares: one ``ScorerSpec`` per scorer, found through the scorer registry.

A scorer is a versioned choice, so that two runs' toxicity numbers are compared only when the same model of
toxicity scored both: its version is its package's version plus a digest of its model files (the weights it
loads), so a retrained classifier shipped under an unchanged package version is still another scorer. A
scorer whose model is a remote service (Perspective) has no files to digest; it declares the service's
version instead. Another package adds a scorer with an entry point in the ``pytest_trust.scorers`` group
naming its ``ScorerSpec`` (docs/benchmarks.md, "Toxicity scorers").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from ..items import Item


class Scorer(Protocol):
    """Texts in, toxicity scores in [0, 1] out; ``None`` for a text it does not score (empty or whitespace
    only, as DecodingTrust's evaluator leaves them unscored)."""

    name: str  # as reports name it, e.g. "perspective-api"
    stand_in: bool  # True when the scores only approximate DecodingTrust's scorer

    def score(self, texts: Sequence[str], item: Item | None = None) -> list[float | None]:
        """One score per text, in order; ``item`` names where recorded scores live."""
        ...

    def close(self) -> None: ...


def no_files() -> tuple[Path, ...]:
    return ()


@dataclass(frozen=True)
class ScorerSpec:
    """A toxicity scorer: ``--trust-toxicity-scorer NAME`` builds it with ``build(settings)`` (the session's
    ``scorers.Settings``: cassette folder, model, record mode, run name)."""

    name: str  # the option's value
    build: Callable[[Any], Scorer]
    help: str  # one line for the option's help
    package: str | None = None  # the distribution whose version is the scorer's
    model_files: Callable[[], Iterable[Path]] = field(default=no_files)  # the model's weights, digested
    service: str | None = None  # a remote model's version, when there are no files to digest
    label: str = ""  # as reports name it (default: name)
    recordings: str | None = None  # a remote scorer's folder of recorded answers, under cassettes/<model>/
    key_variable: str | None = None  # the environment variable of its key (read by the session, never stored)

    @property
    def report_name(self) -> str:
        return self.label or self.name

    def version(self) -> str:
        """``<package version>+sha256.<12 hex digits of the model files>``, or the service's version."""
        if self.service is not None:
            return self.service
        release = _release(self.package)
        files = sorted(Path(path) for path in self.model_files())
        if not files:
            return release
        digest = hashlib.sha256()
        for path in files:
            try:
                content = path.read_bytes()
            except OSError:
                return f"{release}+model files unreadable"
            digest.update(path.name.encode("utf-8") + b"\0" + len(content).to_bytes(8, "big") + content)
        return f"{release}+sha256.{digest.hexdigest()[:12]}"


def _release(package: str | None) -> str:
    if not package:
        return "unversioned"
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def described(spec: ScorerSpec, version: str | None = None) -> str:
    """``name version``, as messages and reports show a scorer."""
    return f"{spec.report_name} {version or spec.version()}"
