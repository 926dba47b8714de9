"""Where a command finds the benchmark data mirror: one rule for the plugin and every console command.

The command's own option (``--trust-data`` for pytest, ``--data`` for ``pytest-trust import``, ``attack``,
``data fetch``), else ``$PYTEST_TRUST_DATA`` (both relative to the folder the command started in; a path
that is not a folder is a usage error naming the option, so a typo never turns into downloads), else the
``trust_data`` ini option, relative to the rootdir, used only when that folder exists. Files not in the
mirror come from the cache, then a verified download (store.py). Console commands have no pytest config,
so they find the ini file as pytest does (:func:`find_ini`).
"""

from __future__ import annotations

import configparser
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageProblem
from .store import DataStore

ENV = "PYTEST_TRUST_DATA"
INI = "trust_data"
OPTION_HELP = ("benchmark data mirror laid out as <source>/<path>.xz (default: $PYTEST_TRUST_DATA, else the "
               "trust_data ini option if that folder exists); files not in it come from the cache, else a verified "
               "download")


@dataclass(frozen=True)
class DataPlace:
    """The resolved mirror (or None), the ini option's folder when set but absent, and the command's flag,
    which every message about the data names."""

    mirror: Path | None
    flag: str
    missing_ini: Path | None = None


def resolve_path(base: Path, value: str | os.PathLike[str] | None) -> Path | None:
    """``value`` as an absolute path, a relative one taken from ``base``; None when unset or empty."""
    if value is None or str(value) == "":
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def locate(flag: str, option: str | os.PathLike[str] | None, here: Path, ini: str | None = None,
           rootdir: Path | None = None) -> DataPlace:
    """The data mirror by the rule in the module docstring; UsageProblem naming ``flag`` (or the variable)
    for a given path that is not a folder."""
    for name, value in ((flag, option), (ENV, os.environ.get(ENV))):
        path = resolve_path(here, value)
        if path is not None:
            if not path.is_dir():
                raise UsageProblem(f"{name}={value}: {path} is not a directory; point it at the benchmark data "
                                   "mirror (laid out as <source>/<path>.xz), or unset it to read the cache and "
                                   "download pinned files")
            return DataPlace(path, flag)
    path = resolve_path(rootdir or here, ini)
    if path is not None and path.is_dir():
        return DataPlace(path, flag)
    return DataPlace(None, flag, missing_ini=path)


def locate_for_command(flag: str, option: str | os.PathLike[str] | None, here: Path | None = None) -> DataPlace:
    """:func:`locate` for a console command: the ini option is read from the ini file pytest would use here."""
    here = here or Path.cwd()
    rootdir, ini = find_ini(here)
    return locate(flag, option, here, ini, rootdir)


def command_store(flag: str, option: str | os.PathLike[str] | None) -> DataStore:
    """The data store of a console command whose mirror option is ``flag``; UsageProblem for a bad mirror."""
    place = locate_for_command(flag, option)
    return DataStore(place.mirror, missing_mirror=place.missing_ini, flag=place.flag)


def find_ini(start: Path) -> tuple[Path | None, str | None]:
    """(rootdir, the trust_data value) of the first pytest configuration file found from ``start`` upwards, in
    pytest's order (pytest.ini, .pytest.ini, pyproject.toml, tox.ini, setup.cfg); (None, None) if none is."""
    for folder in (start.resolve(), *start.resolve().parents):
        for name in ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
            found, value = _read_ini(folder / name)
            if found:
                return folder, value
    return None, None


def _read_ini(path: Path) -> tuple[bool, str | None]:
    """(whether ``path`` is a pytest configuration file, its trust_data value). An unreadable file counts as
    none: pytest itself reports it when it runs."""
    if not path.is_file():
        return False, None
    try:
        if path.name == "pyproject.toml":
            tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
            table = tool.get("pytest", {})
            section = table.get("ini_options", table) if isinstance(table, dict) else None
            if "pytest" not in tool or not isinstance(section, dict):
                return False, None
            value = section.get(INI)
            return True, str(value) if value is not None else None
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path, encoding="utf-8")
    except (OSError, ValueError, configparser.Error):
        return False, None
    section = {"setup.cfg": "tool:pytest", "tox.ini": "pytest"}.get(path.name, "pytest")
    if not parser.has_section(section):
        return path.name in ("pytest.ini", ".pytest.ini"), None  # pytest.ini counts even without [pytest]
    return True, parser.get(section, INI, fallback=None)
