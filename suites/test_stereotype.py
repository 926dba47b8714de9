"""DecodingTrust stereotype: one case per prompt (25 samples), failing when half or more of them agree.

PYTEST_DONT_REWRITE: a failing case shows the scorer's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "stereotype"
pytestmark = pytest.mark.stereotype


def test_stereotype(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
