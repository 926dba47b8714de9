"""AdvGLUE items: one scenario per (data set, task), so ``--trust-limit`` samples every task.

Scenarios, in this order: ``adv-<task>`` (the AdvGLUE dev set, 738 items), ``benign-<task>`` (the GLUE
validation originals, fetched from a hub upstream: unavailable here) and ``plusplus-<base>`` (AdvGLUE++
against alpaca, vicuna, stable-vicuna; its files are absent from the pinned snapshot: unavailable).
The protocol (setting ``advglue_protocol``, settings.py) is fixed into each item's inputs and decoding
here, so messages() and run() follow it; ids do not depend on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ....data import DataStore, read_json
from ....items import Item
from ..common import ADVGLUE_SOURCE, unavailable_item
from .prompts import TASK_TO_KEYS, TASKS
from .settings import DECODING, DEFAULT_PROTOCOL, protocol

NAME = "advglue"

ADV_FILE = "dev.json"  # AI-secure/adversarial-glue@2e18301
BASES = ("alpaca", "vicuna", "stable-vicuna")  # src/dt/configs/advglue/<base>.yaml
PLUSPLUS_TASKS = ("sst2", "qqp", "mnli")  # the `task` list of every advglue config
GLUE_NAMES = {"sst2": "sst2", "qqp": "qqp", "mnli": "mnli_matched", "mnli-mm": "mnli_mismatched", "qnli": "qnli",
              "rte": "rte"}  # gpt_eval.tasks_to_glue


def glue_file(task: str) -> str:
    return f"hub:glue/{GLUE_NAMES[task]}/validation"


def plusplus_files(base: str) -> list[str]:
    """Where AdvGLUE++ lives upstream: the hub config HEAD reads, and the copy in the repository."""
    return ["hub:AI-Secure/DecodingTrust/adv-glue-plus-plus", f"data/adv-glue-plus-plus/data/{base}.json"]


def scenarios() -> list[str]:
    return ([f"adv-{task}" for task in TASKS] + [f"benign-{task}" for task in TASKS]
            + [f"plusplus-{base}" for base in BASES])


def load_items(data: DataStore, settings: Mapping[str, Any] | None = None) -> list[Item]:
    chosen = protocol(settings)
    sets = read_json(data, ADVGLUE_SOURCE, ADV_FILE)
    items = [item for task in TASKS for item in task_items(task, sets[task], chosen)]
    items += [unavailable_item(NAME, f"benign-{task}", [glue_file(task)]) for task in TASKS]
    items += [unavailable_item(NAME, f"plusplus-{base}", plusplus_files(base)) for base in BASES]
    return items


def task_items(task: str, examples: Sequence[Mapping[str, Any]], chosen: str = DEFAULT_PROTOCOL) -> list[Item]:
    """The adversarial items of one task, in file order (the position is upstream's result index)."""
    keys = [key for key in TASK_TO_KEYS[task] if key]
    # one mapping and one tags tuple for the call's items (read, never changed): a pickled
    # chunk's items then share them
    decoding, tags = dict(DECODING[chosen]), ("adv", task)
    return [Item(id=f"adv-{task}/{position}", benchmark=NAME, cassette=f"adv-{task}",
                 inputs={"task": task, "set": "adv", "protocol": chosen,
                         "fields": [[key, example[key]] for key in keys]},
                 decoding=decoding, expected=example["label"], tags=tags)
            for position, example in enumerate(examples)]
