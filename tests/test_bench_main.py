"""bench/bench_main.py's own parts: its floor must have exactly the outcomes it copies, or every ratio compares
unlike runs. (What it measures is measured by running it, never timed here.)"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location("bench_main", Path(__file__).parent.parent / "bench" / "bench_main.py")
bench = sys.modules["bench_main"] = importlib.util.module_from_spec(SPEC)  # dataclasses look it up there
SPEC.loader.exec_module(bench)


@pytest.mark.parametrize("counts", [{"passed": 3, "failed": 2, "skipped": 1, "error": 2},
                                    {"passed": 4}, {"failed": 1, "skipped": 2}, {"error": 1}])
def test_the_trivial_floor_has_the_outcomes_it_was_made_from(pytester, counts):
    pytester.makepyfile(test_floor=bench.floor_module(counts))
    result = pytester.runpytest("-q", "--tb=no", "-p", "no:cacheprovider", "-p", "no:trust")
    assert bench.outcomes(result.outlines[-1]) == counts


def test_the_counts_line_is_read_as_pytest_writes_it():
    line = "4777 failed, 3061 passed, 31 skipped, 2 errors, 12 deselected in 51.40s"
    assert bench.outcomes(line) == {"failed": 4777, "passed": 3061, "skipped": 31, "error": 2, "deselected": 12}
    assert bench.outcomes("1 error in 0.10s") == {"error": 1}


def test_an_outcome_it_cannot_copy_is_refused():
    with pytest.raises(ValueError, match="xfailed"):
        bench.floor_module({"passed": 1, "xfailed": 1})


def test_the_floor_drops_what_selects_our_items_and_keeps_the_run_flags():
    args = ["suites/", "-m", "stereotype", "--model", "gpt-4-0314", "--trust-cassettes=/tmp/c", "--block-network",
            "-q", "--tb=no", "-p", "no:cacheprovider", "--trust-recorded-only"]
    case = bench.Case("x", args, {}, floor_dir=Path("/floor"))
    command, cwd = case.command("pytest")
    assert command[3:] == ["test_floor.py", "--block-network", "-q", "--tb=no", "-p", "no:cacheprovider",
                           "-p", "no:trust"] and cwd == Path("/floor")


def test_rounds_must_be_positive(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--rounds", "0"])
    assert "--rounds must be 1 or more" in capsys.readouterr().err


def test_the_gpt4_case_of_every_perspective_imports_and_replays_them_all():
    one, every = (bench.gpt4_import(p, Path("/c"), "/data") for p in ("stereotype", "all"))
    assert one[-6:] == ["--only", "stereotype", "--cassettes", "/c", "--data", "/data"] and "--only" not in every
    assert bench.gpt4_replay("stereotype", Path("/c"))[:3] == ["suites/", "-m", "stereotype"]
    assert bench.gpt4_replay("all", Path("/c"))[:3] == ["suites/", "--model", "gpt-4-0314"]
