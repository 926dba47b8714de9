"""The thresholds file and gate evaluation (README, "Gating CI").

    settings: {soft: false}
    default:                       # gates for every model
      rules.score: {min: 0.5}
    models:                        # per-model overrides, merged over default
      gpt-4-0314:
        rules.score: {min: 0.7}

A gate is PASS or FAIL on its metric. A gate naming a confidence level, ``{min: 0.4, confidence: 0.95}``,
compares the metric's interval at that level with the bound instead (Metric.interval): PASS when the whole
interval is on the good side, FAIL when the whole of it is on the bad side, INCONCLUSIVE when it straddles the
bound or when the metric has too few units for an interval that holds (Metric.why, "n too small"); ``settings: {inconclusive: block}`` (the default) makes an inconclusive gate fail the run,
``inconclusive: pass`` lets it through (reported, not blocking). NOT COMPUTED when its benchmark ran but the metric could not be
computed from what ran (missing, undefined, or partial: a score that lacks part of what it needs), which
fails the run unless partial runs are allowed; NOT SELECTED when no item of its benchmark was scored.

Keys whose last part the project names (``custom_rules.rule.<name>``: a benchmark's ``spec.NamedKeys``) are valid
under any name, as ``<prefix>.*`` in the valid keys; a gate on a name the run's project does not define is NOT
COMPUTED at the end of the run, blocking whatever --trust-partial says, with the names that exist.
"""

from __future__ import annotations

import difflib
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ..benchmarks import NAMED, SUITES
from ..benchmarks.spec import Names
from ..errors import ThresholdsError
from .metrics import Metric

SETTINGS = {"soft": bool, "inconclusive": str, "alpha": float}  # alpha: `pytest-trust check`'s, across benchmarks
INCONCLUSIVE_CHOICES = ("block", "pass")  # settings.inconclusive: does an INCONCLUSIVE gate fail the run
BOUNDS = ("min", "max")
CONFIDENCE = "confidence"  # a gate's optional confidence level, 0 < c < 1
ERROR_RATE = ".error_rate"  # <benchmark>.error_rate exists whenever any item of the benchmark ran
# <benchmark>.regression: {alpha: A}: no significant regression against --trust-baseline (pytest_trust/results/baseline.py)
REGRESSION = ".regression"


@dataclass(frozen=True)
class Gate:
    key: str
    min: float | None = None
    max: float | None = None
    alpha: float | None = None  # a regression gate's significance level
    confidence: float | None = None  # compare the metric's interval at this level with the bound
    inconclusive_blocks: bool = True  # settings.inconclusive: block (the default) or pass

    @property
    def bound(self) -> str:
        if self.alpha is not None:
            return f"alpha {self.alpha:g}"
        parts = [f">= {self.min:g}" if self.min is not None else "", f"<= {self.max:g}" if self.max is not None else ""]
        at = f" at {self.confidence * 100:g}%" if self.confidence is not None else ""
        return " and ".join(p for p in parts if p) + at

    def check(self, value: float) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)


PASS, FAIL, NOT_COMPUTED, NOT_SELECTED = "PASS", "FAIL", "NOT COMPUTED", "NOT SELECTED"
INCONCLUSIVE = "INCONCLUSIVE"


@dataclass(frozen=True)
class GateResult:
    gate: Gate
    metric: Metric | None
    status: str  # PASS, FAIL, INCONCLUSIVE, NOT COMPUTED or NOT SELECTED
    reason: str = ""  # why a gate is not PASS or FAIL
    blocks: bool = False  # this gate fails the run
    interval: tuple[float, float] | None = None  # a confidence gate's interval at its level

    def to_dict(self) -> dict[str, Any]:
        """The gate's entry in the JSON report (docs/report-schema.md)."""
        gate = self.gate
        entry: dict[str, Any] = {"key": gate.key, "min": gate.min, "max": gate.max,
                                 "value": self.metric.value if self.metric else None, "status": self.status,
                                 "reason": self.reason}
        if gate.alpha is not None:
            entry["alpha"] = gate.alpha
        if gate.confidence is not None:
            entry["confidence"] = gate.confidence
            entry["interval"] = list(self.interval) if self.interval else None
        entry["blocks"] = self.blocks
        return entry

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any], metrics: Mapping[str, Metric]) -> GateResult:
        """A gate's result read back from a JSON report whose metrics are ``metrics``; a regression gate's value
        is its paired test's p-value, not a metric of the run."""
        gate = Gate(entry["key"], entry.get("min"), entry.get("max"), entry.get("alpha"), entry.get("confidence"))
        if gate.alpha is not None:
            metric = Metric(entry["value"], kind="value") if entry.get("value") is not None else None
        else:
            metric = metrics.get(gate.key) if entry.get("value") is not None else None
        interval = entry.get("interval")
        return cls(gate, metric, entry["status"], entry.get("reason") or "", bool(entry.get("blocks")),
                   tuple(interval) if interval else None)


@dataclass(frozen=True)
class Thresholds:
    path: Path | None
    gates: tuple[Gate, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)


def load_thresholds(path: Path | None, model: str | None, valid_keys: Iterable[str]) -> Thresholds:
    if path is None:
        return Thresholds(None)
    valid = set(valid_keys)
    node, data = _read_yaml(path)
    duplicates: list[tuple[tuple[str, ...], int, int]] = []
    lines = _key_lines(node, duplicates=duplicates)
    problem = _Problems(path, lines, valid)
    for where, first, again in duplicates[:1]:
        raise ThresholdsError(f"thresholds file {path} line {again}: {'.'.join(where)}: duplicate key (first at "
                              f"line {first}); YAML keeps only the last one and would silently drop the other: "
                              "keep one")
    data = _sections(data, problem)
    settings = _settings(data.get("settings") or {}, problem)
    gates = _gates(data.get("default") or {}, ("default",), problem)
    gates.update(_model_gates(data.get("models") or {}, model, problem))
    blocks = settings.get("inconclusive", "block") == "block"
    return Thresholds(path, tuple(replace(g, inconclusive_blocks=blocks) for g in gates.values()), settings)


def _read_yaml(path: Path) -> tuple[Any, Any]:
    """The file's node tree (its keys' lines) and its data; ThresholdsError, naming the line where it can, for a
    file that cannot be read or is not YAML."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ThresholdsError(f"thresholds file {path}: cannot be read ({err.strerror})") from None
    except UnicodeDecodeError as err:
        line = path.read_bytes()[:err.start].count(b"\n") + 1
        raise ThresholdsError(f"thresholds file {path} line {line}: not UTF-8 text "
                              f"(byte 0x{err.object[err.start]:02x}); save it as UTF-8") from None
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader), yaml.safe_load(text)
    except yaml.YAMLError as err:
        where = getattr(err, "problem_mark", None)
        line = f" line {where.line + 1}" if where else ""
        raise ThresholdsError(f"thresholds file {path}{line}: not valid YAML ({getattr(err, 'problem', err)})") from None
    except (ValueError, TypeError, LookupError, AttributeError, RecursionError) as err:
        # PyYAML's constructors raise these for tagged scalars they cannot build (!!int abc, 2001-13-01)
        raise ThresholdsError(f"thresholds file {path}: a value PyYAML cannot read ({type(err).__name__}: "
                              f"{str(err)[:120]}); write bounds as plain numbers") from None


def _sections(data: Any, problem: _Problems) -> dict[Any, Any]:
    """The file's sections (none for an empty file): a mapping of settings, default and models, nothing else."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        problem.fail((), "must be a mapping with settings, default and models sections")
    for section in data:
        if section not in ("settings", "default", "models"):
            problem.fail((str(section),), f"unknown section {section!r}; expected settings, default or models")
    return data


def _model_gates(models: Any, model: str | None, problem: _Problems) -> dict[str, Gate]:
    """The gates of ``model``'s block under models, merged over default's; every model's block is checked, not
    only the one in use."""
    if not isinstance(models, dict):
        problem.fail(("models",), "must map model names to gates")
    chosen = _gates(models[model] or {}, ("models", model), problem) if model is not None and model in models else {}
    for name, model_gates in models.items():
        _gates(model_gates or {}, ("models", str(name)), problem)
    return chosen


def family(key: str) -> str:
    """The part of a benchmark a metric key belongs to: its benchmark, or the family of a suite that feeds it
    alone (a run of that suite alone has not selected the rest of its benchmark: -m rules_gcg)."""
    return next((s.family for s in SUITES.values() if s.family and key.startswith(s.family + ".")),
                key.split(".", 1)[0])


def accepts(key: str, valid: Iterable[str]) -> bool:
    """Whether a thresholds file may gate ``key``: a valid key, or a name in a family of keys the project names
    (``custom_rules.rule.no-discount-code`` under ``custom_rules.rule.*``)."""
    if key.endswith(NAMED):  # the family itself is no metric
        return False
    prefix, _, name = key.rpartition(".")
    return key in valid or bool(prefix and name and prefix + NAMED in valid)


def evaluate(gates: Iterable[Gate], metrics: Mapping[str, Metric], allow_partial: bool = False,
             baseline: Mapping[str, Any] | None = None, names: Mapping[str, Names] | None = None) -> list[GateResult]:
    """Every gate's status against this run's metrics. A family counts as selected when one of its metrics
    other than the error rate was computed, i.e. when one of its items was scored. ``names``: by prefix, the names
    the project defines of each family of keys it names (``benchmarks.defined_names``)."""
    selected = {family(key) for key in metrics if not key.endswith(ERROR_RATE)}
    allowed = " (allowed by --trust-partial)" if allow_partial else "; --trust-partial allows it for local work"
    results = []
    for gate in gates:
        if gate.alpha is not None:
            results.append(_regression(gate, baseline, selected))
            continue
        metric = metrics.get(gate.key)
        undefined = _undefined(gate.key, names or {}) if metric is None else None
        if undefined is not None:  # a mistake in the thresholds file, whatever ran
            results.append(GateResult(gate, None, NOT_COMPUTED, undefined, blocks=True))
        elif metric is None and (gate.key.endswith(ERROR_RATE) or family(gate.key) not in selected):
            results.append(GateResult(gate, None, NOT_SELECTED, f"no item of {family(gate.key)} was scored"))
        elif metric is None:
            why = f"{family(gate.key)} ran, but not the items it needs (a partial selection, or skips){allowed}"
            results.append(GateResult(gate, None, NOT_COMPUTED, why, blocks=not allow_partial))
        elif metric.partial:  # computed from part of what the score needs: not the score it names
            results.append(GateResult(gate, metric, NOT_COMPUTED, f"partial ({metric.partial})" + allowed,
                                      blocks=not allow_partial))
        elif math.isnan(metric.value):
            results.append(GateResult(gate, metric, NOT_COMPUTED, f"undefined (NaN) on the {metric.n} items scored"
                                      + allowed, blocks=not allow_partial))
        elif gate.confidence is not None:
            results.append(_with_confidence(gate, metric))
        else:
            passed = gate.check(metric.value)
            results.append(GateResult(gate, metric, PASS if passed else FAIL, blocks=not passed))
    return results


def _undefined(key: str, names: Mapping[str, Names]) -> str | None:
    """Why a gate's key names what the project does not define (no rule of that name in its file), or None."""
    prefix, _, name = key.rpartition(".")
    known = names.get(prefix)
    if known is None or name in known.names:
        return None
    defined = f"its {known.what}s: {', '.join(known.names)}" if known.names else f"it defines no {known.what}"
    close = difflib.get_close_matches(name, known.names, n=1)
    fix = (f"; did you mean {prefix}.{close[0]}? Correct the key, or remove the gate" if close
           else ": correct the key, or remove the gate")
    return f"no {known.what} {name!r} in {known.where} ({defined}){fix}"


def _with_confidence(gate: Gate, metric: Metric) -> GateResult:
    """PASS when the metric's interval at the gate's level lies wholly on the good side of every bound, FAIL
    when it lies wholly on the bad side of one, INCONCLUSIVE otherwise (it straddles a bound)."""
    level = gate.confidence or 0.0
    interval = metric.interval(level)
    rule = "settings inconclusive: block" if gate.inconclusive_blocks else "not blocking: settings inconclusive: pass"
    if interval is None and metric.why:  # sampled, but too few units (or too alike) for an interval that holds
        return GateResult(gate, metric, INCONCLUSIVE, f"no interval ({metric.why}); {rule}",
                          blocks=gate.inconclusive_blocks)
    if interval is None:
        why = ("the metric has no interval (a constant)" if metric.low is None else
               "a bootstrap metric read back from a saved report (report merge) keeps its 95% interval only, "
               "not its draws; write confidence: 0.95")
        return GateResult(gate, metric, NOT_COMPUTED, f"no {level * 100:g}% interval: {why}", blocks=True)
    low, high = interval
    shown = f"{level * 100:g}% interval [{low:.4g}, {high:.4g}]"
    if gate.min is not None and high < gate.min:
        return GateResult(gate, metric, FAIL, f"{shown} wholly below {gate.min:g}", blocks=True, interval=interval)
    if gate.max is not None and low > gate.max:
        return GateResult(gate, metric, FAIL, f"{shown} wholly above {gate.max:g}", blocks=True, interval=interval)
    if gate.check(low) and gate.check(high):
        return GateResult(gate, metric, PASS, interval=interval)
    return GateResult(gate, metric, INCONCLUSIVE, f"{shown} straddles {gate.bound}; {rule}",
                      blocks=gate.inconclusive_blocks, interval=interval)


def _regression(gate: Gate, baseline: Mapping[str, Any] | None, selected: set[str]) -> GateResult:
    """A regression gate: FAIL when the benchmark's paired test against the baseline finds a significant change
    for the worse (exact McNemar p < alpha, more items newly failing than newly passing)."""
    from .baseline import regressed

    name = gate.key[:-len(REGRESSION)]
    if baseline is None:
        return GateResult(gate, None, NOT_SELECTED, "no baseline to compare with (--trust-baseline REPORT.json)")
    if name not in {selected_family.split(".", 1)[0] for selected_family in selected}:
        return GateResult(gate, None, NOT_SELECTED, f"no item of {name} was scored")
    test = baseline["tests"].get(name)
    if not test or not test["paired"]:
        return GateResult(gate, None, NOT_COMPUTED, f"no item of {name} was scored in both this run and the "
                          f"baseline {baseline['path']}", blocks=True)
    metric = Metric(test["p"], None, None, test["paired"], kind="value")
    if test.get("incomparable"):  # judged by another scorer: a change of verdicts says nothing about the model
        return GateResult(gate, metric, INCONCLUSIVE, test["incomparable"], blocks=gate.inconclusive_blocks)
    failed = regressed(test, gate.alpha or 0.0)
    why = (f"{test['newly_failing']} newly failing, {test['newly_passing']} newly passing of {test['paired']} items "
           f"paired with the baseline; exact McNemar p = {test['p']:.3g} < {gate.alpha:g} "
           "(uncorrected)") if failed else ""
    return GateResult(gate, metric, FAIL if failed else PASS, why, blocks=failed)


def _regression_gate(key: str, bound: Any, at: tuple[str, ...], problem: _Problems) -> Gate:
    alpha = bound.get("alpha") if isinstance(bound, dict) and set(bound) == {"alpha"} else None
    if alpha is None or isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        problem.fail(at, f"a regression gate is {{alpha: A}} with 0 < A < 1 (say {{alpha: 0.05}}), not {bound!r}")
    return Gate(key, alpha=float(alpha))


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

    def closest(self, key: str) -> str | None:
        """The valid key a misspelt one most likely meant (rules.scroe: rules.score), if any is close."""
        prefix = key.split(".", 1)[0] + "."
        name = key.rpartition(".")[2]  # a name in a family the project names keeps its name (.rules.x: .rule.x)
        valid = [*self.valid, *(k[:-len(NAMED)] + "." + name for k in self.valid
                                if k.endswith(NAMED) and name and k.count(".") == key.count("."))]
        family = [k for k in valid if k.startswith(prefix) and not k.endswith(NAMED)] or list(valid)
        close = difflib.get_close_matches(key, family, n=1, cutoff=0.6)
        return close[0] if close else None

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
        if name == "alpha" and not 0 < value < 1:
            problem.fail(("settings", str(name)), f"must be a significance level between 0 and 1 (say 0.05), not {value!r}")
        if name == "inconclusive" and value not in INCONCLUSIVE_CHOICES:
            problem.fail(("settings", str(name)), f"must be block (an INCONCLUSIVE gate fails the run) or pass "
                                                  f"(it is reported and does not), not {value!r}")
    return dict(raw)


def _gates(raw: Any, where: tuple[str, ...], problem: _Problems) -> dict[str, Gate]:
    if not isinstance(raw, dict):
        problem.fail(where, "must map metric keys to bounds like {min: 0.8}")
    gates = {}
    for key, bound in raw.items():
        at = (*where, str(key))
        if (key.endswith(REGRESSION) and not accepts(key, problem.valid)
                and any(k.startswith(key[:-len(REGRESSION)] + ".") for k in problem.valid)):
            gates[key] = _regression_gate(key, bound, at, problem)
            continue
        family_prefix = str(key).removesuffix(NAMED)
        if family_prefix + NAMED in problem.valid:  # custom_rules.rule.* or custom_rules.rule: not one metric
            problem.fail(at, f"{family_prefix} names a family of keys, not one metric: gate each by its name "
                             f"({family_prefix}.<name>)")
        if not accepts(str(key), problem.valid):
            close = problem.closest(str(key))
            problem.fail(at, f"unknown metric key {key!r}" + (f"; did you mean {close!r}?" if close else ""),
                         list_keys=True)
        gates[key] = _bound_gate(key, bound, at, problem)
    return gates


def _bound_gate(key: str, bound: Any, at: tuple[str, ...], problem: _Problems) -> Gate:
    """A gate on a metric's value, ``{min: X, max: Y}`` (either or both, optionally with a confidence level),
    once its parts are checked."""
    if not isinstance(bound, dict) or not set(bound) & set(BOUNDS) or set(bound) - {*BOUNDS, CONFIDENCE}:
        problem.fail(at, f"a bound is {{min: X}}, {{max: X}} or both, optionally with a confidence level "
                         f"({{min: X, confidence: 0.95}}), not {bound!r}")
    confidence = _confidence(bound, at, problem)
    values = _bound_numbers(bound, at, problem)
    _check_fractions(values, at, problem)
    if values["min"] is not None and values["max"] is not None and values["min"] > values["max"]:
        problem.fail(at, f"min {values['min']:g} is above max {values['max']:g}")
    return Gate(key, values["min"], values["max"], confidence=confidence)


def _confidence(bound: dict[str, Any], at: tuple[str, ...], problem: _Problems) -> float | None:
    """The gate's confidence level, a fraction strictly between 0 and 1 (95 reads as a percentage: a hint)."""
    confidence = bound.get(CONFIDENCE)
    if CONFIDENCE in bound and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))
                                or not 0 < confidence < 1):
        hint = f"; {confidence:g} looks like a percentage: write {confidence / 100:g}" if (
            isinstance(confidence, (int, float)) and not isinstance(confidence, bool) and 1 < confidence < 100) else ""
        problem.fail(at, f"confidence must be a level between 0 and 1 (say 0.95), not {confidence!r}{hint}")
    return None if confidence is None else float(confidence)


def _bound_numbers(bound: dict[str, Any], at: tuple[str, ...], problem: _Problems) -> dict[str, float | None]:
    """min and max as floats (None where absent); each given one must be a finite number."""
    values = {}
    for name in BOUNDS:
        value = bound.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or abs(value) > sys.float_info.max or not math.isfinite(value)):
            problem.fail(at, f"{name} must be a number, not {value!r}")
        values[name] = None if value is None else float(value)
    return values


def _check_fractions(values: Mapping[str, float | None], at: tuple[str, ...], problem: _Problems) -> None:
    """Every bound is a fraction in [0, 1], as every metric is (87.55 reads as a percentage: a hint)."""
    for name, value in values.items():
        if value is not None and not 0 <= value <= 1:
            hint = f"; {value:g} looks like a percentage: write {value / 100:g}" if 1 < value <= 100 else ""
            problem.fail(at, f"{name} {value:g} is outside [0, 1]: every metric is a fraction (a score of "
                             f"87.55% is 0.8755){hint}")


def _key_lines(node: Any, prefix: tuple[str, ...] = (),
               duplicates: list[tuple[tuple[str, ...], int, int]] | None = None) -> dict[tuple[str, ...], int]:
    """1-based line of every mapping key, by its path, for error messages; a key seen twice in one
    mapping goes to ``duplicates`` as (path, first line, second line)."""
    lines: dict[tuple[str, ...], int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            path = (*prefix, str(key_node.value))
            line = key_node.start_mark.line + 1
            if path in lines and duplicates is not None:
                duplicates.append((path, lines[path], line))
            lines.setdefault(path, line)
            lines.update(_key_lines(value_node, path, duplicates))
    return lines
