"""Command-line options of the ``trust`` group and the run configuration they resolve to (DESIGN 11)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from . import scorers
from .recording import RecordMode

MARKERS = {
    "rules": "RuLES rule-following cases (benign, basic, redteam suites)",
    "rules_hodor": "RuLES v1 Hodor cases written by pytest-trust (not part of the upstream scores)",
    # DecodingTrust's eight perspectives, one marker each
    "toxicity": "DecodingTrust toxicity",
    "stereotype": "DecodingTrust stereotype bias",
    "advglue": "DecodingTrust adversarial robustness (AdvGLUE)",
    "ood": "DecodingTrust out-of-distribution robustness",
    "adv_demonstration": "DecodingTrust robustness to adversarial demonstrations",
    "privacy": "DecodingTrust privacy",
    "machine_ethics": "DecodingTrust machine ethics",
    "fairness": "DecodingTrust fairness",
}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("trust", "pytest-trust: LLM trustworthiness benchmarks as tests")
    group.addoption("--model", dest="trust_model", metavar="NAME",
                    help="model to evaluate: the `model` of every request and the cassette folder "
                         "cassettes/<NAME>/ (default: $PYTEST_TRUST_MODEL, else the trust_model ini value)")
    group.addoption("--trust-base-url", metavar="URL",
                    help="OpenAI-compatible endpoint used when recording (default: $OPENAI_BASE_URL); "
                         "the API key is read from $OPENAI_API_KEY only. Several servers of one model, "
                         "comma-separated, share the load (each request goes to the least busy)")
    group.addoption("--trust-data", metavar="DIR",
                    help="benchmark data mirror laid out as <source>/<path>.xz (default: $PYTEST_TRUST_DATA)")
    group.addoption("--trust-cassettes", metavar="DIR", help="cassette root (default: <rootdir>/cassettes)")
    group.addoption("--trust-thresholds", metavar="PATH",
                    help="gates file (default: thresholds.yaml at the rootdir, if present)")
    group.addoption("--trust-report", metavar="PATH", help="write the JSON report (metrics, gates, items) here")
    group.addoption("--trust-limit", type=int, metavar="N", help="run a seeded subset of N items per scenario")
    group.addoption("--trust-profile", choices=sorted(PROFILES), default=None,
                    help="a named run size: " + "; ".join(f"{name}: {text}" for name, (_, text) in PROFILES.items())
                         + " (the same items for the same --trust-seed)")
    group.addoption("--trust-seed", type=int, default=0, metavar="S", help="seed of --trust-limit's subset (default 0)")
    group.addoption("--trust-recorded-only", action="store_true", default=False,
                    help="replay only the items that have a recording (e.g. a run recorded with --trust-limit); "
                         "the others are deselected. A recorded item whose request changed still misses")
    group.addoption("--trust-soft", action="store_true", default=None,
                    help="only gates and errors decide the exit status, not failing items")
    group.addoption("--trust-strict", dest="trust_soft", action="store_false", default=None,
                    help="failing items fail the run even where the thresholds file sets soft: true")
    group.addoption("--trust-timeout", type=float, default=120.0, metavar="SECONDS",
                    help="per-request timeout when recording (default 120)")
    group.addoption("--trust-retries", type=int, default=4, metavar="N",
                    help="retries of a failed request when recording: timeouts, connection errors, 408/409/429, "
                         "5xx and status-200 answers that are not completions, with backoff honouring Retry-After "
                         "(default 4); after 3 requests in a row fail so, the run stops")
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
    group.addoption("--trust-privacy-understanding", choices=["paper", "head"], default="paper",
                    help="DecodingTrust privacy understanding: paper (default) counts an answer as telling the secret "
                         "by the first scorer's 6 phrases, which gave the published numbers; head by 161ae83's 12 - "
                         "a deviation recorded in the report")
    group.addoption("--trust-privacy-score", choices=["paper", "head"], default="paper",
                    help="DecodingTrust privacy score: paper (default) is 1 minus the unweighted mean of the Enron, "
                         "PII and understanding leak rates, as published; head weighs them 0.4/0.3/0.3 as 161ae83's "
                         "code - a deviation recorded in the report")
    group.addoption("--trust-toxicity-scorer", choices=["offline", "perspective"], default=None,
                    help="DecodingTrust toxicity: perspective (Google's Perspective API, as DecodingTrust; key from "
                         "$PERSPECTIVE_API_KEY, needed only for texts never scored; answers recorded under "
                         "cassettes/<model>/perspective-api/) or offline (alt-profanity-check, a stand-in, no key, no "
                         "network). Default: perspective when $PERSPECTIVE_API_KEY is set, else offline")
    group.addoption("--trust-perspective-rpm", type=float, default=60.0, metavar="N",
                    help="Perspective API requests per minute when scoring live (default 60, its default quota)")
    group.addoption("--trust-dt-samples", type=int, default=25, metavar="K",
                    help="DecodingTrust stereotype and toxicity: answers sampled per prompt (default 25, the "
                         "paper's); fewer makes recording cheaper - a deviation recorded in the report")
    group.addoption("--trust-rules-keep-reminders", action="store_true", default=False,
                    help="RuLES: keep the precedence reminders in the rule prompt (upstream default; "
                         "removed by default as in S-RuLES/SystemCheck) - a deviation recorded in the report")
    group.addoption("--trust-ood-scoring", choices=["v1.0", "head"], default="v1.0",
                    help="DecodingTrust OOD: v1.0 (default) is the per-answer rule that produced the published "
                         "numbers; head is the rule upstream adopted after v1.0 (a2e191b) - a deviation recorded "
                         "in the report")
    group.addoption("--trust-advglue-protocol", choices=["paper", "head"], default="paper",
                    help="DecodingTrust AdvGLUE: paper (default) sends the requests of the script behind the published "
                         "numbers (c9b63ad: system turn, no demonstrations, temperature 0); head sends 161ae83's "
                         "(demonstrations, max_tokens 16) - a deviation recorded in the report")
    parser.addini("trust_model", "default model name for pytest-trust suites", default=None)


# Named run sizes: a seeded sample of so many items per scenario (None: every item).
PROFILES: dict[str, tuple[int | None, str]] = {
    "smoke": (5, "5 items per scenario, for pull requests"),
    "standard": (50, "50 items per scenario"),
    "full": (None, "every item, the paper's full configurations, for nightly runs"),
}

# Benchmark settings and their upstream-faithful defaults: any other value is a deviation, named in reports.
FAITHFUL_SETTINGS: dict[str, Any] = {"rules_keep_reminders": False, "ood_scoring": "v1.0",
                                     "advglue_protocol": "paper", "dt_samples": 25,
                                     "privacy_understanding": "paper", "privacy_score": "paper"}
# The toxicity scorer is not listed: a run names the one it used in `toxicity.scorer.<name>`, and every
# run without toxicity would otherwise print it as a deviation.


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

    def deviations(self) -> dict[str, Any]:
        """Settings that differ from the upstream-faithful defaults."""
        return {k: v for k, v in self.settings.items() if FAITHFUL_SETTINGS.get(k) != v}

    @classmethod
    def from_pytest(cls, config: pytest.Config) -> RunConfig:
        opt = config.getoption
        rootdir = Path(config.rootpath)
        thresholds = opt("trust_thresholds")
        if thresholds is None and (rootdir / "thresholds.yaml").exists():
            thresholds = rootdir / "thresholds.yaml"
        data = opt("trust_data") or os.environ.get("PYTEST_TRUST_DATA")
        limit = opt("trust_limit")
        if limit is not None and limit < 1:
            raise pytest.UsageError(f"--trust-limit must be a positive number of items, not {limit}")
        given = opt("trust_base_url") or os.environ.get("OPENAI_BASE_URL") or ""
        urls = [url.strip() for url in given.split(",") if url.strip()]
        profile = opt("trust_profile")
        if profile is not None:
            if limit is not None:
                raise pytest.UsageError("--trust-profile and --trust-limit both size the run: pass one of them")
            limit = PROFILES[profile][0]
        if opt("trust_timeout") <= 0:
            raise pytest.UsageError(f"--trust-timeout must be a positive number of seconds, not {opt('trust_timeout')}")
        if opt("trust_retries") < 0:
            raise pytest.UsageError(f"--trust-retries must be 0 or more, not {opt('trust_retries')}")
        if opt("trust_dt_samples") < 1:
            raise pytest.UsageError(f"--trust-dt-samples must be 1 or more, not {opt('trust_dt_samples')}")
        if opt("trust_concurrency") < 1:
            raise pytest.UsageError(f"--trust-concurrency must be 1 or more, not {opt('trust_concurrency')}")
        for name in ("trust_rpm", "trust_tpm", "trust_perspective_rpm"):
            if opt(name) is not None and opt(name) <= 0:
                raise pytest.UsageError(f"--{name.replace('_', '-')} must be a positive number, not {opt(name)}")
        try:
            mode = RecordMode.parse(getattr(config.option, "record_mode", None))
        except ValueError as err:
            raise pytest.UsageError(f"--record-mode: {err}") from None
        return cls(
            model=opt("trust_model") or os.environ.get("PYTEST_TRUST_MODEL") or config.getini("trust_model") or None,
            base_url=urls[0] if urls else None,
            other_urls=tuple(urls[1:]),
            data=Path(data) if data else None,
            cassettes=Path(opt("trust_cassettes") or rootdir / "cassettes"),
            thresholds=Path(thresholds) if thresholds else None,
            report=Path(opt("trust_report")) if opt("trust_report") else None,
            limit=limit,
            profile=profile,
            seed=opt("trust_seed"),
            soft_flag=opt("trust_soft"),
            timeout=opt("trust_timeout"),
            retries=opt("trust_retries"),
            concurrency=opt("trust_concurrency"),
            batch=bool(opt("trust_batch")),
            rpm=opt("trust_rpm"),
            tpm=opt("trust_tpm"),
            record_mode=mode,
            cassettes_given=bool(opt("trust_cassettes")),
            recorded_only=bool(opt("trust_recorded_only")),
            settings={"rules_keep_reminders": bool(opt("trust_rules_keep_reminders")),
                      "ood_scoring": opt("trust_ood_scoring"),
                      "advglue_protocol": opt("trust_advglue_protocol"),
                      "dt_samples": opt("trust_dt_samples"),
                      "privacy_understanding": opt("trust_privacy_understanding"),
                      "privacy_score": opt("trust_privacy_score"),
                      "toxicity_scorer": scorers.resolve_name(opt("trust_toxicity_scorer"))},
            perspective_rpm=opt("trust_perspective_rpm"),
        )
