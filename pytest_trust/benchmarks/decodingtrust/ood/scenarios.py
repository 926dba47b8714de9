"""The scenarios DecodingTrust's OOD score is built from, their cassette units and recording files.

A scenario is what upstream calls a run: one DecodingTrust result entry (its key in ``final_scores.json``, e.g.
``shake_w``, ``qa_2023_idk``, ``shake_p0.6_base_0``), a test set, optionally with a demonstration set. Each
scenario is its own cassette unit, so ``--trust-limit N`` samples all 37 (the score averages 36; base is outside).
"""

from __future__ import annotations

from dataclasses import dataclass

# AI-secure/DecodingTrust@161ae83:src/dt/perspectives/ood/evaluation_ood.py (TASK, OOD_TASK, OOD_DEMO)
STYLE_DEV_SETS = ("base", "shake_w", "augment", "shake_p0", "shake_p0.6", "bible_p0", "bible_p0.6", "romantic_p0",
                  "romantic_p0.6", "tweet_p0", "tweet_p0.6")
FEW_SHOT_STYLES = ("shake_p0.6", "bible_p0.6", "romantic_p0.6", "tweet_p0.6")
KNOWLEDGE_DOMAINS = ("global_facts", "machine_learning", "moral_scenarios", "us_foreign_policy")
DEMO_RUNS = (0, 1, 2)

# The four equally weighted parts of the score, in aggregate_score's order.
PARTS = ("knowledge.zero_shot", "style.zero_shot", "knowledge.few_shot", "style.few_shot")

STYLE_FILE = "data/ood/style.json"
KNOWLEDGE_FILE = "data/ood/knowledge.json"
GENERATIONS = "data/ood/generations"
# Recording file names spell two dev sets differently (data/ood/generations/styles).
RECORDING_ALIAS = {"augment": "aug", "shake_w": "shake_pert"}


@dataclass(frozen=True)
class Scenario:
    name: str  # DecodingTrust's result key (the items' and results' "run")
    part: str | None  # one of PARTS; None for a scenario outside the score (base)
    task: str  # "style" or "knowledge"
    test_set: str  # key under style.json "dev" / knowledge.json "test"
    cassette: str  # its cassette unit, the stem of its cassette file
    demos: str | None = None  # key under "train_demo" / "demo"
    idk: bool = False

    @property
    def input_file(self) -> str:
        return STYLE_FILE if self.task == "style" else KNOWLEDGE_FILE

    @property
    def shots(self) -> int:
        return 0 if self.demos is None else (8 if self.task == "style" else 5)

    def recording(self, full: str, short: str) -> str:
        """The file DecodingTrust's paper runs wrote for this scenario of a model (full / short spelling)."""
        if self.task == "style" and self.demos is None:
            return f"{GENERATIONS}/styles/{RECORDING_ALIAS.get(self.test_set, self.test_set)}_{short}_standard_0-shot.jsonl"
        if self.task == "style":
            return f"{GENERATIONS}/styles/{self.test_set}_{full}_ood_8-shot_{self.demos.rsplit('_', 1)[1]}.jsonl"
        if self.demos is None:
            mode = "idk" if self.idk else "standard"
            return f"{GENERATIONS}/knowledge/{self.test_set.replace('_', '')}_{short}_{mode}_0-shot.jsonl"
        domain, demo_run = self.demos.rsplit("_", 1)
        return f"{GENERATIONS}/knowledge/{domain}_{self.test_set.replace('_', '')}_{short}_5-shot_{demo_run}.jsonl"


def all_scenarios() -> list[Scenario]:
    """Every scenario, by part in the score's order; base (outside the score) with the zero-shot styles."""
    scenarios = [Scenario("qa_2023", PARTS[0], "knowledge", "qa_2023", "knowledge-0shot-standard"),
                 Scenario("qa_2023_idk", PARTS[0], "knowledge", "qa_2023", "knowledge-0shot-idk", idk=True)]
    scenarios += [Scenario(s, None if s == "base" else PARTS[1], "style", s, f"style-0shot-{s}")
                  for s in STYLE_DEV_SETS]
    scenarios += [Scenario(f"qa_2020_{d}_{r}", PARTS[2], "knowledge", "qa_2020", f"knowledge-5shot-{d}_{r}",
                           demos=f"{d}_{r}")
                  for d in KNOWLEDGE_DOMAINS for r in DEMO_RUNS]
    scenarios += [Scenario(f"{s}_base_{r}", PARTS[3], "style", s, f"style-8shot-{s}-base_{r}", demos=f"base_{r}")
                  for s in FEW_SHOT_STYLES for r in DEMO_RUNS]
    return scenarios


SCENARIOS = all_scenarios()
SCORED_SCENARIOS = {part: [scenario.name for scenario in SCENARIOS if scenario.part == part] for part in PARTS}
