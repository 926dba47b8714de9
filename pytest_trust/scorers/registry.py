"""The toxicity scorer registry: the built-in scorers, then those other packages install.

A package adds a scorer with an entry point in the ``pytest_trust.scorers`` group naming its ``ScorerSpec``
(the pattern of the benchmark registry, ``pytest_trust.benchmarks``). ``SCORERS`` maps option names to specs;
``PROBLEMS`` says why an installed scorer could not be added (the plugin makes each a usage error).
"""

from __future__ import annotations

from typing import Any

from ..plugins_installed import load_group
from .moderation import SPEC as MODERATION
from .offline import SPEC as OFFLINE
from .perspective import SPEC as PERSPECTIVE
from .spec import ScorerSpec

ENTRY_POINTS = "pytest_trust.scorers"
BUILT_IN: tuple[ScorerSpec, ...] = (OFFLINE, PERSPECTIVE, MODERATION)

SCORERS: dict[str, ScorerSpec] = {}
PROBLEMS: list[str] = []


def register(spec: Any, source: str = "") -> str | None:
    """Add a scorer; the reason it cannot be added, or None."""
    where = f" ({source})" if source else ""
    if not isinstance(spec, ScorerSpec):
        return f"scorer {source} is a {type(spec).__name__}, not a pytest_trust ScorerSpec"
    if spec.name in SCORERS:
        return f"scorer {spec.name!r}{where} is already registered"
    if any(known.report_name == spec.report_name for known in SCORERS.values()):
        return f"scorer {spec.name!r}{where}: its report name {spec.report_name!r} is already another scorer's"
    SCORERS[spec.name] = spec
    return None


def register_installed() -> None:
    load_group(ENTRY_POINTS, register, PROBLEMS)


for _spec in BUILT_IN:
    register(_spec)
register_installed()
