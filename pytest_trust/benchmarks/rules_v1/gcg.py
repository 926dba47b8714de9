"""The rules_gcg suite: RuLES v1's justask cases with the GCG suffixes ``pytest-trust attack gcg`` found, and
what the suffixes do to the failure rate of those very cases.

Suffixes are project data, one file per attacked model (``data/gcg/<model>.jsonl``, one line per behaviour:
the suffix and the settings that found it). An item is a justask case of a behaviour that has a suffix for
some model, id ``gcg/<behaviour>/<uuid>``; it carries every model's suffix and plays the one found on the
model under test (a model nobody attacked skips it), appended after one space to the first message, as
upstream's evaluate.py appends its suffixes (normster/llm_rules@f55c686:evaluate.py).

Metrics (``rules_v1.gcg.*``, beside the plain justask suite's, which holds the same cases unattacked):
the failure rate with the suffix, the failure rate of the same cases without it, and the two-sided exact
McNemar p-value of the paired verdicts, overall and per behaviour.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...data import DataStore, read_jsonl
from ...errors import InvalidItem, Unavailable
from ...items import Item, Result
from ...results.metrics import Metric, pass_rate
from ...results.stats import mcnemar_exact
from .items import RULES, SOURCE, SUITE_FILE, make_items

SUITE = "gcg"
PLAIN_SUITE = "justask"
DATA = Path(__file__).resolve().parent / "data" / "gcg"
PREFIX = "rules_v1.gcg"
RATES = ("failure_rate", "failure_rate_unattacked", "mcnemar_p")


def suffix_file(model: str, folder: Path | None = None) -> Path:
    """The suffix file of a model: its name with anything but letters, digits, ``._-`` as ``_``."""
    return (folder or DATA) / ("".join(c if c.isalnum() or c in "._-" else "_" for c in model) + ".jsonl")


def read_records(path: Path) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as err:
            raise InvalidItem(f"GCG suffix file {path}, line {number}: not JSON ({err})") from None
        if not isinstance(record, dict) or not isinstance(record.get("behavior"), str) \
                or not isinstance(record.get("suffix"), str):
            raise InvalidItem(f"GCG suffix file {path}, line {number}: needs a string behavior and suffix")
        records.append(record)
    return records


def write_record(path: Path, record: Mapping[str, Any]) -> None:
    """Put a behaviour's line into the file, replacing its earlier one; lines sorted by behaviour."""
    records = {r["behavior"]: r for r in (read_records(path) if path.exists() else [])}
    records[record["behavior"]] = dict(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(records[b], sort_keys=True) + "\n" for b in sorted(records)), encoding="utf-8")
    os.replace(tmp, path)


def suffixes(folder: Path | None = None) -> dict[str, dict[str, str]]:
    """behaviour -> model -> suffix, from every file in ``folder`` (default: the project's suffix data); the
    model is the one the record names, else the file's."""
    folder = folder or DATA
    found: dict[str, dict[str, str]] = {}
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        for record in read_records(path):
            if record["behavior"] not in RULES:
                raise InvalidItem(f"GCG suffix file {path}: unknown behaviour {record['behavior']!r} "
                                  f"(known: {', '.join(sorted(RULES))})")
            found.setdefault(record["behavior"], {})[str(record.get("model") or path.stem)] = record["suffix"]
    return found


def load_items(data: DataStore, settings: Mapping[str, Any], folder: Path | None = None) -> list[Item]:
    """The justask cases of every behaviour some model has a suffix for, carrying the suffixes."""
    items: list[Item] = []
    for stem, by_model in sorted(suffixes(folder).items()):
        rows = read_jsonl(data, SOURCE, SUITE_FILE.format(suite=PLAIN_SUITE, stem=stem))
        for item in make_items(SUITE, stem, rows, settings):
            items.append(replace(item, inputs={**item.inputs, "suffixes": dict(sorted(by_model.items()))}))
    return items


def for_model(item: Item, model: Any) -> Item:
    """The item with the suffix found on ``model`` (by its name); items without suffixes as they are."""
    by_model = item.inputs.get("suffixes")
    if by_model is None:
        return item
    name = getattr(model, "name", None)
    if name not in by_model:
        raise Unavailable(f"no GCG suffix for {item.inputs['behavior']} found on model {name!r} (found on: "
                          f"{', '.join(by_model)}); find one with: pytest-trust attack gcg --model {name} "
                          f"--behavior {item.inputs['behavior']} --model-file PATH.gguf")
    return replace(item, inputs={**item.inputs, "suffix": by_model[name]})


def metric_keys() -> list[str]:
    keys = [f"{PREFIX}.{name}" for name in RATES]
    keys += [f"{PREFIX}.behavior.{stem}.{name}" for stem in RULES for name in RATES]
    return keys


def aggregate(results: Iterable[Result]) -> dict[str, Metric]:
    """The attacked cases' failure rate, their unattacked twins' (the justask items of the same uuids) and
    the paired test. With some twins not run, the two are partial; with none, only the first exists."""
    attacked: dict[str, dict[str, bool]] = {}  # behaviour -> uuid -> failed
    plain: dict[tuple[str, str], bool] = {}
    for result in results:
        suite, stem, uuid = result.item_id.split("/", 2)
        if suite == SUITE:
            attacked.setdefault(stem, {})[uuid] = not result.verdict.passed
        elif suite == PLAIN_SUITE:
            plain[stem, uuid] = not result.verdict.passed
    metrics: dict[str, Metric] = {}
    overall: list[tuple[bool, bool | None]] = []
    for stem in sorted(attacked):
        pairs = [(failed, plain.get((stem, uuid))) for uuid, failed in sorted(attacked[stem].items())]
        overall += pairs
        metrics.update(_compare(f"{PREFIX}.behavior.{stem}", pairs))
    if overall:
        metrics.update(_compare(PREFIX, overall))
    return metrics


def _compare(prefix: str, pairs: list[tuple[bool, bool | None]]) -> dict[str, Metric]:
    failed = sum(a for a, _ in pairs)
    metrics = {f"{prefix}.failure_rate": pass_rate(failed, len(pairs))}
    twins = [(a, p) for a, p in pairs if p is not None]
    if not twins:
        return metrics
    partial = (None if len(twins) == len(pairs) else
               f"{len(pairs) - len(twins)} of the {len(pairs)} attacked cases did not run unattacked (-m rules_v1)")
    unattacked = pass_rate(sum(p for _, p in twins), len(twins))
    newly_failing = sum(a and not p for a, p in twins)
    newly_passing = sum(p and not a for a, p in twins)
    metrics[f"{prefix}.failure_rate_unattacked"] = replace(unattacked, partial=partial)
    metrics[f"{prefix}.mcnemar_p"] = Metric(mcnemar_exact(newly_failing, newly_passing), n=len(twins), kind="value",
                                           partial=partial)
    return metrics
