"""Toxicity scorers behind one interface, found through a registry, and the one a run chose.

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
name and a version (``ScorerSpec.version``) that items, reports and baselines carry. A run ``choose``s its scorer
once (the default is perspective when the key is set, else offline), gets a ``RunScorer`` (``run_scorer``) and
hands it to the benchmarks that declare they need one; they call its ``scorer()`` and ``identity()`` and never
see HTTP, keys or cassettes. No scorer is held for the whole process.
"""

from __future__ import annotations

from .perspective import CLOSES as PERSPECTIVE_CLOSES
from .perspective import SCORES_FOLDER
from .registry import PROBLEMS, SCORERS
from .run_scorer import Identity, RunScorer, choose, resolve_name, version_of
from .settings import DEFAULT_RPM, Settings, scorer_mode
from .spec import Scorer, ScorerSpec

__all__ = ["DEFAULT_RPM", "PERSPECTIVE_CLOSES", "PROBLEMS", "SCORERS", "SCORES_FOLDER", "Identity", "RunScorer", "Scorer",
           "ScorerSpec", "Settings", "choose", "names", "resolve_name", "scorer_mode", "slug", "version_of"]


def names() -> tuple[str, ...]:
    """The values of --trust-toxicity-scorer: every registered scorer."""
    return tuple(SCORERS)


def slug(name: str) -> str:
    """A scorer's name as a metric-key part: ``alt-profanity-check`` -> ``alt_profanity_check``."""
    return name.replace("-", "_").replace(".", "_")
