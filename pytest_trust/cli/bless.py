"""``pytest-trust thresholds bless REPORT.json``: gates at the level of a recorded run, written into the
thresholds file with its other entries and comments kept (ruamel.yaml's round trip).

Which metrics (``blessable``): of every benchmark that ran (its ``<benchmark>.error_rate`` is in the
report), each summary-level metric (``benchmarks.is_summary_level``: ``rules.score``, ``rules.basic.harmless``;
not the per-scenario, per-cell or per-category families), of kind rate or mean, not partial, with a value, that a
thresholds file accepts (a key of a family the project names too: ``custom_rules.rule.<name>``), and whose
direction is known from its name (``direction``): error rates are gated
by ``init`` at 0, and rates with no better side (refusals, rejections) are not gated.

The bound: for a metric where higher is better, ``min`` at the lower end of its interval at ``--confidence``
(0.95 by default), or its value minus ``--margin``; where lower is better, ``max`` at the upper end (or value
plus the margin). Rounded outward to three decimals and kept within [0, 1], so the run blessed passes its own
gates. The report keeps only 95% intervals: at another level a rate's Wilson interval is recomputed from its
n; a mean's 95% interval is scaled by the ratio of normal quantiles (said in the output).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..benchmarks import BENCHMARKS, is_summary_level
from ..errors import ThresholdsError, UsageProblem
from ..results.gates import accepts
from ..results.metrics import LEVEL, Metric
from ..results.stats import z_of

HIGHER, LOWER, NEUTRAL = 1, -1, 0
HEADER = ("# Gates of pytest-trust (README, \"Gating CI\"): a metric key, then a bound, min and/or max.\n"
          "settings:\n"
          "  soft: true    # failing benchmark items alone do not fail the run; the gates do\n")


def direction(key: str) -> int:
    """HIGHER, LOWER or NEUTRAL: which side of a metric is better, as its benchmark declares by the key's last
    part (spec.Benchmark.lower_is_better, no_better_side); error rates are gated at 0 by init, not blessed."""
    benchmark = BENCHMARKS.get(key.split(".", 1)[0])
    last = key.rsplit(".", 1)[-1]
    if last == "error_rate" or (benchmark is not None and last in benchmark.no_better_side):
        return NEUTRAL
    return LOWER if benchmark is not None and last in benchmark.lower_is_better else HIGHER


@dataclass(frozen=True)
class Bound:
    key: str
    side: str  # "min" or "max"
    value: float
    note: str = ""


def blessable(report: Mapping[str, Any], valid: set[str]) -> dict[str, Metric]:
    """The report's metrics bless writes gates for (module docstring), by key, in the report's order."""
    metrics = report.get("metrics")
    if not isinstance(metrics, dict):
        return {}
    ran = {key[:-len(".error_rate")] for key in metrics if key.endswith(".error_rate")}
    chosen = {}
    for key, raw in metrics.items():
        if (key.split(".", 1)[0] not in ran or not is_summary_level(key) or not accepts(key, valid)
                or direction(key) == NEUTRAL or not isinstance(raw, dict)):
            continue
        try:
            metric = Metric(**{k: raw.get(k) for k in ("value", "low", "high", "n", "kind", "partial", "why")})
        except TypeError:
            continue
        if (metric.kind in ("rate", "mean") and not metric.partial and isinstance(metric.value, (int, float))
                and math.isfinite(metric.value)):
            chosen[key] = metric
    return chosen


def bounds(metrics: Mapping[str, Metric], confidence: float | None,
           margin: float | None) -> tuple[list[Bound], dict[str, str]]:
    """The bound of each metric (its interval's end at ``confidence``, or its value -/+ ``margin``), and the
    metrics left ungated with why: no interval to bless from, one item (with --margin), or a bound no run can
    fail (min 0, max 1)."""
    result, left = [], {}
    for key, metric in metrics.items():
        side = "min" if direction(key) == HIGHER else "max"
        note = ""
        if margin is not None:
            if metric.n < 2:
                left[key] = (f"n = {metric.n}: one item's pass or fail is no level to gate at (its item is a "
                             "test of its own)")
                continue
            edge = metric.value - margin if side == "min" else metric.value + margin
        else:
            level = LEVEL if confidence is None else confidence
            interval = metric.interval(level)
            if interval is None and metric.low is not None and metric.high is not None:
                scale = z_of(level) / z_of(LEVEL)  # a mean read back from a report: only its 95% interval is kept
                interval = (metric.value - (metric.value - metric.low) * scale,
                            metric.value + (metric.high - metric.value) * scale)
                note = f"95% interval scaled to {level:g}"
            if interval is None:
                left[key] = f"{metric.why or 'no interval'}; pass --margin M to gate it at its value -/+ M"
                continue
            edge = interval[0] if side == "min" else interval[1]
        edge = math.floor(edge * 1000 + 1e-9) / 1000 if side == "min" else math.ceil(edge * 1000 - 1e-9) / 1000
        value = round(min(1.0, max(0.0, edge)), 3)
        if value == (0.0 if side == "min" else 1.0):
            left[key] = f"its bound would be {side} {value:g}, which no run can fail"
            continue
        result.append(Bound(key, side, value, note))
    return result, left


def update(text: str, section: tuple[str, ...], new: list[Bound]) -> str:
    """The thresholds file's text with these bounds set under ``section`` (("default",) or ("models", M)):
    an existing gate's bound is replaced in place (its other fields kept), a new gate appended; every
    other entry, comment and the file's layout are kept."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    yaml = YAML()  # round trip
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    data = yaml.load(text or HEADER)
    if data is None:
        data = yaml.load(text + "\n" + HEADER if text.strip() else HEADER)
    if not isinstance(data, CommentedMap):
        raise ThresholdsError("must be a mapping with default:, models: and settings: sections")
    node = data
    for name in section:
        child = node.get(name)
        if child is None:
            if node is data and name not in data:
                _end_comments_stay(data)
            child = CommentedMap()
            node[name] = child
        if not isinstance(child, CommentedMap):
            raise ThresholdsError(f"{'.'.join(section[:section.index(name) + 1])}: must be a mapping")
        node = child
    trailing = _detach_trailing(node) if any(b.key not in node for b in new) else ""
    for bound in new:
        gate = node.get(bound.key)
        if isinstance(gate, CommentedMap):
            gate[bound.side] = bound.value
            other = "max" if bound.side == "min" else "min"
            if other in gate and (gate[other] < bound.value if bound.side == "min" else gate[other] > bound.value):
                del gate[other]  # the old opposite bound would now contradict the new one
        else:
            gate = CommentedMap([(bound.side, bound.value)])
            gate.fa.set_flow_style()
            node[bound.key] = gate
    if trailing:
        _last(node)[0].ca.items.setdefault(_last(node)[1], [None, None, None, None])[2] = CommentToken(
            "\n" + trailing, CommentMark(0), None)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _last(mapping: Any) -> tuple[Any, Any]:
    """The mapping and key of the last entry printed in ``mapping``'s block (down nested block mappings)."""
    from ruamel.yaml.comments import CommentedMap

    while True:
        last = list(mapping)[-1]
        value = mapping[last]
        if isinstance(value, CommentedMap) and value and not value.fa.flow_style():
            mapping = value
            continue
        return mapping, last


def _detach_trailing(node: Any) -> str:
    """The comment lines after the last entry of ``node`` (ruamel keeps them with that entry's end-of-line
    comment), taken off it, so entries appended go before them; "" if none."""
    if not node:
        return ""
    mapping, key = _last(node)
    slots = mapping.ca.items.get(key)
    token = slots[2] if slots and len(slots) > 2 else None
    if token is None or not isinstance(token.value, str):
        return ""
    lines = token.value.splitlines(keepends=True)
    if len(lines) < 2:
        return ""
    token.value = lines[0]
    return "".join(lines[1:])


def _end_comments_stay(root: Any) -> None:
    """Keep the comments that end the file before a section appended to it: ruamel holds them as the document's
    end, printed after everything; they become the trailing comment of the last entry, where they were."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    if not root.ca.end or not root:
        return
    text = "".join((" " * tok.column if tok.value.startswith("#") else "") + tok.value for tok in root.ca.end)
    mapping, last = _last(root)
    slots = mapping.ca.items.setdefault(last, [None, None, None, None])
    if slots[2] is not None:
        slots[2].value += text
    else:
        slots[2] = CommentToken("\n" + text, CommentMark(0), None)
    root.ca.end = []


@dataclass(frozen=True)
class Blessed:
    """What bless did: a line per gate (old -> new), the metrics left ungated and why, the section, and whether
    the file changed."""

    changes: list[str]
    left: dict[str, str]
    section: str
    written: bool


def bless(report_path: Path, thresholds_path: Path, model: str | None, confidence: float | None,
          margin: float | None, valid: set[str]) -> Blessed:
    """Write the gates. UsageProblem for a bad report, a bad option or a thresholds file that does not load
    (before or after)."""
    from ..report.file import read, write_atomically
    from ..results.gates import load_thresholds

    if confidence is not None and not 0 < confidence < 1:
        raise UsageProblem(f"thresholds bless: --confidence {confidence:g}: a level between 0 and 1 (say 0.95)")
    if margin is not None and not 0 <= margin <= 1:
        raise UsageProblem(f"thresholds bless: --margin {margin:g}: a fraction between 0 and 1 (say 0.02)")
    report = read(report_path, "thresholds bless:", with_items=False)
    model = model or (report.get("run") or {}).get("model")
    section = ("models", model) if model else ("default",)
    metrics = blessable(report, valid)
    if not metrics:
        raise UsageProblem(f"thresholds bless: {report_path}: no headline metric to gate (no benchmark ran, or "
                           "only partial scores)")
    new, left = bounds(metrics, confidence, margin)
    if not new:  # nothing to gate: say why, write nothing
        why = "; ".join(f"{key}: {reason}" for key, reason in list(left.items())[:3])
        raise UsageProblem(f"thresholds bless: {report_path}: no headline metric can be gated ({why})"
                           + ("" if margin is not None else "; record more items, or pass --margin M to gate at "
                                                            "each value -/+ M"))
    if thresholds_path.exists():
        load_thresholds(thresholds_path, model, valid)  # a file that does not load is not edited
        try:
            old = thresholds_path.read_text(encoding="utf-8")
        except OSError as err:
            raise UsageProblem(f"thresholds bless: {thresholds_path}: cannot be read ({err.strerror})") from None
    else:
        old = ""
    text = update(old, section, new)
    changes = _changes(old, section, new)
    if text == old:
        return Blessed(changes, left, ": ".join(section), False)
    try:
        thresholds_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(thresholds_path, text)
    except OSError as err:
        raise UsageProblem(f"thresholds bless: {thresholds_path}: cannot be written ({err.strerror})") from None
    try:
        load_thresholds(thresholds_path, model, valid)
    except ThresholdsError:
        if old:
            write_atomically(thresholds_path, old)
        else:
            thresholds_path.unlink()
        raise
    return Blessed(changes, left, ": ".join(section), True)


def _changes(old: str, section: tuple[str, ...], new: list[Bound]) -> list[str]:
    """A line per gate: its bound before and after."""
    import yaml

    node: Any = yaml.safe_load(old) if old.strip() else {}
    for name in section:
        node = node.get(name) if isinstance(node, dict) else None
    node = node if isinstance(node, dict) else {}
    lines = []
    for bound in new:
        before = (node.get(bound.key) or {}).get(bound.side) if isinstance(node.get(bound.key), dict) else None
        after = f"{bound.side} {bound.value:g}" + (f" ({bound.note})" if bound.note else "")
        if before is None:
            lines.append(f"{bound.key}: {after} (new)")
        elif float(before) == bound.value:
            lines.append(f"{bound.key}: {after} (unchanged)")
        else:
            lines.append(f"{bound.key}: {bound.side} {float(before):g} -> {bound.value:g}"
                         + (f" ({bound.note})" if bound.note else ""))
    return lines
