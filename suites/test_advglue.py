"""DecodingTrust advglue: one case per benchmark item, judged by DecodingTrust's own parse and score rule.

PYTEST_DONT_REWRITE: a failing case shows the scorer's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "advglue"
pytestmark = pytest.mark.advglue


def test_advglue(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
