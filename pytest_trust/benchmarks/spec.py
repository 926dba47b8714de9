"""What a benchmark declares: one ``Benchmark`` object per benchmark package, found through the registry.

The plugin, the options, the gates and the reports read benchmarks only through these objects, so a
benchmark of another package (an entry point in the ``pytest_trust.benchmarks`` group) takes part like a
built-in one: its suites become markers and ``TRUST_SUITE`` values, its settings command-line options,
its metric keys (and its families of keys the project names) valid gate keys, its ``recordings`` readers
what an importer imports. How to write one: docs/adding-a-benchmark.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..items import Item, Result
from ..results.metrics import Metric

Loader = Callable[[Any, Mapping[str, Any]], list[Item]]  # (data store or None, settings) -> items

# The services a benchmark may declare in ``Benchmark.needs``: the run builds each once and hands it to ``run`` as
# the keyword argument of that name (pytest_trust/run/services.py), so no benchmark reaches for one of the process.
TOXICITY_SCORER = "toxicity_scorer"  # a pytest_trust.scorers.RunScorer: the run's toxicity scorer, named and versioned
SERVICES: tuple[str, ...] = (TOXICITY_SCORER,)


@dataclass(frozen=True)
class Recorded:
    """One answer from a source's recorded run (what a ``recordings`` reader yields), for an importer.

    ``messages`` are the request messages as recorded, where the recording holds them (the replay
    then hits only if our scenario builds the very same request); ``None`` where the recording holds
    only the answer, and the importer rebuilds the request with the benchmark's own ``messages``.
    """

    item: Item
    response: Mapping[str, Any]  # a chat.completion body
    messages: Sequence[Mapping[str, str]] | None = None


@dataclass(frozen=True)
class Unrecorded:
    """A cassette unit, or one item of it (``item_id``), that a source never recorded for the model: the importer
    marks it, so its replay skips with ``reason`` (the exception ``errors.NotRecorded``) instead of missing."""

    benchmark: str
    cassette: str
    reason: str
    item_id: str | None = None
    files: tuple[str, ...] = field(default_factory=tuple)  # recording files looked for and absent


# (data store, the source's names of the model) -> the source's recorded run, item by item
Recordings = Callable[..., Iterable[Recorded | Unrecorded]]


@dataclass(frozen=True)
class Setting:
    """A choice upstream's code leaves open. ``default`` is what the paper ran; any other value is a
    deviation, named in the summary and the reports. The option is ``--trust-<key with dashes>``."""

    key: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()  # for a text setting; a bool setting is a flag, an int one takes a number
    minimum: int | None = None  # for an int setting
    # A file of the project's (``default`` its name in the rootdir): the option takes a path from where pytest runs,
    # the ini option ``trust_<key>`` one from the rootdir; the value is the file's path, or None when neither was
    # given and the default file is absent. The project's own input, never a deviation from upstream.
    path: bool = False
    # Why a value cannot be used (a file's content), or None. A ``path`` setting's file is checked when pytest starts
    # only when the option or the ini option names it: the default file is the suite's to read when it is collected
    # (its ``load`` raises UsageProblem), so a run that does not collect the suite is not stopped by it.
    check: Callable[[Any], str | None] | None = None

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
        return self.check(value) if self.check is not None else None

    @property
    def ini(self) -> str:
        """The ini option of a ``path`` setting."""
        return "trust_" + self.key


@dataclass(frozen=True)
class Names:
    """The names one family of ``NamedKeys`` has in a run: what a name stands for, where they are defined."""

    what: str  # "rule"
    where: str  # the file that defines them, as messages name it
    names: tuple[str, ...]


@dataclass(frozen=True)
class NamedKeys:
    """Metric keys ``<prefix>.<name>`` whose names the project chooses, not the benchmark (``custom_rules.rule.<name>``,
    a rule of the team's own file). A thresholds file may gate any name under ``prefix``: the keys are checked when
    pytest starts, before the file that names them is read. When the run ends, ``defined`` reads the names that
    exist from the run's settings (None: it cannot tell), and a gate on another name fails naming those that do."""

    prefix: str  # "custom_rules.rule"
    defined: Callable[[Mapping[str, Any]], Names | None]  # the run's settings -> the names defined


@dataclass(frozen=True)
class Suite:
    """The items one suite module parametrizes. Its name is the module's ``TRUST_SUITE`` and its marker."""

    name: str
    marker: str  # the marker's line in `pytest --markers`
    load: Loader
    needs_data: bool = True  # False: built from the benchmark's own rows, never cached by data version
    benchmark: str = ""  # the benchmark it belongs to (filled in by ``Benchmark``)
    family: str = ""  # the metric-key prefix this suite alone feeds (a run of it alone selects only those gates)


class ReportView(Protocol):
    """What a report section reads of the run's report (``pytest_trust.report.run_report.RunReport``)."""

    run: dict[str, Any]  # the report's ``run`` section
    metrics: dict[str, Metric]
    entries: list[dict[str, Any]]  # the items as the JSON report writes them


@dataclass(frozen=True)
class ReportSection:
    """A section a benchmark adds to the HTML report, after the scorecard and the gates. ``render`` draws it
    from the run's report (``pytest_trust.report.run_report.RunReport``) with ``pytest_trust.report.html_parts``; None
    leaves it out."""

    key: str  # the section's anchor in the page
    title: str
    render: Callable[[ReportView], str | None]


@dataclass(frozen=True)
class SuffixAttack:
    """What a white-box suffix attack (``pytest-trust attack gcg``) takes from a benchmark: per behaviour the
    string the model is to start its answer with, the cases attacked, the conversation up to the attacked
    message, and the file the suffixes found are written to (the data of the benchmark's attacked suite).
    The attack plays cases with the benchmark's own ``run``."""

    behavior: str  # what a behaviour is called in messages ("RuLES v1 behaviour")
    case: str  # what a case is called in messages ("justask case")
    targets: Callable[[Any], Mapping[str, str]]  # data store -> the target template of each behaviour
    cases: Callable[[Any, str, bool], list[Item]]  # (data store, behaviour, system instructions) -> its cases
    # (case, target template) -> (the messages up to the attacked one, the target)
    conversation: Callable[[Item, str], tuple[tuple[Mapping[str, str], ...], str]]
    with_suffix: Callable[[Item, str], Item]  # the case as played with a suffix
    suffix_file: Callable[[str], Any]  # model name -> the file its suffixes go to (a Path)
    write: Callable[[Any, Mapping[str, Any]], None]  # (file, one behaviour's record) -> None


def is_score_level(key: str) -> bool:
    """A benchmark's own score, not a part's: one dot (``rules.score``), its error rate aside."""
    return key.count(".") == 1 and not key.endswith(".error_rate")


def is_summary_level(key: str) -> bool:
    """A benchmark's scores and its parts' (``rules.basic.harmless``): at most two dots, not the per-scenario,
    per-cell or per-category families. What a summary table lists (the Markdown summary, a scorecard's card,
    the terminal's rows when one benchmark ran, the compare page's chart) and what bless may gate."""
    return key.count(".") <= 2


# A score's strata: the (suite, bucket) pairs of its items' facts, each of which must have paired items for the score
# to be compared; or, where the project names them (a team's rules), a function giving an item's stratum from its
# facts (None: the item is not in the score), the strata then being those the paired items have.
Strata = tuple[tuple[str, str], ...] | Callable[[Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class Benchmark:
    """A benchmark: its items (suites), how one is played and scored (``run``), how results aggregate into
    metrics, the metric keys it can produce (what a thresholds file may gate), and its settings."""

    name: str
    # (item, model, **needs) -> result; the model has ``chat`` and ``samples``, ``needs`` the services declared below
    run: Callable[..., Result]
    aggregate: Callable[[list[Result]], dict[str, Metric]]
    metric_keys: Callable[[], Sequence[str]]
    suites: tuple[Suite, ...]
    settings: tuple[Setting, ...] = ()
    # Families of metric keys whose last part the project names (a thresholds file may gate any name in them).
    named_keys: tuple[NamedKeys, ...] = ()
    # Readers of recorded runs of the benchmark, by importer ("decodingtrust"): one benchmark may be
    # imported from several sources, and an importer finds its benchmarks here instead of naming them.
    recordings: Mapping[str, Recordings] = field(default_factory=dict)
    # The requests ``run`` sends for an item: an importer rebuilds them for recordings that hold only answers.
    messages: Callable[[Item], list] | None = None
    # Scores that are an unweighted mean of per-item pass rates, by key, with their strata (``Strata``); a baseline
    # compares them with a paired bootstrap.
    paired_scores: Mapping[str, Strata] = field(default_factory=dict)
    # Whether an item's verdict rests on sampled answers that disagree (facts -> bool): a flip of such an item
    # between two runs is noise, not a regression.
    split_samples: Callable[[Mapping[str, Any]], bool] | None = None
    # Which side of a metric is better, by the last part of its key: higher unless listed here (a leak rate, an
    # attack's success); a rate with no better side (how often the model refused) is never blessed into a gate.
    lower_is_better: tuple[str, ...] = ()
    no_better_side: tuple[str, ...] = ()
    report_sections: tuple[ReportSection, ...] = ()
    # The metrics a reader looks at first (the terminal summary's rows without -v, the HTML scorecard's bar),
    # by default its first score-level key (one dot: ``<name>.score``).
    headline: tuple[str, ...] = ()
    suffix_attack: SuffixAttack | None = None  # the cases ``pytest-trust attack gcg`` optimises a suffix on
    # Files ``pytest-trust init --benchmark <name>`` writes for the project to start from: path in the project -> text.
    starter_files: Mapping[str, str] = field(default_factory=dict)
    # The services ``run`` needs besides the model, by name (``SERVICES``): each comes as a keyword argument.
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "suites", tuple(replace(suite, benchmark=self.name) for suite in self.suites))

    def headline_keys(self) -> tuple[str, ...]:
        """``headline``, or the first score-level key of ``metric_keys``; a run's are ``benchmarks.headlines``."""
        if self.headline:
            return self.headline
        first = next((key for key in self.metric_keys() if is_score_level(key)), None)
        return (first,) if first else ()
