"""Command-line options of the ``trust`` group and the run configuration they resolve to.

Relative paths are resolved once, here: those of options and environment variables against the directory
pytest was started from, those of ini options against the rootdir (where the ini file is).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from . import scorers
from .benchmarks import SETTINGS, Setting
from .data.location import DataPlace, locate, resolve_path
from .endpoint.system_prompt import SystemPrompt
from .endpoint.system_prompt import resolve as resolve_system_prompt
from .endpoint.target import Target
from .endpoint.target import resolve as resolve_target
from .errors import UsageProblem
from .recording import RecordMode


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("trust", "pytest-trust: LLM trustworthiness benchmarks as tests")
    group.addoption("--model", dest="trust_model", metavar="NAME",
                    help="model to evaluate: the `model` of every request and the cassette folder "
                         "cassettes/<NAME>/ (default: $PYTEST_TRUST_MODEL, else the trust_model ini value)")
    group.addoption("--trust-base-url", metavar="URL",
                    help="OpenAI-compatible endpoint used when recording (default: $OPENAI_BASE_URL); "
                         "the API key is read from $OPENAI_API_KEY (or the variable --trust-api-key-env names) only. Several servers of one model, "
                         "comma-separated, share the load (each request goes to the least busy)")
    group.addoption("--trust-data", metavar="DIR",
                    help="benchmark data mirror laid out as <source>/<path>.xz (default: $PYTEST_TRUST_DATA, else "
                         "the trust_data ini option if that directory exists); files not in a mirror come from "
                         "the cache ~/.cache/pytest-trust/data or a verified download")
    group.addoption("--trust-cassettes", metavar="DIR",
                    help="cassette root (default: the trust_cassettes ini option, else <rootdir>/cassettes)")
    group.addoption("--trust-thresholds", metavar="PATH",
                    help="gates file (default: the trust_thresholds ini option, else thresholds.yaml at the "
                         "rootdir, if present)")
    group.addoption("--trust-system-prompt", metavar="FILE",
                    help="the deployment's system prompt (UTF-8 text), put first in every request's first system "
                         "message (docs/decisions.md, one rule per benchmark); recordings go to "
                         "cassettes/<model>+prompt-<sha256[:12]>/, beside those of other prompts. Overrides a "
                         "pytest_trust_system_prompt hook in conftest.py. A deviation recorded in the report")
    group.addoption("--trust-partial", action="store_true", default=False,
                    help="for local work on part of a benchmark: a gate whose benchmark ran but whose metric could "
                         "not be computed (e.g. -k deselected part of what it needs) is reported, but does not "
                         "fail the run")
    group.addoption("--trust-report", metavar="PATH", help="write the JSON report (metrics, gates, items) here")
    group.addoption("--trust-baseline", metavar="REPORT.json",
                    help="compare with an earlier run's JSON report: which items newly fail, pass or error, and per "
                         "benchmark a paired test of the change (gate it with <benchmark>.regression: {alpha: 0.05})")
    group.addoption("--trust-baseline-update", action="store_true", default=False,
                    help="write this run's JSON report to the --trust-baseline path, as the next baseline (only when "
                         "no gate fails)")
    group.addoption("--trust-shard", metavar="I/N",
                    help="run shard I of N (1 <= I <= N): a stable slice of the items by a hash of their ids; "
                         "merge the shards' reports with `pytest-trust report merge`")
    group.addoption("--trust-html", metavar="PATH",
                    help="write the HTML report here: one self-contained file (scorecard, the papers' figures, gates, "
                         "every item's verdict), opened with no network")
    group.addoption("--trust-markdown", metavar="PATH",
                    help="write a short Markdown summary here (gates, intervals, changes against a baseline), for a "
                         "pull-request comment or $GITHUB_STEP_SUMMARY")
    group.addoption("--trust-limit", type=int, metavar="N",
                    help="run a seeded subset of N items per cassette file: a DecodingTrust scenario, a RuLES rule "
                         "file (all its suites together), a RuLES v1 suite's rule file, a detection behaviour")
    group.addoption("--trust-api-key-env", metavar="VAR", default="OPENAI_API_KEY",
                    help="the environment variable the endpoint's key is read from (default: OPENAI_API_KEY), for "
                         "an OpenAI-compatible endpoint whose key lives elsewhere; the key is never written")
    group.addoption("--trust-target", metavar="MODULE:FUNCTION", default=None,
                    help="test your application, not only its model: a recording run calls MODULE:FUNCTION "
                         "(importable from the project root) as function(messages, params) for each request and "
                         "records its answers in cassettes/<model>+app-<sha256[:12]>/; a replay never imports it "
                         "(or: the pytest_trust_target hook of conftest.py)")
    group.addoption("--trust-target-version", metavar="VERSION", default=None,
                    help="the application's version: its recordings' folder is named from it (default: the "
                         "source of the target's module)")
    group.addoption("--trust-profile", choices=sorted(PROFILES), default=None,
                    help="a named run size: " + "; ".join(f"{name}: {text}" for name, (_, text) in PROFILES.items())
                         + " (the same items for the same --trust-seed)")
    group.addoption("--trust-seed", type=int, default=0, metavar="S", help="seed of --trust-limit's subset (default 0)")
    group.addoption("--trust-recorded-only", action="store_true", default=False,
                    help="replay only the items that have a recording (e.g. a run recorded with --trust-limit); "
                         "the others are left out before they are collected. A recorded item whose request changed still misses")
    group.addoption("--trust-soft", action="store_true", default=False,
                    help="only gates and errors decide the exit status, not failing items")
    group.addoption("--trust-strict", action="store_true", default=False,
                    help="failing items fail the run even where the thresholds file sets soft: true")
    group.addoption("--trust-timeout", type=float, default=120.0, metavar="SECONDS",
                    help="seconds each attempt of a request may take when recording, from connecting to the "
                         "answer's last byte (default 120); an attempt that takes longer fails, and is retried and "
                         "counted as any failed attempt")
    group.addoption("--trust-retries", type=int, default=4, metavar="N",
                    help="retries of a failed request when recording: timeouts, connection errors, 408/409/429, "
                         "5xx and status-200 answers that are not completions, with backoff honouring Retry-After "
                         "(default 4; an HTML page, an event stream or a redirect is not retried); after 3 requests "
                         "in a row fail so, the run stops")
    group.addoption("--trust-concurrency", type=int, default=1, metavar="N",
                    help="when recording, play N items at once in threads before pytest reports them (default 1: "
                         "one at a time); each item keeps its own case and verdict, and cassettes are the same "
                         "as a sequential recording's. Not combined with -n: each xdist worker records alone")
    group.addoption("--trust-batch", action="store_true", default=False,
                    help="when recording, queue the missing requests for the endpoint's Batch API (OpenAI's) instead "
                         "of calling it: their items skip, the batch is submitted at the end of the run, and a later "
                         "run with --trust-batch collects its answers into the cassettes (one turn per batch)")
    group.addoption("--trust-rpm", type=float, default=None, metavar="N",
                    help="when recording, send at most N requests per minute (the provider's limit)")
    group.addoption("--trust-tpm", type=float, default=None, metavar="N",
                    help="when recording, send at most about N tokens per minute (prompt bytes / 4 + max_tokens)")
    group.addoption("--trust-toxicity-scorer", choices=list(scorers.names()), default=None,
                    help="DecodingTrust toxicity: perspective (Google's Perspective API, as DecodingTrust; Google "
                         f"closes it on {scorers.PERSPECTIVE_CLOSES:%d %B %Y}, after which only its recorded "
                         "scores replay; key from $PERSPECTIVE_API_KEY, needed only for texts never scored; answers "
                         "recorded under cassettes/<model>/perspective-api/), offline (alt-profanity-check, a "
                         "stand-in, no key, no network), openai-moderation (OpenAI's moderation endpoint, key from "
                         "$OPENAI_API_KEY, answers recorded under cassettes/<model>/openai-moderation/), or a scorer "
                         "another package installs (entry-point group pytest_trust.scorers). Default: perspective "
                         "when $PERSPECTIVE_API_KEY is set, else offline")
    group.addoption("--trust-perspective-rpm", type=float, default=60.0, metavar="N",
                    help="Perspective API requests per minute when scoring live (default 60, its default quota)")
    for setting in SETTINGS.values():  # the benchmarks' own choices, each defaulting to what upstream ran
        group.addoption(setting.flag, **_setting_option(setting))
        if setting.path:
            parser.addini(setting.ini, f"{setting.help}; relative to the rootdir", default=None)
    parser.addini("trust_model", "default model name for pytest-trust suites", default=None)
    parser.addini("trust_data", "benchmark data mirror, relative to the rootdir; used when the directory exists "
                  "(--trust-data and $PYTEST_TRUST_DATA come first)", default=None)
    parser.addini("trust_cassettes", "cassette root, relative to the rootdir (default: cassettes)", default=None)
    parser.addini("trust_thresholds", "gates file, relative to the rootdir (default: thresholds.yaml if present)",
                  default=None)


def _setting_option(setting: Setting) -> dict[str, Any]:
    if setting.path:
        return {"default": None, "metavar": "FILE", "help": setting.help}
    if isinstance(setting.default, bool):
        return {"action": "store_true", "default": setting.default, "help": setting.help}
    if isinstance(setting.default, int):
        return {"type": int, "default": setting.default, "metavar": "N", "help": setting.help}
    return {"choices": list(setting.choices), "default": setting.default, "help": setting.help}


# Named run sizes: a seeded sample of so many items per cassette file (None: every item).
PROFILES: dict[str, tuple[int | None, str]] = {
    "smoke": (5, "5 items per cassette file, for pull requests"),
    "standard": (50, "50 items per cassette file"),
    "full": (None, "every item, the paper's full configurations, for nightly runs"),
}

@dataclass(frozen=True)
class RunConfig:
    model: str | None
    base_url: str | None
    other_urls: tuple[str, ...]  # more servers of the same model (--trust-base-url URL1,URL2)
    data: Path | None
    cassettes: Path
    thresholds: Path | None
    report: Path | None
    limit: int | None
    profile: str | None
    seed: int
    soft_flag: bool | None
    timeout: float
    retries: int
    concurrency: int
    batch: bool
    rpm: float | None
    tpm: float | None
    record_mode: RecordMode
    cassettes_given: bool  # --trust-cassettes was passed (commands we print must keep it)
    recorded_only: bool
    perspective_rpm: float
    settings: dict[str, Any]  # benchmark settings (deviations from the upstream defaults)
    allow_partial: bool = False  # --trust-partial: gates not computed from a partial selection do not fail
    baseline: Path | None = None  # --trust-baseline: the earlier run's JSON report
    baseline_update: bool = False  # --trust-baseline-update: write this run's report there
    shard: tuple[int, int] | None = None  # --trust-shard I/N, 1-based
    system_prompt: SystemPrompt | None = None  # --trust-system-prompt FILE or the conftest.py hook's
    target: Target | None = None  # --trust-target or the pytest_trust_target hook's: the application under test
    api_key_env: str = "OPENAI_API_KEY"  # --trust-api-key-env: the variable the endpoint's key is read from
    data_missing: Path | None = None  # the trust_data ini option's folder, when it is set but does not exist
    html: Path | None = None  # --trust-html
    markdown: Path | None = None  # --trust-markdown

    @property
    def recordings(self) -> str | None:
        """The name of the run's recordings folder under the cassette root: the model's, or with a system
        prompt, <model>+prompt-<sha256[:12]>."""
        if self.model is None:
            return None
        folder = self.model if self.system_prompt is None else self.system_prompt.folder(self.model)
        return folder if self.target is None else self.target.folder(folder)

    @property
    def shard_text(self) -> str | None:
        return f"{self.shard[0]}/{self.shard[1]}" if self.shard else None

    def deviations(self) -> dict[str, Any]:
        """Settings that differ from the upstream-faithful defaults, and the deployment's system prompt (the
        benchmarks' protocols send none)."""
        deviations = {k: v for k, v in self.settings.items()
                      if k in SETTINGS and not SETTINGS[k].path and SETTINGS[k].default != v}
        if self.system_prompt is not None:
            deviations["system_prompt" if self.system_prompt.prompt_only else "deployment"] = \
                self.system_prompt.describe()
        if self.target is not None:
            deviations["target"] = self.target.describe()
        return deviations

    @classmethod
    def from_pytest(cls, config: pytest.Config) -> RunConfig:
        """The run's configuration from pytest's options, ini values and environment. Each part checks its own
        options; they are resolved in this order, so a command with several mistakes is told of the same first."""
        opt = config.getoption
        here = Path(config.invocation_params.dir)
        rootdir = Path(config.rootpath)
        files = _files(config, here, rootdir)
        soft_flag = _soft_flag(opt)
        selection = _selection(opt)
        endpoint = _endpoint(opt)
        settings = _settings(config, here, rootdir)
        pace = _recording_pace(opt)
        shard = parse_shard(opt("trust_shard"))
        baseline = _baseline(opt, here, shard)
        recording = _recording(config, rootdir)
        return cls(
            model=opt("trust_model") or os.environ.get("PYTEST_TRUST_MODEL") or config.getini("trust_model") or None,
            **files,
            **selection,
            **endpoint,
            **pace,
            **baseline,
            **recording,
            soft_flag=soft_flag,
            shard=shard,
            settings={**settings,
                      "toxicity_scorer": scorers.resolve_name(opt("trust_toxicity_scorer"))},
            allow_partial=bool(opt("trust_partial")),
            system_prompt=resolve_system_prompt(config, here),
            report=resolve_path(here, opt("trust_report")),
            html=resolve_path(here, opt("trust_html")),
            markdown=resolve_path(here, opt("trust_markdown")),
        )


Option = Callable[..., Any]  # pytest.Config.getoption, which the parts below read options with


def _files(config: pytest.Config, here: Path, rootdir: Path) -> dict[str, Any]:
    """The gates file, the data mirror and the cassette root: option, then ini option, then the default."""
    opt = config.getoption
    thresholds = (resolve_path(here, opt("trust_thresholds"))
                  or resolve_path(rootdir, config.getini("trust_thresholds")))
    if thresholds is None and (rootdir / "thresholds.yaml").exists():
        thresholds = rootdir / "thresholds.yaml"
    place = data_place(config)
    cassettes = (resolve_path(here, opt("trust_cassettes"))
                 or resolve_path(rootdir, config.getini("trust_cassettes"))
                 or rootdir / "cassettes")
    return {"thresholds": thresholds, "data": place.mirror, "data_missing": place.missing_ini,
            "cassettes": cassettes, "cassettes_given": bool(opt("trust_cassettes"))}


def _soft_flag(opt: Option) -> bool | None:
    """Whether failing items fail the run, when an option says so (None: the thresholds file decides)."""
    if opt("trust_soft") and opt("trust_strict"):
        raise pytest.UsageError("--trust-soft and --trust-strict contradict each other: pass one of them "
                                "(soft: only gates and errors fail the run; strict: failing items do too)")
    return True if opt("trust_soft") else False if opt("trust_strict") else None


def _selection(opt: Option) -> dict[str, Any]:
    """Which items run: a seeded subset of each cassette file's (--trust-limit or a --trust-profile), and with
    --trust-recorded-only those recorded only (--trust-shard is parsed apart, after the recording pace)."""
    limit = opt("trust_limit")
    if limit is not None and limit < 1:
        raise pytest.UsageError(f"--trust-limit must be a positive number of items, not {limit}")
    profile = opt("trust_profile")
    if profile is not None:
        if limit is not None:
            raise pytest.UsageError("--trust-profile and --trust-limit both size the run: pass one of them")
        limit = PROFILES[profile][0]
    return {"limit": limit, "profile": profile, "seed": opt("trust_seed"),
            "recorded_only": bool(opt("trust_recorded_only"))}


def _endpoint(opt: Option) -> dict[str, Any]:
    """The servers a recording run asks, the variable their key is read from, and how long and how often a
    request is tried."""
    given = opt("trust_base_url") or os.environ.get("OPENAI_BASE_URL") or ""
    urls = [url.strip() for url in given.split(",") if url.strip()]
    if opt("trust_timeout") <= 0:
        raise pytest.UsageError(f"--trust-timeout must be a positive number of seconds, not {opt('trust_timeout')}")
    if opt("trust_retries") < 0:
        raise pytest.UsageError(f"--trust-retries must be 0 or more, not {opt('trust_retries')}")
    return {"base_url": urls[0] if urls else None, "other_urls": tuple(urls[1:]), "timeout": opt("trust_timeout"),
            "retries": opt("trust_retries"), "api_key_env": opt("trust_api_key_env")}


def _settings(config: pytest.Config, here: Path, rootdir: Path) -> dict[str, Any]:
    """The benchmarks' settings, each checked by its own rule."""
    settings = {key: setting_value(config, setting, here, rootdir) for key, setting in SETTINGS.items()}
    for key, setting in SETTINGS.items():
        if setting.path and not file_named(config, setting):  # the default file: read when its suite is collected
            continue
        problem = setting.problem(settings[key])
        if problem:
            raise pytest.UsageError(problem)
    return settings


def _recording_pace(opt: Option) -> dict[str, Any]:
    """How a recording run sends its requests: how many items at once, in a batch or not, at what rates."""
    if opt("trust_concurrency") < 1:
        raise pytest.UsageError(f"--trust-concurrency must be 1 or more, not {opt('trust_concurrency')}")
    for name in ("trust_rpm", "trust_tpm", "trust_perspective_rpm"):
        if opt(name) is not None and opt(name) <= 0:
            raise pytest.UsageError(f"--{name.replace('_', '-')} must be a positive number, not {opt(name)}")
    return {"concurrency": opt("trust_concurrency"), "batch": bool(opt("trust_batch")), "rpm": opt("trust_rpm"),
            "tpm": opt("trust_tpm"), "perspective_rpm": opt("trust_perspective_rpm")}


def _baseline(opt: Option, here: Path, shard: tuple[int, int] | None) -> dict[str, Any]:
    """The earlier run's report to compare with, and whether this run's report replaces it."""
    baseline = resolve_path(here, opt("trust_baseline"))
    update = bool(opt("trust_baseline_update"))
    if update and baseline is None:
        raise pytest.UsageError("--trust-baseline-update writes to the --trust-baseline path: pass "
                                "--trust-baseline REPORT.json with it")
    if update and shard is not None:
        raise pytest.UsageError("--trust-baseline-update with --trust-shard would write one shard as the baseline: "
                                "merge the shards' reports (pytest-trust report merge ... --out REPORT.json) instead")
    if baseline is not None and not update and not baseline.is_file():
        raise pytest.UsageError(f"--trust-baseline {opt('trust_baseline')}: {baseline} is not a file; pass the JSON "
                                "report of an earlier run (--trust-report PATH), or add --trust-baseline-update "
                                "to write this run's report there")
    return {"baseline": baseline, "baseline_update": update}


def _recording(config: pytest.Config, rootdir: Path) -> dict[str, Any]:
    """pytest-recording's --record-mode, and the application that answers instead of an endpoint, if any."""
    opt = config.getoption
    try:
        mode = RecordMode.parse(getattr(config.option, "record_mode", None))
    except ValueError as err:
        raise pytest.UsageError(f"--record-mode: {err}") from None
    target = resolve_target(config, rootdir, mode.can_record)
    if target is not None and (opt("trust_base_url") or opt("trust_batch")):
        clash = "--trust-base-url" if opt("trust_base_url") else "--trust-batch"
        raise pytest.UsageError(f"{clash} with an application target: the target answers the requests itself; "
                                f"drop {clash}, or the target to test the endpoint")
    return {"record_mode": mode, "target": target}


def setting_value(config: pytest.Config, setting: Setting, here: Path, rootdir: Path) -> Any:
    """A setting's value; for a file, its path as given (option, then ini option) or the default file if it is
    there, else None."""
    value = config.getoption(setting.dest)
    if not setting.path:
        return value
    given = resolve_path(here, value) or resolve_path(rootdir, config.getini(setting.ini))
    if given is not None:
        return str(given)
    return str(rootdir / setting.default) if (rootdir / setting.default).is_file() else None


def file_named(config: pytest.Config, setting: Setting) -> bool:
    """Whether the option or the ini option names a ``path`` setting's file (else the default file is read, if
    it is there). A named file is the user's explicit choice, checked before anything runs; the default one is
    read only by a run that collects its suite, so a run of other suites is not stopped by a mistake in it."""
    return bool(config.getoption(setting.dest) or config.getini(setting.ini))


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """--trust-shard I/N as (I, N), 1 <= I <= N; a usage error otherwise."""
    if value is None:
        return None
    index, _, total = value.partition("/")
    if not (index.strip().isdigit() and total.strip().isdigit()) or not 1 <= int(index) <= int(total):
        raise pytest.UsageError(f"--trust-shard {value}: expected I/N with 1 <= I <= N, e.g. --trust-shard 1/4 "
                                "(shard 1 of 4)")
    return int(index), int(total)


def data_place(config: pytest.Config) -> DataPlace:
    """The data mirror of a pytest run, by the rule every command shares (pytest_trust/data/location.py):
    --trust-data, else $PYTEST_TRUST_DATA (relative to where pytest was started; a usage error when not a
    directory), else the trust_data ini option relative to the rootdir when that directory exists."""
    try:
        return locate("--trust-data", config.getoption("trust_data"), Path(config.invocation_params.dir),
                      config.getini("trust_data"), Path(config.rootpath))
    except UsageProblem as err:
        raise pytest.UsageError(str(err)) from None
