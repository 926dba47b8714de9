"""RuLES v3: 1,695 rule-following cases (benign, basic, redteam), each judged by its scenario's evaluator.

PYTEST_DONT_REWRITE: a failing case shows the evaluator's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "rules"
pytestmark = pytest.mark.rules


def test_rules(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
