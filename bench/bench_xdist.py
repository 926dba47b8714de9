#!/usr/bin/env python
"""Replay of the committed cassettes with ``-n 2`` against ``-n 0``, in alternating rounds (not a test).

    python bench/bench_xdist.py [--rounds 3] [--model smollm2-135m-instruct]

Each round runs ``pytest suites/ --trust-recorded-only --block-network --trust-soft -q --tb=no`` once with
``-n 0`` and once with ``-n 2``, the two in alternating order (so a change in the machine's other load hits both
alike), and counts per run: wall seconds, CPU seconds of the whole process tree (user + sys, the workers
included) and user-space instructions retired (``perf stat``, which follows the workers), where perf can count.
A plugin (bench_processes.py) reports each process's CPU at the end of its collection and at exit: a worker
collects the whole item set (about 264,000 items, nearly all deselected by --trust-recorded-only) before it
runs its share, so collection is paid once per worker, and the controller pays for every report it receives.

The RATIO is the median over the rounds of (wall with -n 2) / (wall with -n 0) of the same round, target 1.0:
``RATIO xdist_n2_over_n0 <measured> 1.00``. On a machine with 2 cores, 3 busy processes (controller, two
workers) share them, so the script also prints what the counts imply there, idle: the -n 2 wall is at least the
larger of half its CPU and a worker's CPU, the -n 0 wall about its CPU. Exit status 1 if the ratio is above 1.0.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
TARGET = 1.0


def run(workers: int, model: str, tmp: Path, perf: bool) -> dict:
    processes, perf_out = tmp / "processes.jsonl", tmp / "perf.txt"
    processes.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "suites/", "--trust-recorded-only", "--block-network", "--trust-soft",
               "-q", "--tb=no", "-p", "no:cacheprovider", "--model", model, "-n", str(workers), "-p", "bench_processes"]
    if perf:
        command = ["perf", "stat", "-e", "instructions:u", "-x", ",", "-o", str(perf_out), "--", *command]
    env = {**os.environ, "BENCH_PROCESSES_FILE": str(processes),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(BENCH), os.environ.get("PYTHONPATH")]))}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"-n {workers} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    summary = done.stdout.strip().splitlines()[-1].strip("= ")
    instructions = None
    if perf:
        for line in perf_out.read_text().splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
                instructions = int(fields[0])
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
            "instructions": instructions, "summary": summary,
            "processes": [json.loads(line) for line in processes.read_text().splitlines()]}


def perf_works() -> bool:
    if shutil.which("perf") is None:
        return False
    done = subprocess.run(["perf", "stat", "-e", "instructions:u", "-x", ",", "--", sys.executable, "-c", "pass"],
                          capture_output=True, text=True, check=False)
    return done.returncode == 0 and "instructions" in done.stderr and "not supported" not in done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--model", default="smollm2-135m-instruct")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    perf = perf_works()
    tmp = Path(tempfile.mkdtemp(prefix="bench-xdist-"))
    runs: dict[int, list[dict]] = {0: [], 2: []}
    try:
        run(0, args.model, tmp, False)  # warm-up: the item cache, bytecode; not counted
        for r in range(args.rounds):
            for workers in ((0, 2) if r % 2 == 0 else (2, 0)):
                runs[workers].append(run(workers, args.model, tmp, perf))
            print(f"round {r + 1}/{args.rounds}: wall -n 0 {runs[0][-1]['wall']:.1f} s, -n 2 {runs[2][-1]['wall']:.1f} s; "
                  f"CPU -n 0 {runs[0][-1]['cpu']:.1f} s, -n 2 {runs[2][-1]['cpu']:.1f} s", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = statistics.median
    for workers in (0, 2):
        last = runs[workers][-1]
        print(f"-n {workers}: {last['summary']}")
        print(f"  wall {med(r['wall'] for r in runs[workers]):.1f} s, CPU {med(r['cpu'] for r in runs[workers]):.1f} s"
              + (f", {med(r['instructions'] for r in runs[workers]) / 1e9:.1f} G instructions" if perf else "")
              + " (medians)")
        for process in sorted(last["processes"], key=lambda p: p["role"]):
            collected = process["collected_cpu"]
            print(f"  {process['role']:10s} CPU {process['cpu']:5.1f} s"
                  + (f" (collection {collected:.1f} s, then {process['cpu'] - collected:.1f} s)" if collected else "")
                  + f", ran {process['ran']} tests")
    ratios = [two["wall"] / zero["wall"] for zero, two in zip(runs[0], runs[2], strict=True)]
    cpu0, cpu2 = med(r["cpu"] for r in runs[0]), med(r["cpu"] for r in runs[2])
    workers_cpu = max(p["cpu"] for p in runs[2][-1]["processes"] if p["role"].startswith("gw"))
    print(f"wall ratio per round: {', '.join(f'{x:.2f}' for x in ratios)}; CPU -n 2 / -n 0: {cpu2 / cpu0:.2f}")
    print(f"on 2 idle cores: -n 2 at least {max(cpu2 / 2, workers_cpu):.1f} s, -n 0 about {cpu0:.1f} s "
          f"(ratio {max(cpu2 / 2, workers_cpu) / cpu0:.2f})")
    ratio = med(ratios)
    print(f"RATIO xdist_n2_over_n0 {ratio:.2f} {TARGET:.2f}", flush=True)
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
