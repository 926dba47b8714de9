"""The JSON report's ``run`` section: what ran, where and how (the rest of the report is ``RunReport``'s). Schema
documented in docs/report-schema.md."""

from __future__ import annotations

import hashlib
import platform
import time
from collections.abc import Container, Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from ..options import RunConfig

PACKAGES = ("pytest-trust", "pytest", "openai", "vcrpy", "pytest-recording", "pytest-xdist", "numpy",
            "alt-profanity-check")


def scorers(results: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The scorers that judged items (named in their facts: toxicity's), with their versions and item counts,
    so a reader sees what scored the run without reading every item. ``results`` are the items' result payloads
    (or report entries: both hold ``benchmark`` and ``facts``)."""
    counts: dict[tuple[str, str, str], int] = {}
    for entry in results:
        facts = entry.get("facts") or {}
        if facts.get("scorer"):
            key = (entry.get("benchmark") or "", facts["scorer"], facts.get("scorer_version") or "")
            counts[key] = counts.get(key, 0) + 1
    return [{"benchmark": benchmark, "name": name, "version": version or None, "items": n}
            for (benchmark, name, version), n in sorted(counts.items())]


def run_section(cfg: RunConfig, soft: bool, started: float, results: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The report's ``run`` section: what ran, where, how, with which data and versions."""
    results = list(results)
    return {
        "model": cfg.model,
        "endpoint_host": urlsplit(cfg.base_url).hostname if cfg.base_url else None,
        "record_mode": cfg.record_mode.value,
        "soft": soft,
        "limit": cfg.limit,
        "profile": cfg.profile,
        "seed": cfg.seed,
        "shard": cfg.shard_text,
        "settings": cfg.settings,
        "files": project_files(cfg.settings, {entry.get("benchmark") for entry in results}),
        "deviations": cfg.deviations(),
        "system_prompt": cfg.system_prompt.to_dict() if cfg.system_prompt else None,
        "target": cfg.target.to_dict() if cfg.target else None,
        "thresholds": str(cfg.thresholds) if cfg.thresholds else None,
        "data_commits": _data_commits(),
        "versions": _versions(),
        "scorers": scorers(results),
        "python": platform.python_version(),
        "started": _iso(started),
        "finished": _iso(time.time()),
    }


def project_files(settings: Mapping[str, Any], ran: Container[str | None]) -> dict[str, dict[str, str]]:
    """The project's own files that the benchmarks which ran read (a ``path`` setting's: ``trust_rules.yaml``), by
    setting, with the sha256 of their bytes: what those benchmarks send changes with them, as with a system prompt."""
    from ..benchmarks import BENCHMARKS

    files = {}
    for benchmark in BENCHMARKS.values():
        for setting in benchmark.settings if benchmark.name in ran else ():
            path = settings.get(setting.key)
            if setting.path and path is not None and setting.key not in files:
                try:
                    files[setting.key] = {"path": str(path), "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest()}
                except OSError:  # gone since the run read it: nothing to say of it
                    continue
    return files


def _data_commits() -> dict[str, str]:
    from ..data.manifest import data_commits

    return data_commits()


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
