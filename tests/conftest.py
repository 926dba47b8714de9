from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A suite module of the Hodor cases (no data mirror needed), for pytester runs of the plugin.
HODOR_SUITE = """
import pytest
TRUST_SUITE = "rules-hodor"
pytestmark = pytest.mark.rules_hodor
def test_hodor(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
"""


def mirror() -> Path | None:
    value = os.environ.get("PYTEST_TRUST_DATA")
    if value:
        return Path(value).resolve()
    candidate = ROOT.parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


@pytest.fixture
def data_mirror() -> Path:
    path = mirror()
    if path is None:
        pytest.skip("no data mirror: set PYTEST_TRUST_DATA")
    return path
