#!/usr/bin/env python
"""The gain of concurrent recording against the local model, measured (not a test).

    python bench/bench_local_model.py [--items N] [--servers K] [--rounds R]

Records the same N DecodingTrust OOD items (single calls, --trust-limit 27, the first N ids) from the
local llama.cpp server (scripts/local_model.py: single slot, one thread) twice into fresh folders:
with one server, one item at a time; and with K servers behind one comma-separated base URL at
--trust-concurrency K. Each recording's time is its run's wall time minus a replay of it. R rounds (default 3),
the two recordings in alternating order, give R gains; their median is printed as
``RATIO local_model_concurrency_gain <sequential/concurrent> <target>`` where the target is 0.8 K
(a core per server), whether the two recordings hold the same answers (the server's ids, timestamps and timings
differ from run to run), and exits 1 when the gain is below target or an answer differs. Needs the data mirror (PYTEST_TRUST_DATA).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_trust.recording.cassettes import read_cassette

MODEL = "smollm2-135m-instruct"
FIRST_PORT = 18180


def run(args: list[str], cassettes: Path) -> float:
    command = [sys.executable, "-m", "pytest", *args, "-q", "--tb=no", "-p", "no:cacheprovider", "--model", MODEL,
               "--trust-cassettes", str(cassettes), "--trust-soft"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"pytest failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def record(ids: list[str], urls: list[str], concurrency: int, cassettes: Path) -> float:
    recorded = run([*ids, "--record-mode=once", "--trust-base-url", ",".join(urls),
                    "--trust-concurrency", str(concurrency)], cassettes)
    return recorded - run([*ids, "--block-network"], cassettes)


def answers(cassettes: Path) -> dict[tuple[str, str, int], list[str]]:
    """Each recorded request's answer texts (the server's ids, timestamps and timings differ run to run)."""
    texts = {}
    for path in cassettes.rglob("*.json"):
        for item_id, interactions in read_cassette(path).items():
            for i in interactions:
                body = json.loads(i["response"]["body"]["string"])
                texts[item_id, i["digest"], i["episode"]] = [c["message"]["content"] for c in body["choices"]]
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=24)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="pairs of recordings; the gain is their median")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    listed = subprocess.run([sys.executable, "-m", "pytest", "suites/test_ood.py", "--trust-limit", "27",
                             "--collect-only", "-q", "-p", "no:cacheprovider", "--model", MODEL],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    ids = [line for line in listed.stdout.splitlines() if "::" in line][: args.items]
    ports = [FIRST_PORT + i for i in range(args.servers)]
    urls = [f"http://127.0.0.1:{port}/v1" for port in ports]
    for port in ports:
        subprocess.run([sys.executable, "scripts/local_model.py", "start", "--port", str(port)], cwd=ROOT, check=True)
    try:
        gains, same = [], True
        for r in range(args.rounds):
            with tempfile.TemporaryDirectory(prefix="trust-bench-local-") as tmp:
                one_dir, many_dir = Path(tmp) / "one", Path(tmp) / "many"
                if r % 2:  # alternate which goes first, so a change in the machine's load hits both alike
                    many = record(ids, urls, args.servers, many_dir)
                    one = record(ids, urls[:1], 1, one_dir)
                else:
                    one = record(ids, urls[:1], 1, one_dir)
                    many = record(ids, urls, args.servers, many_dir)
                same &= answers(one_dir) == answers(many_dir)
            gains.append(one / many)
            print(f"round {r + 1}: {len(ids)} OOD items: one server {one:.1f} s, {args.servers} servers at "
                  f"concurrency {args.servers} {many:.1f} s, gain {one / many:.2f}", flush=True)
    finally:
        for port in ports:
            subprocess.run([sys.executable, "scripts/local_model.py", "stop", "--port", str(port)], cwd=ROOT,
                           check=False)
    gain, target = statistics.median(gains), 0.8 * args.servers
    print(f"median gain of {args.rounds} round(s): {gain:.2f}; same answers in every round: {same}")
    print(f"RATIO local_model_concurrency_gain {gain:.2f} {target:.2f}")
    return 0 if gain >= target and same else 1


if __name__ == "__main__":
    sys.exit(main())
