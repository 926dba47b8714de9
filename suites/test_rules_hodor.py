"""RuLES v1 Hodor, with cases written for pytest-trust (upstream v3 has none); outside the RuLES score.

PYTEST_DONT_REWRITE: a failing case shows the evaluator's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "rules-hodor"
pytestmark = pytest.mark.rules_hodor


def test_rules_hodor(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
