"""DecodingTrust's recorded advglue runs: none was published, for any model or data set.

The paper-era AdvGLUE++ script (``adv-glue-plus-plus/scripts/eval_gpt4.sh`` at c9b63ad) writes
``data/adv-glue-plus-plus/data/advglue-plus-plus-adv-<model>-system-user-no-demo-short-alt-label-<base>.json``,
v1.0's configs ``data/adv-glue-plus-plus/results/<model>/<base>.json``; neither is in the repository.
Runs on the AdvGLUE dev set and on GLUE (benign) were never given a file name upstream.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ....data import DataStore
from ...spec import Unrecorded
from .items import BASES, NAME, scenarios


def looked_for(scenario: str, model: str) -> tuple[str, ...]:
    """The recording files DecodingTrust's naming gives a scenario of ``model`` (none for most)."""
    base = scenario.removeprefix("plusplus-")
    if base not in BASES:
        return ()
    paper_era = f"advglue-plus-plus-adv-{model}-system-user-no-demo-short-alt-label-{base}.json"
    return (f"data/adv-glue-plus-plus/data/{paper_era}", f"data/adv-glue-plus-plus/results/{model}/{base}.json")


def recordings(data: DataStore, names: Any) -> Iterator[Unrecorded]:
    for scenario in scenarios():
        files = looked_for(scenario, names.full)
        reason = "DecodingTrust published no advglue recordings" + ("" if files else " (no file naming for this set)")
        yield Unrecorded(NAME, scenario, reason, files=files)
