"""RuLES v1 violation detection: the model judges 1,098 recorded conversations of other models, pass or fail.

PYTEST_DONT_REWRITE: a failing case shows the judgement and the label, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "rules_detection"
pytestmark = pytest.mark.rules_detection


def test_rules_detection(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
