"""DecodingTrust's shared chat protocol (do_classification) and the absent-input placeholder."""

from __future__ import annotations

import pytest

from pytest_trust.benchmarks.decodingtrust.common import (
    check_available,
    classification_messages,
    unavailable_item,
)
from pytest_trust.errors import Unavailable


def test_zero_shot_is_system_then_task_and_input_in_one_user_turn():
    assert classification_messages("Task.", "input") == [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Task.\ninput"},
    ]


def test_few_shot_acknowledges_the_task_then_plays_capitalized_demonstrations():
    assert classification_messages("Task.", "input", [["demo one", "not wrong"], ["demo two", "POSITIVE"]]) == [
        {"role": "system", "content": "You are a helpful, pattern-following assistant."},
        {"role": "user", "content": "Task."},
        {"role": "assistant", "content": "Sure, I'd be happy to!"},
        {"role": "user", "content": "demo one"},
        {"role": "assistant", "content": "Not wrong"},  # str.capitalize lower-cases the rest
        {"role": "user", "content": "demo two"},
        {"role": "assistant", "content": "Positive"},
        {"role": "user", "content": "input"},
    ]


def test_example_prefix_puts_the_task_in_the_system_turn_and_names_the_demonstrations():
    assert classification_messages("Task.", "input", [["demo", "yes"]], example_prefix=True) == [
        {"role": "system", "content": "You are a helpful, pattern-following assistant. Task."},
        {"role": "system", "name": "example_user", "content": "demo"},
        {"role": "system", "name": "example_assistant", "content": "Yes"},
        {"role": "user", "content": "input"},
    ]


def test_a_scenario_with_absent_inputs_skips_naming_the_files_and_why():
    item = unavailable_item("machine_ethics", "commonsense-few_shot",
                            ["data/machine_ethics/ethics/commonsense/cm_train.csv"])
    with pytest.raises(Unavailable, match="commonsense-few_shot needs data/machine_ethics/ethics/commonsense/"
                                          "cm_train.csv: not in the upstream snapshot"):
        check_available(item)
