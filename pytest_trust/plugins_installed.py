"""Loading what other packages install into a registry through an entry-point group (benchmarks, scorers)."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any


def load_group(group: str, register: Callable[[Any, str], str | None], problems: list[str]) -> None:
    """Register every entry point of ``group``; each one that cannot load or be registered adds one line to
    ``problems`` (the plugin makes them a usage error, so a broken package is one clear line, not a crash)."""
    for entry in entry_points(group=group):
        source = f"entry point {entry.name} = {entry.value}"
        try:
            loaded = entry.load()
        except Exception as err:  # noqa: BLE001 - any failure of another package's import
            problems.append(f"{source} cannot be loaded ({type(err).__name__}: {err}): fix or uninstall its package")
            continue
        problem = register(loaded, source)
        if problem:
            problems.append(f"{problem}: fix or uninstall its package")
