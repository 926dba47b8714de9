"""RuLES v1 as the paper ran it: 2,172 cases (systematic, manual, justask) in 15 scenarios incl. Hodor,
each judged by its v1 scenario's evaluator.

PYTEST_DONT_REWRITE: a failing case shows the evaluator's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "rules_v1"
pytestmark = pytest.mark.rules_v1


def test_rules_v1(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
