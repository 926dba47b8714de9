"""The benchmark's scenarios: which upstream configs run, on which input files and seeds.

Mirrors AI-secure/DecodingTrust@161ae83:src/dt/configs/adv_demonstration/*.yaml and the lists
``aggregate_score.py`` scores: 12 counterfactual configs (6 tasks, plain and ``_cf``), 18 spurious
(6 heuristics x entail-bias/non-entail-bias, plus a zero-shot run per heuristic) and 12 backdoor
experiment-1 configs, each run on its ``_asr`` and ``_cacc`` files. One scenario is one cassette file.
"""

from __future__ import annotations

from dataclasses import dataclass

NAME = "adv_demonstration"
ROOT = "data/adv_demonstration"

COUNTERFACTUAL_TASKS = ("snli_premise", "snli_hypothesis", "control_raising", "irregular_form", "main_verb",
                        "syntactic_category")
HEURISTICS = ("PP", "adverb", "embedded_under_verb", "l_relative_clause", "passive", "s_relative_clause")
BIASES = ("entail-bias", "non-entail-bias")
ATTACKS = ("badword", "addsent", "synbkd", "stylebkd")
SETUPS = ("setup1", "setup2", "setup3")
BACKDOOR_SPLITS = ("asr", "cacc")  # the asr files' label is the attacker's target, the cacc files' the true one

COUNTERFACTUAL_SEEDS = (42, 2333, 10007)
SPURIOUS_SEEDS = (0, 42, 2333, 10007, 12306)
BACKDOOR_SEEDS = (42, 2333, 10007)


@dataclass(frozen=True)
class Scenario:
    name: str  # cassette file and the item ids' prefix
    part: str  # counterfactual | spurious | backdoor
    group: str  # the unit aggregate_score averages over seeds: main_verb_cf, PP/entail-bias, badword/setup1/asr
    folder: str  # the inputs' folder under ROOT; the recordings mirror it under ROOT/generations
    seeds: tuple[int, ...]
    task: str  # key of prompts.TASK_MESSAGES
    zero: bool = False  # spurious zero-shot: the demonstrations are dropped

    def input_file(self, seed: int) -> str:
        return f"{ROOT}/{self.folder}/{seed}.jsonl"

    def input_files(self) -> list[str]:
        return [self.input_file(seed) for seed in self.seeds]

    def recording_file(self, model: str, seed: int) -> str:
        if self.zero:  # one zero-shot run per heuristic, named without a seed
            return f"{ROOT}/generations/spurious/{self.group.split('/')[0]}_zero/{model}.jsonl"
        return f"{ROOT}/generations/{self.folder}/{model}_{seed}.jsonl"


def _scenarios() -> tuple[Scenario, ...]:
    out = []
    for task in COUNTERFACTUAL_TASKS:
        for variant in (task, f"{task}_cf"):
            out.append(Scenario(f"counterfactual-{variant}", "counterfactual", variant, f"counterfactual/{variant}",
                                COUNTERFACTUAL_SEEDS, "nli3" if task.startswith("snli") else task))
    for heuristic in HEURISTICS:
        for bias in BIASES:
            out.append(Scenario(f"spurious-{heuristic}-{bias}", "spurious", f"{heuristic}/{bias}",
                                f"spurious/{heuristic}/{bias}", SPURIOUS_SEEDS, "nli2"))
        # spurious_<h>_zero.yaml: the entail-bias file of seed 0, asked without demonstrations
        out.append(Scenario(f"spurious-{heuristic}-zero", "spurious", f"{heuristic}/zero",
                            f"spurious/{heuristic}/entail-bias", (0,), "nli2", zero=True))
    for attack in ATTACKS:
        for setup in SETUPS:
            for split in BACKDOOR_SPLITS:
                out.append(Scenario(f"backdoor-{attack}-{setup}-{split}", "backdoor", f"{attack}/{setup}/{split}",
                                    f"backdoor/experiment1/sst-2_{setup}_{attack}_{split}", BACKDOOR_SEEDS, "sa"))
    return tuple(out)


SCENARIOS = _scenarios()
