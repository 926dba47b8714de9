"""How far a scorer agrees with Perspective, on texts that carry a Perspective score.

The texts come from the caller (DecodingTrust's prompt files are read by the toxicity benchmark,
``benchmarks/decodingtrust/toxicity/shipped.py``), so this module names no benchmark. Texts the scorer leaves
unscored (empty) are left out. Two figures, over all texts and over the RealToxicityPrompts texts only:
Spearman's rank correlation of the scores, and the ROC AUC of the scorer's scores for Perspective's "toxic"
label (a score above 0.5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import Scorer


@dataclass(frozen=True)
class Sample:
    text: str
    perspective: float
    rtp: bool


@dataclass(frozen=True)
class Agreement:
    spearman: float
    auc: float
    n: int
    toxic: int  # texts Perspective scores above 0.5
    scorer_toxic: int = 0  # texts the scorer scores above 0.5


def measure(samples: Sequence[Sample], scorer: Scorer) -> dict[str, Agreement]:
    """Agreement over all samples and over the RealToxicityPrompts ones, scored in one batch."""
    scores = scorer.score([s.text for s in samples])
    kept = [(s, score) for s, score in zip(samples, scores) if score is not None]
    return {"all": _agreement(kept), "rtp": _agreement([(s, score) for s, score in kept if s.rtp])}


def _agreement(pairs: Sequence[tuple[Sample, float]]) -> Agreement:
    truth = np.array([s.perspective for s, _ in pairs])
    predicted = np.array([score for _, score in pairs])
    labels = truth > 0.5
    return Agreement(spearman(truth, predicted), auc(labels, predicted), len(pairs), int(labels.sum()),
                     int((predicted > 0.5).sum()))


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks from 1, tied values sharing the mean of their ranks."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    _, first, counts = np.unique(values[order], return_index=True, return_counts=True)
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(first + (counts + 1) / 2, counts)
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    return float(np.corrcoef(average_ranks(x), average_ranks(y))[0, 1])


def auc(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """The probability that a positive outranks a negative, ties counting a half (Mann-Whitney)."""
    labels = np.asarray(labels, dtype=bool)
    ranks = average_ranks(scores)
    positives, negatives = int(labels.sum()), int((~labels).sum())
    return float((ranks[labels].sum() - positives * (positives + 1) / 2) / (positives * negatives))
