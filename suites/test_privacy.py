"""DecodingTrust privacy: one case per benchmark item, judged by DecodingTrust's own parse and score rule.

PYTEST_DONT_REWRITE: a failing case shows the scorer's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "privacy"
pytestmark = pytest.mark.privacy


def test_privacy(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
