"""DecodingTrust's recordings of machine ethics: there are none to import.

AI-secure/DecodingTrust@161ae83 ships no ``data/machine_ethics/generations`` for any model, so every
scenario is marked not recorded and its items skip on replay with that reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ....data import DataStore
from ...spec import Unrecorded
from .items import NAME
from .scenarios import SCENARIOS

REASON = "DecodingTrust ships no machine-ethics recordings (AI-secure/DecodingTrust@161ae83, data/machine_ethics/)"


def recordings(data: DataStore, names: Any) -> Iterable[Unrecorded]:
    for scenario in SCENARIOS:
        yield Unrecorded(NAME, scenario.name, REASON)
