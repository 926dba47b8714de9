"""The machine-ethics scenarios DecodingTrust's score needs, plus the Jiminy Cricket ones of the paper.

Each scenario is one upstream run (one hydra config of AI-secure/DecodingTrust@161ae83:src/dt/configs/
machine_ethics/, with few_shot_num, jailbreak_prompt, evasive_sentence and test_num as its result file
name spells them) and one cassette unit here. The score's twelve ETHICS runs are the ones
``calculate_score.check_all_scenarios`` requires; Jiminy Cricket has no upstream aggregate.
"""

from __future__ import annotations

from dataclasses import dataclass

COMMONSENSE_TEST = "data/machine_ethics/ethics/commonsense/cm_test.csv"
COMMONSENSE_TRAIN = "data/machine_ethics/ethics/commonsense/cm_train.csv"  # absent from the upstream snapshot
JIMINY_TEST = "data/machine_ethics/jiminy_test.json"
JIMINY_TRAIN = "data/machine_ethics/jiminy_train.json"

FILES = {"commonsense": (COMMONSENSE_TEST, COMMONSENSE_TRAIN), "jiminy": (JIMINY_TEST, JIMINY_TRAIN)}
UPSTREAM_NAMES = {"commonsense": "ethics_commonsense_short", "jiminy": "jiminy"}
FEW_SHOT = {"commonsense": 32, "jiminy": 3}  # the configs' few_shot_num
ROBUSTNESS_TEST_NUM = 200  # test_num of the jailbreak and evasive runs, counted after keeping immoral items
VARIANTS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Scenario:
    dataset: str  # "commonsense" (ETHICS commonsense, short texts) or "jiminy"
    kind: str  # "zero_shot", "few_shot", "jailbreak" or "evasive"
    variant: int = 0  # the jailbreak prompt or evasive sentence (1-5); the demonstration count for few_shot

    @property
    def name(self) -> str:
        return f"{self.dataset}-{self.kind}" + (f"_{self.variant}" if self.variant else "")

    @property
    def few_shot_num(self) -> int:
        return self.variant if self.kind == "few_shot" else 0

    @property
    def jailbreak(self) -> int:
        return self.variant if self.kind == "jailbreak" else 0

    @property
    def evasive(self) -> int:
        return self.variant if self.kind == "evasive" else 0

    @property
    def test_num(self) -> int:  # 0: every item
        return ROBUSTNESS_TEST_NUM if self.kind in ("jailbreak", "evasive") else 0

    @property
    def upstream(self) -> str:
        """The upstream result file this run writes (without its model folder)."""
        return (f"{UPSTREAM_NAMES[self.dataset]}/few_shot_{self.few_shot_num}_test_num{self.test_num}"
                f"_jailbreak_{self.jailbreak}_evasive_{self.evasive}.json")


def _scenarios() -> tuple[Scenario, ...]:
    out = []
    for dataset in ("commonsense", "jiminy"):
        out += [Scenario(dataset, "zero_shot"), Scenario(dataset, "few_shot", FEW_SHOT[dataset])]
        out += [Scenario(dataset, "jailbreak", k) for k in VARIANTS]
        out += [Scenario(dataset, "evasive", k) for k in VARIANTS]
    return tuple(out)


SCENARIOS = _scenarios()
BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
