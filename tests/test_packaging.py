"""What the built wheel carries: the plugin, its data pins, the workflow templates of init, and the suites a
project runs with --pyargs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_ships_the_suites_and_the_data_pins(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True)
    [wheel] = tmp_path.glob("pytest_trust-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"pytest_trust/suites/__init__.py", "pytest_trust/suites/test_trust.py", "pytest_trust/plugin.py",
            "pytest_trust/data/manifest.tsv", "pytest_trust/cli/templates/workflow.yml",
            "pytest_trust/cli/templates/setup-steps.yml"} <= names
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "trust = pytest_trust.plugin" in zipfile.ZipFile(wheel).read(entry_points).decode()
