"""White-box attacks that produce benchmark data: ``gcg`` (the optimiser) and ``rules_gcg`` (its RuLES v1
command). They need the optional ``attack`` extra (torch, transformers, gguf, accelerate); nothing else in
pytest-trust imports them, and this module imports none of it."""

from __future__ import annotations

import importlib.util

EXTRA = ("torch", "transformers", "gguf", "accelerate")
MISSING_HINT = ("pytest-trust attack gcg needs the optional attack extra (missing: {missing}): install torch 2.13.0 "
                "first, its CPU build (an unpinned torch may pull a multi-GB CUDA build), then "
                "pip install 'pytest-trust[attack]'")


def missing_extra() -> list[str]:
    """The attack extra's packages that are not installed."""
    return [name for name in EXTRA if not _installed(name)]


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # an import hook that refuses it, or a module entry without a spec
        return False
