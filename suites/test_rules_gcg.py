"""RuLES v1 justask cases with the GCG suffixes found on the model (`pytest-trust attack gcg`); their failure
rate is compared with the same cases unattacked (the rules_v1 justask suite) by an exact McNemar test.

PYTEST_DONT_REWRITE: a failing case shows the evaluator's reason, not an assertion rewrite.
"""

import pytest

TRUST_SUITE = "rules_gcg"
pytestmark = pytest.mark.rules_gcg


def test_rules_gcg(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
