"""DecodingTrust fairness: one case per benchmark item, judged by DecodingTrust's own parse and score rule.

PYTEST_DONT_REWRITE: a failing case shows the scorer's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "fairness"
pytestmark = pytest.mark.fairness


def test_fairness(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
