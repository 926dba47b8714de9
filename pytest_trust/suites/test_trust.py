"""One case per item of every registered benchmark suite, each marked with its suite (``-m rules``,
``-m "ood or fairness"``), judged by the benchmark's own scorer. A benchmark installed from another package
(docs/adding-a-benchmark.md) takes part too.

PYTEST_DONT_REWRITE: a failing case shows the scorer's reason, not an assertion rewrite.
"""

TRUST_SUITE = "*"


def test_trust(trust_result):
    assert trust_result.verdict.passed, trust_result.verdict.reason
