"""Command-line options of the ``trust`` group and the run configuration they resolve to (DESIGN 11)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

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
                         "the API key is read from $OPENAI_API_KEY only")
    group.addoption("--trust-data", metavar="DIR",
                    help="benchmark data mirror laid out as <source>/<path>.xz (default: $PYTEST_TRUST_DATA)")
    group.addoption("--trust-cassettes", metavar="DIR", help="cassette root (default: <rootdir>/cassettes)")
    group.addoption("--trust-thresholds", metavar="PATH",
                    help="gates file (default: thresholds.yaml at the rootdir, if present)")
    group.addoption("--trust-report", metavar="PATH", help="write the JSON report (metrics, gates, items) here")
    group.addoption("--trust-limit", type=int, metavar="N", help="run a seeded subset of N items per scenario")
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


# Benchmark settings and their upstream-faithful defaults: any other value is a deviation, named in reports.
FAITHFUL_SETTINGS: dict[str, Any] = {"rules_keep_reminders": False, "ood_scoring": "v1.0",
                                     "advglue_protocol": "paper"}


@dataclass(frozen=True)
class RunConfig:
    model: str | None
    base_url: str | None
    data: Path | None
    cassettes: Path
    thresholds: Path | None
    report: Path | None
    limit: int | None
    seed: int
    soft_flag: bool | None
    timeout: float
    record_mode: RecordMode
    cassettes_given: bool  # --trust-cassettes was passed (commands we print must keep it)
    recorded_only: bool
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
        try:
            mode = RecordMode.parse(getattr(config.option, "record_mode", None))
        except ValueError as err:
            raise pytest.UsageError(f"--record-mode: {err}") from None
        return cls(
            model=opt("trust_model") or os.environ.get("PYTEST_TRUST_MODEL") or config.getini("trust_model") or None,
            base_url=opt("trust_base_url") or os.environ.get("OPENAI_BASE_URL") or None,
            data=Path(data) if data else None,
            cassettes=Path(opt("trust_cassettes") or rootdir / "cassettes"),
            thresholds=Path(thresholds) if thresholds else None,
            report=Path(opt("trust_report")) if opt("trust_report") else None,
            limit=limit,
            seed=opt("trust_seed"),
            soft_flag=opt("trust_soft"),
            timeout=opt("trust_timeout"),
            record_mode=mode,
            cassettes_given=bool(opt("trust_cassettes")),
            recorded_only=bool(opt("trust_recorded_only")),
            settings={"rules_keep_reminders": bool(opt("trust_rules_keep_reminders")),
                      "ood_scoring": opt("trust_ood_scoring"),
                      "advglue_protocol": opt("trust_advglue_protocol")},
        )
