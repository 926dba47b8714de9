"""What a benchmark declares: one ``Benchmark`` object per benchmark package, found through the registry.

The plugin, the options, the gates and the reports read benchmarks only through these objects, so a
benchmark of another package (an entry point in the ``pytest_trust.benchmarks`` group) takes part like a
built-in one: its suites become markers and ``TRUST_SUITE`` values, its settings command-line options,
its metric keys valid gate keys. How to write one: docs/adding-a-benchmark.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..items import Item, Result
from ..metrics import Metric

Loader = Callable[[Any, Mapping[str, Any]], list[Item]]  # (data store or None, settings) -> items


@dataclass(frozen=True)
class Setting:
    """A choice upstream's code leaves open. ``default`` is what the paper ran; any other value is a
    deviation, named in the summary and the reports. The option is ``--trust-<key with dashes>``."""

    key: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()  # for a text setting; a bool setting is a flag, an int one takes a number
    minimum: int | None = None  # for an int setting

    @property
    def flag(self) -> str:
        return "--trust-" + self.key.replace("_", "-")

    @property
    def dest(self) -> str:
        """The option's name in pytest's ``config.option``."""
        return "trust_" + self.key

    def problem(self, value: Any) -> str | None:
        """Why ``value`` cannot be used (choices are checked by the option parser itself)."""
        if self.minimum is not None and value < self.minimum:
            return f"{self.flag} must be {self.minimum} or more, not {value}"
        return None


@dataclass(frozen=True)
class Suite:
    """The items one suite module parametrizes. Its name is the module's ``TRUST_SUITE`` and its marker."""

    name: str
    marker: str  # the marker's line in `pytest --markers`
    load: Loader
    needs_data: bool = True  # False: built from the benchmark's own rows, never cached by data version
    benchmark: str = ""  # the benchmark it belongs to (filled in by ``Benchmark``)
    family: str = ""  # the metric-key prefix this suite alone feeds (a run of it alone selects only those gates)


@dataclass(frozen=True)
class Benchmark:
    """A benchmark: its items (suites), how one is played and scored (``run``), how results aggregate into
    metrics, the metric keys it can produce (what a thresholds file may gate), and its settings."""

    name: str
    run: Callable[[Item, Any], Result]  # (item, model) -> result; the model has ``chat`` and ``samples``
    aggregate: Callable[[list[Result]], dict[str, Metric]]
    metric_keys: Callable[[], Sequence[str]]
    suites: tuple[Suite, ...]
    settings: tuple[Setting, ...] = ()
    recordings: Callable[..., Any] | None = None  # an importer's reader of the benchmark's published runs
    # Scores that are an unweighted mean of per-item pass rates, by key: their strata (suite, bucket), read
    # from each result's facts; a baseline compares them with a paired bootstrap.
    paired_scores: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # Whether an item's verdict rests on sampled answers that disagree (facts -> bool): a flip of such an item
    # between two runs is noise, not a regression.
    split_samples: Callable[[Mapping[str, Any]], bool] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "suites", tuple(replace(suite, benchmark=self.name) for suite in self.suites))
