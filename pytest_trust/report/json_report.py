"""The JSON report: the input of baselines and merges. Schema documented in docs/report-schema.md."""

from __future__ import annotations

import platform
import time
from importlib import metadata
from typing import Any
from urllib.parse import urlsplit

from ..report_file import SCHEMA, SCHEMA_VERSION

PACKAGES = ("pytest-trust", "pytest", "openai", "vcrpy", "pytest-recording", "pytest-xdist", "numpy",
            "alt-profanity-check")


def items(trust: Any) -> list[dict[str, Any]]:
    """Every reported test of the run, with its benchmark item's verdict and facts: what a baseline
    comparison pairs and what `pytest-trust report merge` recomputes the metrics from."""
    return [record.to_entry() for record in trust.reported()]


def scorers(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The scorers that judged items (named in their facts: toxicity's), with their versions and item counts,
    so a reader sees what scored the run without reading every item."""
    counts: dict[tuple[str, str, str], int] = {}
    for entry in entries:
        facts = entry.get("facts") or {}
        if facts.get("scorer"):
            key = (entry.get("benchmark") or "", facts["scorer"], facts.get("scorer_version") or "")
            counts[key] = counts.get(key, 0) + 1
    return [{"benchmark": benchmark, "name": name, "version": version or None, "items": n}
            for (benchmark, name, version), n in sorted(counts.items())]


def build(trust: Any) -> dict[str, Any]:
    cfg = trust.config
    entries = items(trust)
    report: dict[str, Any] = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "run": {
            "model": cfg.model,
            "endpoint_host": urlsplit(cfg.base_url).hostname if cfg.base_url else None,
            "record_mode": cfg.record_mode.value,
            "soft": trust.soft,
            "limit": cfg.limit,
            "profile": cfg.profile,
            "seed": cfg.seed,
            "shard": getattr(cfg, "shard_text", None),
            "settings": cfg.settings,
            "deviations": cfg.deviations(),
            "system_prompt": cfg.system_prompt.to_dict() if getattr(cfg, "system_prompt", None) else None,
            "thresholds": str(cfg.thresholds) if cfg.thresholds else None,
            "data_commits": _data_commits(),
            "versions": _versions(),
            "scorers": scorers(entries),
            "python": platform.python_version(),
            "started": _iso(trust.started),
            "finished": _iso(time.time()),
        },
        "counts": trust.item_counts(),
        "irregular_answers": trust.irregular_answers(),
        "lost": sorted(trust.lost),
        "metrics": {key: m.to_dict() for key, m in trust.metrics.items()},
        "gates": [g.to_dict() for g in trust.gate_results],
        "items": entries,
    }
    if getattr(trust, "baseline", None) is not None:
        report["baseline"] = trust.baseline
    return report


def _data_commits() -> dict[str, str]:
    from ..data.manifest import manifest

    return {pin.source: f"{pin.repository}@{pin.commit}" for pin in manifest().values()}


def _versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))
