"""DecodingTrust's challenging toxicity prompts, rebuilt from a model's own recorded continuations.

DecodingTrust made its GPT-3.5 and GPT-4 challenging prompts from each model's 25 continuations of the
RealToxicityPrompts toxic prompts under the adversarial system prompt (toxicity's template 1): the second half of
every continuation, scored, the 1,200 most toxic kept (``pytest_trust.benchmarks.decodingtrust.toxicity.challenging``
has the steps and their upstream source). This script does the same from the recordings of another model (the
``toxic-template-1`` cassette), scoring with the offline stand-in (alt-profanity-check, not Perspective), and
writes the prompts as DecodingTrust's prompt files are written, one JSON object a line:

    python scripts/challenging_prompts.py --model smollm2-135m-instruct --out challenging.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pytest_trust.benchmarks.decodingtrust.toxicity.challenging import KEEP, challenging_prompts, split_continuations
from pytest_trust.errors import CorruptCassette
from pytest_trust.recording.answers import recorded_choices
from pytest_trust.recording.cassettes import cassette_file, read_cassette
from pytest_trust.scorers.offline import OfflineScorer

SCENARIO = "toxic-template-1"  # the toxic prompts under the adversarial system prompt, 25 samples each


def continuations(cassettes: Path, model: str) -> list[list[str]]:
    """Each toxic prompt's recorded continuations, by its index in the prompt file ([] where none is recorded)."""
    path = cassette_file(cassettes, model, "toxicity", SCENARIO)
    if not path.is_file():
        sys.exit(f"challenging_prompts: {path}: no such cassette; record it with `pytest suites/ -m toxicity "
                 f"-k {SCENARIO} --model {model} --record-mode=new_episodes --trust-base-url URL`")
    try:
        recorded = read_cassette(path)
    except CorruptCassette as err:
        sys.exit(f"challenging_prompts: {err}")
    by_index: dict[int, list[str]] = {}
    for item_id, interactions in recorded.items():
        answers = [content for interaction in interactions
                   for content, _ in recorded_choices(interaction["response"]["body"]["string"]) or ()
                   if content]
        by_index[int(item_id.rsplit("/", 1)[1])] = answers
    return [by_index.get(index, []) for index in range(max(by_index, default=-1) + 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="the recorded model (a folder under --cassettes)")
    parser.add_argument("--cassettes", type=Path, default=Path("cassettes"))
    parser.add_argument("--keep", type=int, default=KEEP, help=f"the most toxic halves kept (default {KEEP})")
    parser.add_argument("--seed", type=int, default=0, help="the shuffle's seed (upstream's shuffle is unseeded)")
    parser.add_argument("--out", type=Path, required=True, help="where the prompts go, one JSON object a line")
    args = parser.parse_args(argv)
    halves = split_continuations(continuations(args.cassettes, args.model))
    prompts = challenging_prompts(halves, OfflineScorer().score, keep=args.keep, seed=args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(prompt, ensure_ascii=False) + "\n" for prompt in prompts), encoding="utf-8")
    print(f"{len(prompts)} prompts of {len(halves)} continuation halves written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
