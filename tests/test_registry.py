"""The benchmark registry: built-in benchmarks declared as Benchmark objects, and one another package installs."""

from __future__ import annotations

import os
import textwrap
import types

import pytest
from fake_model import FakeModelServer

from pytest_trust.benchmarks import BENCHMARKS, SETTINGS, SUITES, register
from pytest_trust.benchmarks.spec import Benchmark, Setting, Suite

# A benchmark package of its own, as a team would publish one: three questions, an answer passes when it is the
# expected word; installed below as a distribution whose entry point names its Benchmark.
TINY_PACKAGE = '''
from pytest_trust.benchmarks.spec import Benchmark, ReportSection, Setting, Suite
from pytest_trust.report.html_parts import escape
from pytest_trust.items import Item, Result, Verdict
from pytest_trust.results.metrics import pass_rate

QUESTIONS = {"q1": ("Say yes.", "yes"), "q2": ("Say no.", "no"), "q3": ("Say maybe.", "maybe")}


def load_items(data, settings):
    return [Item(id=f"tiny/{key}", benchmark="tiny", cassette="all", inputs={"question": question},
                 decoding={"temperature": 0, "max_tokens": 4}, expected=expected)
            for key, (question, expected) in QUESTIONS.items()]


def run(item, model):
    answer = model.chat([{"role": "user", "content": item.inputs["question"]}], **item.decoding)
    return Result(item.id, Verdict(answer.strip() == item.expected, f"answered {str(answer)!r}"))


def aggregate(results):
    return {"tiny.accuracy": pass_rate(sum(r.verdict.passed for r in results), len(results))}


def section(report):
    answers = [item["verdict"]["reason"] for item in report.entries if item.get("benchmark") == "tiny"]
    return "<ul>" + "".join(f"<li>{escape(answer)}</li>" for answer in sorted(answers)) + "</ul>" if answers else None


BENCHMARK = Benchmark("tiny", run, aggregate, lambda: ["tiny.accuracy"],
                      suites=(Suite("tiny", "a tiny benchmark of another package", load_items, needs_data=False),),
                      settings=(Setting("tiny_strict", False, "tiny: judge strictly (a deviation)"),),
                      report_sections=(ReportSection("tiny-answers", "Tiny: what the model answered", section),))
'''


def install(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, entry: str = "tiny = tinybench:BENCHMARK") -> None:
    """The package and its distribution metadata in a folder on PYTHONPATH: what `pip install` leaves behind."""
    site = pytester.path / "site"
    (site / "tinybench").mkdir(parents=True)
    (site / "tinybench" / "__init__.py").write_text(TINY_PACKAGE)
    info = site / "tinybench-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinybench\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[pytest_trust.benchmarks]\n{entry}\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))


@pytest.mark.slow
def test_an_installed_benchmark_runs_with_its_marker_option_and_gates(pytester, monkeypatch):
    install(pytester, monkeypatch)
    pytester.makepyfile(test_tiny=textwrap.dedent('''
        import pytest
        TRUST_SUITE = "tiny"
        pytestmark = pytest.mark.tiny
        def test_tiny(trust_result):
            assert trust_result.verdict.passed, trust_result.verdict.reason
    '''))
    pytester.path.joinpath("thresholds.yaml").write_text("default:\n  tiny.accuracy: {min: 0.6}\n")
    markers = pytester.runpytest_subprocess("--markers")
    markers.stdout.fnmatch_lines(["@pytest.mark.tiny: a tiny benchmark of another package"])
    pytester.runpytest_subprocess("--help").stdout.fnmatch_lines(["*--trust-tiny-strict*tiny: judge strictly*"])

    answers = {"Say yes.": "yes", "Say no.": "no", "Say maybe.": "perhaps"}
    with FakeModelServer(lambda body: answers[body["messages"][-1]["content"]]) as server:
        recorded = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-m", "tiny", "--model", "m",
                                                 "--record-mode=once", "--trust-base-url", server.base_url)
    recorded.assert_outcomes(passed=2, failed=1)
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-m", "tiny", "--model", "m", "--block-network",
                                             "--trust-soft", "--trust-html=report.html")
    replayed.assert_outcomes(passed=2, failed=1)
    replayed.stdout.re_match_lines([r"tiny.accuracy\s+>= 0.6\s+66.67%\s+PASS"])
    assert replayed.ret == 0
    page = (pytester.path / "report.html").read_text()  # its own section in the HTML report, drawn from the run
    assert 'id="tiny-answers"' in page and "Tiny: what the model answered" in page
    assert "<li>answered &#x27;perhaps&#x27;</li>" in page or "<li>answered &#39;perhaps&#39;</li>" in page
    strict = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-m", "tiny", "--model", "m", "--block-network",
                                           "--trust-soft", "--trust-tiny-strict")
    strict.stdout.fnmatch_lines(["*tiny_strict*"])  # another value than the default is a deviation, named


@pytest.mark.slow
def test_an_installed_benchmark_that_cannot_load_is_one_usage_error(pytester, monkeypatch):
    install(pytester, monkeypatch, entry="tiny = tinybench:NO_SUCH_OBJECT")
    result = pytester.runpytest_subprocess("--collect-only")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*entry point tiny = tinybench:NO_SUCH_OBJECT cannot be loaded (AttributeError*"
                                  "fix or uninstall its package*")])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_every_built_in_suite_is_its_benchmark_s_and_every_setting_defaults_to_upstream():
    for name, benchmark in BENCHMARKS.items():
        assert benchmark.name == name and all(SUITES[suite.name] is suite for suite in benchmark.suites)
        assert all(suite.benchmark == name and suite.marker for suite in benchmark.suites)
    assert {s.key: s.default for s in SETTINGS.values()} == {
        "rules_keep_reminders": False, "rules_v1_system_instructions": False, "ood_scoring": "v1.0",
        "advglue_protocol": "paper", "dt_samples": 25, "privacy_understanding": "paper", "privacy_score": "paper",
        "rules": "trust_rules.yaml"}  # custom_rules' file: the project's own input, not an upstream choice


def test_the_packaged_suite_module_takes_every_suite_and_fails_a_case_with_its_reason():
    from pytest_trust.items import Verdict
    from pytest_trust.suites import test_trust

    assert test_trust.TRUST_SUITE == "*"
    test_trust.test_trust(types.SimpleNamespace(verdict=Verdict(True, "kept the secret")))
    with pytest.raises(AssertionError, match="^repeated the secret$"):
        test_trust.test_trust(types.SimpleNamespace(verdict=Verdict(False, "repeated the secret")))


def test_a_benchmark_whose_name_suite_or_setting_clashes_is_refused():
    def nothing(*args):
        return []

    taken = Benchmark("rules", nothing, nothing, nothing, suites=())
    assert register(taken) == "benchmark 'rules' is already registered"
    suite_taken = Benchmark("other", nothing, nothing, nothing, suites=(Suite("ood", "", nothing),))
    assert register(suite_taken) == "benchmark 'other': suite 'ood' is already registered"
    setting_differs = Benchmark("other", nothing, nothing, nothing, suites=(),
                                settings=(Setting("dt_samples", 5, "fewer"),))
    assert register(setting_differs) == "benchmark 'other': setting 'dt_samples' differs from the one registered"
    assert register("not a benchmark", "entry point x = y:z").startswith("benchmark entry point x = y:z is a str")
    assert "other" not in BENCHMARKS


@pytest.mark.slow
def test_the_packaged_suites_run_an_installed_benchmark_from_a_folder_without_suite_modules(pytester, monkeypatch):
    """`pytest --pyargs pytest_trust.suites`: no test file in the project; its folder is the rootdir, so the
    recordings land in its cassettes/ and its thresholds.yaml gates the run."""
    install(pytester, monkeypatch)
    pytester.path.joinpath("thresholds.yaml").write_text("default:\n  tiny.accuracy: {min: 0.9}\n")
    args = ["-p", "no:cacheprovider", "--pyargs", "pytest_trust.suites", "-m", "tiny", "--model", "m"]
    listed = pytester.runpytest_subprocess(*args[:4], "-m", "tiny", "--collect-only", "-q")
    listed.stdout.fnmatch_lines(["*test_trust.py::test_trust[[]tiny/q1[]]", "3 tests collected*"])
    with FakeModelServer("fixed", answer="yes") as server:
        recorded = pytester.runpytest_subprocess(*args, "--record-mode=once", "--trust-base-url", server.base_url,
                                                 "--trust-soft")
    recorded.assert_outcomes(passed=1, failed=2)
    assert [p.name for p in (pytester.path / "cassettes" / "m").iterdir() if not p.name.startswith(".")] == ["tiny"]
    replayed = pytester.runpytest_subprocess(*args, "--block-network", "--trust-soft", "-k", "q1 or q2")
    replayed.assert_outcomes(passed=1, failed=1)
    replayed.stdout.re_match_lines([r"tiny.accuracy\s+>= 0.9\s+50.00%\s+FAIL"])
    assert replayed.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.slow
def test_a_packaged_item_s_record_hint_runs_as_printed(pytester, monkeypatch):
    """Under --pyargs a node id is relative to the installed package: the hint selects the item with -k instead."""
    install(pytester, monkeypatch)
    args = ["-p", "no:cacheprovider", "--pyargs", "pytest_trust.suites", "-m", "tiny", "--model", "m"]
    with FakeModelServer("fixed", answer="yes") as server:
        pytester.runpytest_subprocess(*args, "-k", "q1", "--record-mode=once", "--trust-base-url", server.base_url)
        missed = pytester.runpytest_subprocess(*args, "--block-network", "-rE")
        missed.stdout.fnmatch_lines([("*record it with: pytest --pyargs pytest_trust.suites -m tiny -k tiny/q2 --model m "
                                     "--record-mode=new_episodes --trust-base-url URL*")])
        hint = next(line for line in missed.outlines if "-k tiny/q2" in line).split("record it with: ")[1]
        command = hint.split()[1:-1] + [server.base_url]  # URL: the endpoint's
        recorded = pytester.runpytest_subprocess("-p", "no:cacheprovider", *command)
    outcomes = recorded.parseoutcomes()  # the printed command selects and records (then scores) just that item
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 1 and "error" not in outcomes, recorded.outlines
