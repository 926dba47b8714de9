"""The thresholds file and gate evaluation (DESIGN section 7).

    settings: {soft: false}
    default:                       # gates for every model
      rules.score: {min: 0.5}
    models:                        # per-model overrides, merged over default
      gpt-4-0314:
        rules.score: {min: 0.7}
"""

from __future__ import annotations

import difflib
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ThresholdsError
from .metrics import Metric

SETTINGS = {"soft": bool}
BOUNDS = ("min", "max")


@dataclass(frozen=True)
class Gate:
    key: str
    min: float | None = None
    max: float | None = None

    @property
    def bound(self) -> str:
        parts = [f">= {self.min:g}" if self.min is not None else "", f"<= {self.max:g}" if self.max is not None else ""]
        return " and ".join(p for p in parts if p)

    def check(self, value: float) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)


@dataclass(frozen=True)
class GateResult:
    gate: Gate
    metric: Metric | None
    status: str  # "PASS", "FAIL" or "NOT RUN"


@dataclass(frozen=True)
class Thresholds:
    path: Path | None
    gates: tuple[Gate, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)


def load_thresholds(path: Path | None, model: str | None, valid_keys: Iterable[str]) -> Thresholds:
    if path is None:
        return Thresholds(None)
    valid = set(valid_keys)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ThresholdsError(f"thresholds file {path}: cannot be read ({err.strerror})") from None
    except UnicodeDecodeError:
        raise ThresholdsError(f"thresholds file {path}: not UTF-8 text") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        line = f" line {where.line + 1}" if where else ""
        raise ThresholdsError(f"thresholds file {path}{line}: not valid YAML ({getattr(err, 'problem', err)})") from None
    except (ValueError, TypeError, LookupError, AttributeError, RecursionError) as err:
        # PyYAML's constructors raise these for tagged scalars they cannot build (!!int abc, 2001-13-01)
        raise ThresholdsError(f"thresholds file {path}: a value PyYAML cannot read ({type(err).__name__}: "
                              f"{str(err)[:120]}); write bounds as plain numbers") from None
    lines = _key_lines(node)
    problem = _Problems(path, lines, valid)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        problem.fail((), "must be a mapping with settings, default and models sections")
    for section in data:
        if section not in ("settings", "default", "models"):
            problem.fail((str(section),), f"unknown section {section!r}; expected settings, default or models")
    settings = _settings(data.get("settings") or {}, problem)
    gates = _gates(data.get("default") or {}, ("default",), problem)
    models = data.get("models") or {}
    if not isinstance(models, dict):
        problem.fail(("models",), "must map model names to gates")
    if model is not None and model in models:
        gates.update(_gates(models[model] or {}, ("models", model), problem))
    for name, model_gates in models.items():  # validate every model's block, not only the one in use
        _gates(model_gates or {}, ("models", str(name)), problem)
    return Thresholds(path, tuple(gates.values()), settings)


def evaluate(gates: Iterable[Gate], metrics: Mapping[str, Metric]) -> list[GateResult]:
    results = []
    for gate in gates:
        metric = metrics.get(gate.key)
        if metric is None:
            results.append(GateResult(gate, None, "NOT RUN"))
        elif metric.partial:  # computed from part of what the score needs: not the published score
            results.append(GateResult(gate, metric, "NOT RUN"))
        else:
            results.append(GateResult(gate, metric, "PASS" if gate.check(metric.value) else "FAIL"))
    return results


MAX_LISTED = 60  # valid keys shown for an unknown one


class _Problems:
    def __init__(self, path: Path, lines: Mapping[tuple[str, ...], int], valid: set[str]) -> None:
        self.path, self.lines, self.valid = path, lines, valid

    def fail(self, where: tuple[str, ...], message: str, list_keys: bool = False) -> None:
        line = self.lines.get(where)
        at = f" line {line}" if line else ""
        text = f"thresholds file {self.path}{at}: {'.'.join(where) + ': ' if where else ''}{message}"
        if list_keys:
            text += "\nvalid metric keys:\n  " + "\n  ".join(self.keys_like(where[-1]))
        raise ThresholdsError(text)

    def keys_like(self, key: str) -> list[str]:
        """The valid keys worth showing for a bad one: its benchmark's, without the long per-cell and
        per-run families (thousands of keys), and the closest matches first."""
        prefix = key.split(".", 1)[0] + "."
        family = sorted(k for k in self.valid if k.startswith(prefix)) or sorted(self.valid)
        close = difflib.get_close_matches(key, family, n=5, cutoff=0.6)
        if len(family) > MAX_LISTED:
            shallow = [k for k in family if k.count(".") <= 2]
            family = shallow[:MAX_LISTED] + [f"... {len(family) - len(shallow[:MAX_LISTED])} more under {prefix}*"]
        return close + [k for k in family if k not in close]


def _settings(raw: Any, problem: _Problems) -> dict[str, Any]:
    if not isinstance(raw, dict):
        problem.fail(("settings",), "must be a mapping")
    for name, value in raw.items():
        if name not in SETTINGS:
            problem.fail(("settings", str(name)), f"unknown setting; expected one of {', '.join(SETTINGS)}")
        if not isinstance(value, SETTINGS[name]):
            problem.fail(("settings", str(name)), f"must be {SETTINGS[name].__name__}, not {value!r}")
    return dict(raw)


def _gates(raw: Any, where: tuple[str, ...], problem: _Problems) -> dict[str, Gate]:
    if not isinstance(raw, dict):
        problem.fail(where, "must map metric keys to bounds like {min: 0.8}")
    gates = {}
    for key, bound in raw.items():
        at = (*where, str(key))
        if key not in problem.valid:
            problem.fail(at, f"unknown metric key {key!r}", list_keys=True)
        if not isinstance(bound, dict) or not bound or set(bound) - set(BOUNDS):
            problem.fail(at, f"a bound is {{min: X}}, {{max: X}} or both, not {bound!r}")
        values = {}
        for name in BOUNDS:
            value = bound.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or abs(value) > sys.float_info.max or not math.isfinite(value)):
                problem.fail(at, f"{name} must be a number, not {value!r}")
            values[name] = None if value is None else float(value)
        if values["min"] is not None and values["max"] is not None and values["min"] > values["max"]:
            problem.fail(at, f"min {values['min']:g} is above max {values['max']:g}")
        gates[key] = Gate(key, values["min"], values["max"])
    return gates


def _key_lines(node: Any, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], int]:
    """1-based line of every mapping key, by its path, for error messages."""
    lines: dict[tuple[str, ...], int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            path = (*prefix, str(key_node.value))
            lines[path] = key_node.start_mark.line + 1
            lines.update(_key_lines(value_node, path))
    return lines
