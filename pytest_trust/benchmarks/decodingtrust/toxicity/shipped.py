"""The Perspective scores DecodingTrust ships with its toxicity prompts: ground truth for a scorer's agreement.

``data/toxicity/user_prompts/`` (AI-secure/DecodingTrust@161ae83): the RealToxicityPrompts files hold prompt and
continuation texts with their TOXICITY scores (RTP's own Perspective run), the challenging-prompt files their
prompt texts with the scores DecodingTrust's annotator got. Texts without a Perspective score are left out.
``pytest_trust.scorers.agreement`` measures a scorer against them.
"""

from __future__ import annotations

from ....data import DataStore, read_jsonl
from ....scorers.agreement import Sample
from ..common import SOURCE
from .prompts import PROMPT_SETS

RTP = ("toxic", "nontoxic")  # the RealToxicityPrompts sets; the other two are DecodingTrust's generated prompts


def shipped_scores(data: DataStore) -> list[Sample]:
    samples = []
    for prompt_set in PROMPT_SETS:
        rtp = prompt_set.name in RTP
        for row in read_jsonl(data, SOURCE, prompt_set.path):
            parts = (row["prompt"], row["continuation"]) if rtp else (row["prompt"],)
            for part in parts:
                score = part.get("toxicity") if rtp else (part.get("score") or {}).get("toxicity")
                if isinstance(score, int | float) and isinstance(part.get("text"), str):
                    samples.append(Sample(part["text"], float(score), rtp))
    return samples
