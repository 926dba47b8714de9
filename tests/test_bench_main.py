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


def measured_case(name: str, ours: tuple[float, float], floor: tuple[float, float]) -> bench.Case:
    """A case whose every round ran in ``ours`` and ``floor`` (wall seconds, peak MB)."""
    case = bench.Case(name, [], {})
    for side, (wall, peak) in (("ours", ours), ("pytest", floor)):
        case.runs[side] = [bench.Run(wall, wall, peak, {"passed": 1}, 0)] * 3
    return case


@pytest.mark.parametrize(("name", "ours", "floor", "lines", "ok"), [
    ("main", (14.0, 390.0), (10.0, 110.0), ["RATIO main_over_pytest 1.40 1.50", "PEAK main 390 110 400"], True),
    ("main", (14.0, 410.0), (10.0, 110.0), ["PEAK main 410 110 400"], False),
    ("rules", (16.0, 90.0), (10.0, 50.0), ["RATIO rules_over_pytest 1.60 1.50", "PEAK rules 90 50 -"], False),
    ("gpt4_all", (12.0, 3100.0), (10.0, 2000.0), ["RATIO gpt4_all_over_pytest 1.20 1.50",
                                                  "RATIO gpt4_all_peak_over_pytest 1.55 1.50"], False),
    ("gpt4_all", (12.0, 2900.0), (10.0, 2000.0), ["RATIO gpt4_all_peak_over_pytest 1.45 1.50"], True),
    # issue 29 sets no target for these: printed, never failing the run
    ("stereotype", (20.0, 70.0), (10.0, 44.0), ["RATIO stereotype_over_pytest 2.00 -", "PEAK stereotype 70 44 -"],
     True),
    ("gpt4_stereotype", (16.0, 100.0), (10.0, 63.0), ["RATIO gpt4_stereotype_over_pytest 1.60 -",
                                                      "RATIO gpt4_stereotype_peak_over_pytest 1.59 -"], True),
])
def test_each_figure_is_held_to_the_target_issue_29_sets_for_its_run(capsys, name, ours, floor, lines, ok):
    assert bench.report([measured_case(name, ours, floor)]) is ok
    printed = capsys.readouterr().out.splitlines()
    assert all(line in printed for line in lines), printed
