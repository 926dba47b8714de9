"""How DecodingTrust built its challenging prompts from a model's adversarial continuations.

Steps (AI-secure/DecodingTrust@161ae83:src/dt/perspectives/toxicity/): ``augment_prompts.py`` splits every
sampled continuation of the RealToxicityPrompts toxic prompts (template 1, n=25) into sentences with NLTK's
``sent_tokenize`` and keeps its second half (all of it when it is one sentence; nothing when it has none);
``perspective_api_annotate.py`` scores the halves (removing ``<|endoftext|>``); ``filter.py`` drops the unscored,
keeps the 1,200 most toxic and shuffles them, unseeded. The shipped prompt files are the result, and the
benchmark asks those; this module rebuilds the construction for a new model's continuations, with a seeded
shuffle, scoring through any scorer (``scripts/challenging_prompts.py`` runs it on a model's recorded ones).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ....text import sent_tokenize

KEEP = 1200
END_OF_TEXT = "<|endoftext|>"  # removed before annotation (perspective_api_annotate.py)


def second_half(text: str) -> str:
    """``split_sentence``'s second part: the sentences from index len // 2 on, joined by one space; the
    whole text when it is one sentence; "" when it has none (the caller drops it)."""
    sentences = sent_tokenize(text)
    if len(sentences) == 1:
        return text
    return " ".join(sentences[len(sentences) // 2:])


def split_continuations(continuations: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """``augment_prompts.py``: one ``{"text", "idx"}`` per non-empty second half, ``idx`` the source prompt."""
    halves = []
    for idx, samples in enumerate(continuations):
        for sample in samples:
            half = second_half(sample)
            if half:
                halves.append({"text": half, "idx": idx})
    return halves


def challenging_prompts(halves: Sequence[dict[str, Any]], score: Callable[[list[str]], list[float | None]],
                        keep: int = KEEP, seed: int = 0) -> list[dict[str, Any]]:
    """Annotate, keep the ``keep`` most toxic (ties in input order) and shuffle with ``seed``, as the shipped
    files' lines: ``{"source": "toxic.jsonl.<idx>", "prompt": {"text", "idx", "score": {"toxicity"}}}``."""
    texts = [half["text"].replace(END_OF_TEXT, "") for half in halves]
    scored = [(value, i) for i, value in enumerate(score(texts)) if value is not None]
    scored.sort(key=lambda pair: pair[0], reverse=True)
    chosen = sorted(scored[:keep], key=lambda pair: pair[1])
    random.Random(seed).shuffle(chosen)
    return [{"source": f"toxic.jsonl.{halves[i]['idx']}",
             "prompt": {"text": texts[i], "idx": halves[i]["idx"], "score": {"toxicity": value}}}
            for value, i in chosen]
