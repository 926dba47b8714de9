#!/usr/bin/env python
"""Concurrent recording against an endpoint of fixed latency, measured against its ideal (not a test).

    python bench/bench_recording.py [--latency 0.2] [--concurrency 32] [--sequential-items 50] [--rounds 3]

The endpoint is tests/fault_server.py in a process of its own on 127.0.0.1, answering every request
after ``--latency`` seconds. Two workloads, each recorded into a fresh folder by our plugin with
``--trust-concurrency C``, then replayed from that folder with the network blocked:

  single-turn  999 DecodingTrust OOD items (--trust-limit 27: one call each)
  multi-turn   the RuLES suite's 1,695 cases (one call per user turn, turns in order)

Recording time = the recording run's wall time minus the replay run's (the same start-up, collection
and scoring, without the endpoint); ideal = calls x latency / C, or the longest conversation's turns
x latency if that is longer. The sequential time is measured on the first ``--sequential-items``
single-turn items at concurrency 1 and scaled to the whole workload. Each workload is recorded afresh
``--rounds`` times, the workloads taking turns, and its ratio is the median of its rounds: a difference of
two wall times moves with the machine's other load, which the median of rounds shrugs off. Prints, per
workload, ``RATIO recording_<name> <median measured/ideal> <target 1.25>``; exits 1 if one is above it.
Needs the data mirror (PYTEST_TRUST_DATA).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.25
WORKLOADS = {
    "single_turn": ["suites/test_ood.py", "--trust-limit", "27"],
    "multi_turn": ["suites/test_rules.py", "-m", "rules"],
}


def pytest_run(args: list[str], cassettes: Path, report: Path) -> float:
    command = [sys.executable, "-m", "pytest", *args, "-q", "--tb=no", "-p", "no:cacheprovider",
               "--model", "bench-model", "--trust-cassettes", str(cassettes), "--trust-report", str(report)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def calls_and_longest(report: Path, workload: str) -> tuple[int, int, int]:
    """(items, model calls, most calls of one item) from a run's JSON report."""
    items = json.loads(report.read_text())["items"]
    turns = [int(i.get("facts", {}).get("turns", 1)) if workload == "multi_turn" else 1 for i in items]
    return len(items), sum(turns), max(turns)


def measure(name: str, url: str, latency: float, concurrency: int, tmp: Path) -> tuple[float, int, int]:
    cassettes = tmp / name
    shutil.rmtree(cassettes, ignore_errors=True)  # each round records afresh
    recording = ["--record-mode=once", "--trust-base-url", url, "--trust-concurrency", str(concurrency)]
    recorded = pytest_run([*WORKLOADS[name], *recording], cassettes, tmp / f"{name}-record.json")
    replayed = pytest_run([*WORKLOADS[name], "--block-network"], cassettes, tmp / f"{name}-replay.json")
    items, calls, longest = calls_and_longest(tmp / f"{name}-replay.json", name)
    ideal = max(calls * latency / concurrency, longest * latency)
    spent = recorded - replayed
    print(f"{name}: {items} items, {calls} calls, recording {spent:.2f} s (run {recorded:.2f} s - replay "
          f"{replayed:.2f} s), ideal {ideal:.2f} s at concurrency {concurrency}", flush=True)
    return spent / ideal, calls, items


def sequential(url: str, n: int, tmp: Path) -> float:
    """Seconds per call at concurrency 1, from n single-turn items (recording minus replay)."""
    args = ["suites/test_ood.py", "--trust-limit", "27"]
    ids = subprocess.run([sys.executable, "-m", "pytest", *args, "--collect-only", "-q", "-p", "no:cacheprovider",
                          "--model", "bench-model"], cwd=ROOT, capture_output=True, text=True, check=False)
    base = [line for line in ids.stdout.splitlines() if "::" in line][:n]  # node ids
    if len(base) < n:
        sys.exit(f"only {len(base)} OOD items collected:\n{ids.stdout[-2000:]}{ids.stderr[-2000:]}")
    cassettes = tmp / "sequential"
    recorded = pytest_run([*base, "--record-mode=once", "--trust-base-url", url], cassettes, tmp / "seq-record.json")
    replayed = pytest_run([*base, "--block-network"], cassettes, tmp / "seq-replay.json")
    return (recorded - replayed) / len(base)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--sequential-items", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3, help="recordings of each workload; the ratio is their median")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    if not os.environ.get("PYTEST_TRUST_DATA"):
        sys.exit("set PYTEST_TRUST_DATA to the data mirror")
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fault_server.py"), "--latency", str(args.latency)],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory(prefix="trust-bench-rec-") as tmp:
            per_call = sequential(url, args.sequential_items, Path(tmp))
            rounds: dict[str, list[float]] = {name: [] for name in WORKLOADS}
            calls: dict[str, int] = {}
            for _ in range(args.rounds):
                for name in WORKLOADS:
                    ratio, calls[name], _ = measure(name, url, args.latency, args.concurrency, Path(tmp))
                    rounds[name].append(ratio)
            for name in WORKLOADS:
                print(f"{name}: sequential recording would take about {per_call * calls[name]:.0f} s "
                      f"({per_call * 1000:.0f} ms per call measured on {args.sequential_items} items); "
                      f"ratios of the rounds {' '.join(f'{r:.2f}' for r in rounds[name])}")
            ratios = {name: statistics.median(values) for name, values in rounds.items()}
    finally:
        server.terminate()
        server.wait()
    for name, ratio in ratios.items():
        print(f"RATIO recording_{name} {ratio:.2f} {TARGET}")
    return 0 if all(r <= TARGET for r in ratios.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
