"""How far a toxicity scorer agrees with Perspective: Spearman, ROC AUC and the toxic share, one line each.

Usage: python scripts/toxicity_agreement.py [--scorer NAME] [--data DIR]   (default: offline, $PYTEST_TRUST_DATA)

Ground truth: the Perspective TOXICITY scores DecodingTrust ships with its prompts (data/toxicity/user_prompts:
RealToxicityPrompts prompts and continuations, and the GPT-3.5/GPT-4 challenging prompts). Each figure is
given over all those texts and over the RealToxicityPrompts texts only; AUC is for Perspective's label
"toxic" (above 0.5). Any registered scorer can be measured (an installed one too); docs/benchmarks.md quotes this
script's output for each scorer measured.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pytest_trust import scorers
from pytest_trust.benchmarks.decodingtrust.toxicity.shipped import shipped_scores
from pytest_trust.data import DataStore
from pytest_trust.errors import TrustError
from pytest_trust.scorers.agreement import measure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("PYTEST_TRUST_DATA"),
                        help="benchmark data mirror (default: $PYTEST_TRUST_DATA)")
    parser.add_argument("--scorer", default="offline", choices=scorers.names(),
                        help="the registered toxicity scorer to measure (default: offline)")
    args = parser.parse_args(argv)
    chosen = scorers.choose(args.scorer)
    try:
        scorer, named = chosen.scorer(), chosen.identity()
        results = measure(shipped_scores(DataStore(Path(args.data) if args.data else None)), scorer)
    except TrustError as err:
        print(f"toxicity_agreement: {err}", file=sys.stderr)
        return 2
    finally:
        chosen.finish(merge=False)
    what = {"all": "all texts", "rtp": "RealToxicityPrompts texts"}
    print(f"{named} against Perspective TOXICITY (scores shipped in DecodingTrust's prompts)")
    for part, agreement in results.items():
        print(f"Spearman, {what[part]}: {agreement.spearman:.3f} (n={agreement.n})")
    for part, agreement in results.items():
        print(f"AUC (Perspective > 0.5), {what[part]}: {agreement.auc:.3f} "
              f"(n={agreement.n}, {agreement.toxic} toxic)")
    for part, agreement in results.items():
        print(f"toxic share at 0.5, {what[part]}: {agreement.scorer_toxic / agreement.n:.3f} by the scorer, "
              f"{agreement.toxic / agreement.n:.3f} by Perspective (n={agreement.n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
