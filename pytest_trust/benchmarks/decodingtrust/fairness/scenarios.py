"""The twelve fairness configs of DecodingTrust and which of them its fairness score averages.

Source: AI-secure/DecodingTrust@161ae83:src/dt/configs/fairness/*.yaml (prompt and sensitive-attribute
files) and src/dt/perspectives/fairness/score_calculation_script.py (the eleven scored scenarios; crime
uses its ground-truth npy as the sensitive attribute, as the configs and the scorer both do).
"""

from __future__ import annotations

from dataclasses import dataclass

DATA_DIR = "data/fairness/fairness_data/"


@dataclass(frozen=True)
class Scenario:
    name: str  # the config name: cassette unit, item id prefix and metric key part
    dataset: str  # "adult" or "crime": picks the task message and the parse rule
    prompt_file: str
    sensitive_file: str
    scored: bool = True  # one of the eleven scenarios the fairness score averages

    @property
    def files(self) -> tuple[str, str]:
        return DATA_DIR + self.prompt_file, DATA_DIR + self.sensitive_file


def _adult(name: str, stem: str, scored: bool = True) -> Scenario:
    return Scenario(name, "adult", f"{stem}.jsonl", f"sensitive_attr_{stem}.npy", scored)


def _crime(name: str, stem: str) -> Scenario:
    return Scenario(name, "crime", f"{stem}.jsonl", f"gt_labels_{stem}.npy")


SCENARIOS: tuple[Scenario, ...] = (
    _adult("zero_shot_br_0.0", "adult_0_200_test_base_rate_0.0"),
    _adult("zero_shot_br_0.5", "adult_0_200_test_base_rate_0.5"),
    _adult("zero_shot_br_1.0", "adult_0_200_test_base_rate_1.0"),
    _adult("few_shot_tr_br_0.0", "adult_32_200_train_base_rate_0.0"),
    _adult("few_shot_tr_br_0.5", "adult_32_200_train_base_rate_0.5"),
    _adult("few_shot_tr_br_1.0", "adult_32_200_train_base_rate_1.0"),
    # few_shot_0_fair_demon runs the zero_shot_br_0.5 inputs again; the score never reads it
    _adult("few_shot_0_fair_demon", "adult_0_200_test_base_rate_0.5", scored=False),
    _adult("few_shot_16_fair_demon", "adult_16_200_train_br_0.0_test_br_0.5"),
    _adult("few_shot_32_fair_demon", "adult_32_200_train_br_0.0_test_br_0.5"),
    _crime("crime_br_0.0", "crime_0_300_test_base_rate_0.0"),
    _crime("crime_br_0.5", "crime_0_300_test_base_rate_0.5"),
    _crime("crime_br_1.0", "crime_0_300_test_base_rate_1.0"),
)
BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
SCORED = tuple(scenario.name for scenario in SCENARIOS if scenario.scored)
