#!/usr/bin/env python
"""Replay cost of the 1,695 RuLES cases against its floor, side by side in one run (not a test).

  ours : pytest suites/test_rules.py -m rules -p no:cacheprovider -q --block-network --model M --trust-cassettes DIR
  floor: the same items, ids, protocol and openai calls in a generated suite (floor_conftest.py, floor_module.py)
         whose model is a plain OpenAI client over an in-process httpx2.MockTransport with canned answers,
         run with -p no:trust (no vcrpy, no disk, no replay layer).

Both sides load the same other plugins: pytest-recording (needed for --block-network on our side, so the floor
loads it too and gets --block-network as well), xdist (unused), pytester (our pyproject's addopts), and
bench_count.py, which counts the client's POSTs to /chat/completions so the script can assert both sides made the same
number. cacheprovider is off on both.

Cassettes: by default a full set is recorded into a temp dir first, by our plugin in record mode against a
local canned-answer HTTP server (127.0.0.1, free port) that answers every request with the same bytes the
floor's MockTransport returns, so both sides play the same turns. --cassettes DIR --model M replays existing
cassettes instead; the floor then answers each request body with the recorded response body (a dict lookup).

Measurement: R rounds (default 3; --quick: 1), round-robin over four runs: each side on all items and on
the --trust-limit 1 subset (one item per scenario, 19 items; the floor selects the same subset). CPU is
user+sys of the child (getrusage(RUSAGE_CHILDREN) deltas), wall is perf_counter; medians are reported.
Per-item = (full - subset) / (item difference), i.e. startup subtracted. The headline ratio is the per-item
CPU ratio ours/floor; exit status 1 if it is above --max-ratio (default 1.5).

  /work/venv/bin/python bench/bench_replay.py [--rounds R | --quick] [--cassettes DIR --model M] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pytest_trust.recording.cassettes import model_dir

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PYTEST = str(Path(sys.executable).parent / "pytest")
DEFAULT_DATA = os.environ.get("PYTEST_TRUST_DATA") or str(REPO.parent / "shared" / "data")
CANNED_MODEL = "bench-canned"
# The one reply of the canned server and of the floor's MockTransport: a chat completion in OpenAI's shape.
CANNED_TEXT = "I am sorry, but I cannot help with that request."
COMMON = ["-m", "rules", "-p", "no:cacheprovider", "-q", "--block-network", "-p", "bench_count"]
SUBSET = 1  # --trust-limit 1: one item per scenario


def canned_body(model: str) -> bytes:
    return json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": CANNED_TEXT},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 12, "total_tokens": 112},
    }, separators=(",", ":")).encode()


# --- cassettes ---------------------------------------------------------------------------------------

class _Canned(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real endpoint
    disable_nagle_algorithm = True  # headers and body go in two writes: avoid Nagle + delayed-ACK stalls
    body = b""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args) -> None:
        pass


def record_cassettes(root: Path, env: dict[str, str]) -> None:
    """Our plugin in record mode against a local canned-answer server in a thread of this process."""
    handler = type("Canned", (_Canned,), {"body": canned_body(CANNED_MODEL)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    port = server.server_address[1]
    assert port != 18080
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        cmd = [PYTEST, "suites/test_rules.py", "-m", "rules", "-p", "no:cacheprovider", "-q",
               "--record-mode=new_episodes", f"--trust-base-url=http://127.0.0.1:{port}/v1",
               f"--trust-cassettes={root}", f"--model={CANNED_MODEL}"]
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        print(f"recorded cassettes into {root} in {time.perf_counter() - started:.1f}s: {summary_line(proc.stdout)}")
        if proc.returncode not in (0, 1):
            sys.exit(f"recording failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    finally:
        server.shutdown()
        server.server_close()


def floor_answers(root: Path, model: str, out: Path) -> None:
    """{request body: response body} of every recorded interaction, for the floor's MockTransport."""
    answers = {}
    for path in sorted((model_dir(root, model) / "rules").glob("*.json")):
        for interaction in json.loads(path.read_text(encoding="utf-8"))["interactions"]:
            body = interaction["request"]["body"]  # keyed canonically: clients order body fields differently
            body = json.loads(body) if isinstance(body, str) else body
            answers[json.dumps(body, sort_keys=True)] = interaction["response"]["body"]["string"]
    out.write_text(json.dumps(answers))


# --- runs --------------------------------------------------------------------------------------------

def summary_line(stdout: str) -> str:
    lines = [line for line in stdout.strip().splitlines() if " in " in line and re.search(r"\d+ (passed|failed)", line)]
    return lines[-1].strip("= ") if lines else "(no summary)"


def outcome_counts(stdout: str) -> dict[str, int]:
    return {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|error|errors|skipped)", summary_line(stdout))}


class Variant:
    def __init__(self, side: str, subset: bool, cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.side, self.subset, self.cmd, self.cwd, self.env = side, subset, cmd, cwd, env
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.calls: int | None = None
        self.outcomes: dict[str, int] | None = None

    @property
    def label(self) -> str:
        return f"{self.side} {'subset' if self.subset else 'full'}"

    def run(self, tmp: Path, keep: bool = True) -> None:
        count_file, out_file = tmp / "count.txt", tmp / "stdout.txt"
        count_file.unlink(missing_ok=True)
        env = {**self.env, "BENCH_COUNT_FILE": str(count_file)}
        with open(out_file, "w") as out:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            proc = subprocess.run(self.cmd, cwd=self.cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        stdout = out_file.read_text(errors="replace")
        if proc.returncode not in (0, 1) or not count_file.exists():
            sys.exit(f"{self.label} failed (exit {proc.returncode}): {' '.join(self.cmd)}\n{stdout[-4000:]}")
        calls, outcomes = int(count_file.read_text()), outcome_counts(stdout)
        if "error" in outcomes or "errors" in outcomes:
            sys.exit(f"{self.label}: errors in the run (a cassette miss?): {summary_line(stdout)}\n{stdout[-4000:]}")
        if self.calls is not None and (calls, outcomes) != (self.calls, self.outcomes):
            sys.exit(f"{self.label}: not deterministic: {calls} calls {outcomes} vs {self.calls} {self.outcomes}")
        self.calls, self.outcomes = calls, outcomes
        if keep:
            self.cpu.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
            self.wall.append(wall)

    @property
    def items(self) -> int:
        return sum(self.outcomes.values())


def child_env(data: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "PYTEST_", "PYTHON")) and k != "COV_CORE_SOURCE"}
    env.update(PYTEST_TRUST_DATA=data, PYTHONPATH=str(BENCH))  # PYTHONPATH: bench_count, both sides
    return env


def build_variants(tmp: Path, cassettes: Path, model: str, answers: Path | None, data: str) -> list[Variant]:
    floor_dir = tmp / "floor"
    floor_dir.mkdir()
    shutil.copy(BENCH / "floor_conftest.py", floor_dir / "conftest.py")
    shutil.copy(BENCH / "floor_module.py", floor_dir / "test_rules.py")
    (floor_dir / "pytest.ini").write_text(  # own rootdir; pytester as in our pyproject's addopts
        "[pytest]\naddopts = -p pytester\nmarkers =\n    rules: RuLES rule-following cases\n")
    canned = tmp / "canned.json"
    canned.write_bytes(canned_body(CANNED_MODEL))
    env = child_env(data)
    floor_env = {**env, "BENCH_MODEL": model, "BENCH_CANNED": str(canned)}
    if answers is not None:
        floor_env["BENCH_ANSWERS"] = str(answers)
    ours = [PYTEST, "suites/test_rules.py", *COMMON, f"--model={model}", f"--trust-cassettes={cassettes}"]
    floor = [PYTEST, "test_rules.py", *COMMON, "-p", "no:trust"]
    return [
        Variant("ours", False, ours, REPO, env),
        Variant("floor", False, floor, floor_dir, floor_env),
        Variant("ours", True, ours + [f"--trust-limit={SUBSET}"], REPO, env),
        Variant("floor", True, floor, floor_dir, {**floor_env, "BENCH_LIMIT": str(SUBSET)}),
    ]


# --- report ------------------------------------------------------------------------------------------

def report(variants: list[Variant], rounds: int, max_ratio: float) -> int:
    by = {(v.side, v.subset): v for v in variants}
    med = statistics.median
    rows, per_item = [], {}
    for side in ("ours", "floor"):
        full, sub = by[(side, False)], by[(side, True)]
        n = full.items - sub.items
        cpu_pi = (med(full.cpu) - med(sub.cpu)) / n * 1000
        wall_pi = (med(full.wall) - med(sub.wall)) / n * 1000
        per_item[side] = (cpu_pi, wall_pi, med(full.cpu), med(full.wall))
        rows.append((side, f"{full.items}/{sub.items}", f"{full.calls}/{sub.calls}",
                     f"{med(full.cpu):.2f}", f"{med(sub.cpu):.2f}", f"{med(full.wall):.2f}", f"{med(sub.wall):.2f}",
                     f"{cpu_pi:.3f}", f"{wall_pi:.3f}"))
    head = ("side", "items full/sub", "calls full/sub", "CPU full s", "CPU sub s", "wall full s", "wall sub s",
            "CPU ms/item", "wall ms/item")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print(f"\nmedians of {rounds} interleaved round(s); per item = (full - subset) / (items full - items subset)")
    for row in (head, *rows):
        print("  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    for v in variants:
        print(f"  {v.label:13s} CPU runs {' '.join(f'{x:.2f}' for x in v.cpu)}   wall runs "
              f"{' '.join(f'{x:.2f}' for x in v.wall)}   outcomes {v.outcomes}")
    o, f = per_item["ours"], per_item["floor"]
    ratio = o[0] / f[0]
    print(f"\nratio ours/floor: per-item CPU {ratio:.2f} (target <= {max_ratio}), per-item wall {o[1] / f[1]:.2f}, "
          f"total CPU {o[2] / f[2]:.2f}, total wall {o[3] / f[3]:.2f}")
    print(f"RATIO replay_rules {ratio:.2f} {max_ratio}")
    return 0 if ratio <= max_ratio else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one round (CI)")
    parser.add_argument("--cassettes", type=Path, help="replay existing cassettes under DIR (with --model)")
    parser.add_argument("--model", help="model of --cassettes (folder DIR/<model>)")
    parser.add_argument("--data", default=os.environ.get("PYTEST_TRUST_DATA", DEFAULT_DATA))
    parser.add_argument("--max-ratio", type=float, default=1.5)
    parser.add_argument("--profile", type=Path, metavar="OUT.prof",
                        help="afterwards, run our full side once under cProfile and write the stats to OUT.prof")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = parser.parse_args()
    if bool(args.cassettes) != bool(args.model):
        parser.error("--cassettes and --model go together")
    rounds = 1 if args.quick else args.rounds
    tmp = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    try:
        if args.cassettes:
            cassettes, model = args.cassettes.resolve(), args.model
            answers = tmp / "answers.json"
            floor_answers(cassettes, model, answers)
        else:
            cassettes, model, answers = tmp / "cassettes", CANNED_MODEL, None
            record_cassettes(cassettes, child_env(args.data))
        variants = build_variants(tmp, cassettes, model, answers, args.data)
        for v in variants:  # warm-up (bytecode, page cache) and the determinism baseline; not timed
            v.run(tmp, keep=False)
        for r in range(rounds):
            order = variants[r % len(variants):] + variants[: r % len(variants)]
            for v in order:
                v.run(tmp)
            print(f"round {r + 1}/{rounds}: " + ", ".join(f"{v.label} {v.cpu[-1]:.2f}s" for v in variants), flush=True)
        ours, floor = variants[0], variants[1]
        print(f"model calls: ours {ours.calls}, floor {floor.calls}; outcomes: ours {ours.outcomes}, "
              f"floor {floor.outcomes}")
        assert ours.calls == floor.calls and variants[2].calls == variants[3].calls, "sides made different calls"
        assert ours.outcomes == floor.outcomes and variants[2].outcomes == variants[3].outcomes, "outcomes differ"
        status = report(variants, rounds, args.max_ratio)
        if args.profile:
            cmd = [sys.executable, "-m", "cProfile", "-o", str(args.profile.resolve()), *ours.cmd]
            subprocess.run(cmd, cwd=ours.cwd, env={**ours.env, "BENCH_COUNT_FILE": str(tmp / "count.txt")},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            print(f"profile of our full run: {args.profile}")
        return status
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
