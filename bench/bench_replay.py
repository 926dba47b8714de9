#!/usr/bin/env python
"""Replay cost of every benchmark suite against its floor, side by side in one run (not a test).

Per suite S (every one of pytest_trust.benchmarks.SUITES but rules_gcg by default; --benchmark S, repeatable):

  ours : pytest suites/test_S.py -m S -p no:cacheprovider -q --block-network --model M --trust-cassettes DIR
  floor: the same items, ids, benchmark ``run`` and openai calls in a generated suite (floor_conftest.py,
         floor_module.py) whose model is a plain OpenAI client over an in-process httpx2.MockTransport with
         canned answers, run with -p no:trust (no vcrpy, no disk, no replay layer). Toxicity scores with the
         same offline scorer on both sides ($PERSPECTIVE_API_KEY is removed from the children's environment),
         and the benchmark's ``aggregate`` runs over the verdicts at the end, as in our side's session.

Both sides load the same other plugins: pytest-recording (needed for --block-network on our side, so the floor
loads it too and gets --block-network as well), xdist (unused), our pyproject's addopts (pytester in, anyio out),
and bench_count.py, which counts the client's POSTs to /chat/completions so the script can assert both sides made the
same number. cacheprovider is off on both.

Cassettes: by default each suite's are recorded fresh into a temp dir first, by our plugin in record mode against
a local canned-answer HTTP server (127.0.0.1, free port) that answers every request with the same bytes the
floor's MockTransport returns (canned.py: a completion with as many choices as the body's ``n`` asks), so both sides play
the same turns. Our plugin folds the items' verdict failures out of pytest's FAILURES section and short summary
(its account replaces them); the floor folds them too, so neither prints a traceback per failing item. The full run is a --trust-limit per scenario (None: every item) chosen so that (full - subset)
is a few hundred items or more, a signal well above the noise of the suite's start-up (FULL_LIMITS says why per
suite). --cassettes DIR --model M replays existing RuLES cassettes instead (every item; the committed ones of the
local model); the floor then answers each request body with the recorded response body (a dict lookup).

Measurement, per suite: R rounds (default 3; --quick or --metric cachegrind: 1) after one untimed warm-up,
round-robin over four runs: each side on the full set and on the --trust-limit 1 subset (one item per scenario;
the floor selects the same subset). Each run's cost is counted three ways: user-space instructions retired
(``perf stat -e instructions:u`` or valgrind's cachegrind), CPU seconds (user+sys of the run's own process, from
wait4) and wall seconds; medians are reported. Per-item = (full - subset) / (item difference), i.e. start-up
subtracted. The ratio is the per-item cost ours/floor, printed as ``RATIO replay_<suite> <measured> <target>``;
exit status 1 if any is above --max-ratio (default 1.1). It compares instructions where perf can count them
(--metric; else CPU seconds): on a 2-core machine shared with other work, CPU seconds of the same run vary by a
factor of two and moved these ratios from 0.07 to 1.22, while instruction counts hardly move. Where perf cannot
count (a VM), --metric cachegrind counts them with valgrind's cachegrind instead: totals that repeat (two runs of
one script: 0.07% apart) whatever else the machine does, so one round, two runs at a time, and smaller full sets
(CACHEGRIND_LIMITS), as each run is about 12x slower.

  python bench/bench_replay.py [--benchmark S ...] [--rounds R | --quick] [--cassettes DIR --model M]
                               [--metric instructions|cachegrind|cpu] [--profile DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from canned import CANNED_MODEL, canned_body  # this folder is the script's first sys.path entry

from pytest_trust.benchmarks import SUITES
from pytest_trust.recording.cassettes import model_dir

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PYTEST = str(Path(sys.executable).parent / "pytest")
DEFAULT_DATA = os.environ.get("PYTEST_TRUST_DATA") or str(REPO.parent / "shared" / "data")
SUBSET = 1  # --trust-limit 1: one item per scenario
# Except where one item per scenario takes a shortcut the full run does not: fairness computes its parity
# measures with fairlearn only from 2 answers per setting on, a per-setting (not per-item) cost that must be
# in both runs to cancel out of (full - subset).
SUBSETS: dict[str, int] = {"fairness": 2}
# The full run's --trust-limit per suite (None: every item), for a per-item signal well above start-up noise:
FULL_LIMITS: dict[str, int | None] = {
    "rules": None,  # 1,695 cases in 19 scenarios, multi-turn: every item, as before
    "advglue": None,  # 747 items (9 unavailable placeholders): every item
    "ood": 15,  # 555 of 30,842 items in 37 scenarios
    "adv_demonstration": 20,  # 738 of 75,618 in 54 scenarios: more, as loading its items takes ~14 s on each run
    "machine_ethics": 20,  # 461 of 14,110 in 24 scenarios
    "fairness": 40,  # 480 of 2,700 in 12 scenarios
    "toxicity": 10,  # 410 of 49,060 prompts in 41 scenarios, 25 samples each in the 8 non-study ones
    "stereotype": 10,  # 480 of 3,456 in 48 scenarios, 25 samples each
    "privacy": 6,  # 411 of 82,699 in 71 scenarios (3 unavailable)
}
# Under --metric cachegrind: counts repeat to a few parts in 10,000, so 100-150 items above the subset give a per-item
# figure steadier than the CPU-second runs' several hundred; each item costs ~12x more (cachegrind's slowdown).
CACHEGRIND_LIMITS: dict[str, int | None] = {
    "rules": 6, "rules_v1": 4, "rules_detection": 4, "advglue": 25, "ood": 4, "adv_demonstration": 5,
    "machine_ethics": 6, "fairness": 12, "toxicity": 4, "stereotype": 4, "privacy": 3,
}
# rules_gcg's items run only on the model its suffixes were found for (on the canned model every one skips), and
# they are rules_v1 cases with a suffix, played by rules_v1's code: rules_v1 measures that path.
DEFAULT_SUITES = [name for name in SUITES if name != "rules_gcg"]


# --- cassettes ---------------------------------------------------------------------------------------

class _Canned(BaseHTTPRequestHandler):
    """Answers every chat completion with ``canned_body`` (as many choices as the request's ``n``, any ``n``).
    A request it cannot answer gets a 500 saying why (the client retries it, then reports it), never a dropped
    connection; the server is threaded, with a deep accept queue, so no connection waits on another."""

    protocol_version = "HTTP/1.1"  # keep-alive, as a real endpoint
    disable_nagle_algorithm = True  # headers and body go in two writes: avoid Nagle + delayed-ACK stalls

    def do_POST(self) -> None:
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            status, body = 200, canned_body(CANNED_MODEL, int(request.get("n", 1)))
        except Exception as err:  # noqa: BLE001 - said in the answer, for the client's error message
            status, body = 500, json.dumps({"error": {"message": f"canned server: {err!r}"}}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def log_message(self, *args) -> None:
        pass


class _CannedServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        pass  # a client that closed its end (at the end of a run): nothing to say


def record_cassettes(suite: str, root: Path, env: dict[str, str], limit: int | None) -> None:
    """Our plugin in record mode against a local canned-answer server in a thread of this process."""
    server = _CannedServer(("127.0.0.1", 0), _Canned)
    port = server.server_address[1]
    assert port != 18080
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        cmd = [PYTEST, f"suites/test_{suite}.py", "-m", suite, "-p", "no:cacheprovider", "-q",
               "--tb=no", "--record-mode=new_episodes", f"--trust-base-url=http://127.0.0.1:{port}/v1",
               f"--trust-cassettes={root}", f"--model={CANNED_MODEL}",
               *([f"--trust-limit={limit}"] if limit else [])]
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        print(f"{suite}: recorded cassettes in {time.perf_counter() - started:.1f}s: {summary_line(proc.stdout)}",
              flush=True)
        if proc.returncode not in (0, 1) or "error" in summary_line(proc.stdout):
            sys.exit(f"{suite}: recording failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    finally:
        server.shutdown()
        server.server_close()


def floor_answers(root: Path, model: str, benchmark: str, out: Path) -> None:
    """{request body: response body} of every recorded interaction, for the floor's MockTransport."""
    answers = {}
    for path in sorted((model_dir(root, model) / benchmark).glob("*.json")):
        for interaction in json.loads(path.read_text(encoding="utf-8"))["interactions"]:
            body = interaction["request"]["body"]  # keyed canonically: clients order body fields differently
            body = json.loads(body) if isinstance(body, str) else body
            answers[json.dumps(body, sort_keys=True)] = interaction["response"]["body"]["string"]
    out.write_text(json.dumps(answers))


# --- runs --------------------------------------------------------------------------------------------

def summary_line(stdout: str) -> str:
    lines = [line for line in stdout.strip().splitlines()
             if " in " in line and re.search(r"\d+ (passed|failed|skipped|error)", line)]
    return lines[-1].strip("= ") if lines else "(no summary)"


def outcome_counts(stdout: str) -> dict[str, int]:
    return {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|error|errors|skipped)", summary_line(stdout))}


class Variant:
    def __init__(self, suite: str, side: str, subset: bool, cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.suite, self.side, self.subset, self.cmd, self.cwd, self.env = suite, side, subset, cmd, cwd, env
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.instructions: list[int] = []  # user-space instructions (perf stat or cachegrind), when counted
        self.calls: int | None = None
        self.outcomes: dict[str, int] | None = None

    @property
    def label(self) -> str:
        return f"{self.side} {'subset' if self.subset else 'full'}"

    def run(self, tmp: Path, keep: bool = True, counter: str | None = None) -> None:
        """One run; ``counter`` ("instructions": perf stat, "cachegrind": valgrind) also counts its instructions.
        Its files and CPU account are its own, so that runs counted by cachegrind can go side by side."""
        stem = tmp / f"{self.suite}-{self.side}-{'subset' if self.subset else 'full'}"
        count_file, out_file, perf_file = (stem.with_suffix(f".{kind}.txt") for kind in ("count", "stdout", "perf"))
        count_file.unlink(missing_ok=True)
        env = {**self.env, "BENCH_COUNT_FILE": str(count_file)}
        prefix = {"instructions": perf_prefix(perf_file), "cachegrind": CACHEGRIND}.get(counter or "", [])
        cmd = [*prefix, *self.cmd]
        with open(out_file, "w") as out:
            started = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=self.cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(proc.pid, 0)  # this child's own CPU, whatever else runs beside it
            wall = time.perf_counter() - started
            proc.returncode = os.waitstatus_to_exitcode(status)
        stdout = out_file.read_text(errors="replace")
        where = f"{self.suite}, {self.label}"
        if proc.returncode not in (0, 1) or not count_file.exists():
            sys.exit(f"{where} failed (exit {proc.returncode}): {' '.join(self.cmd)}\n{stdout[-4000:]}")
        calls, outcomes = int(count_file.read_text()), outcome_counts(stdout)
        if "error" in outcomes or "errors" in outcomes:
            sys.exit(f"{where}: errors in the run (a cassette miss?): {summary_line(stdout)}\n{stdout[-4000:]}")
        if self.calls is not None and (calls, outcomes) != (self.calls, self.outcomes):
            sys.exit(f"{where}: not deterministic: {calls} calls {outcomes} vs {self.calls} {self.outcomes}")
        self.calls, self.outcomes = calls, outcomes
        if keep:
            self.cpu.append(usage.ru_utime + usage.ru_stime)
            self.wall.append(wall)
            if counter == "instructions":
                self.instructions.append(read_instructions(perf_file))
            elif counter == "cachegrind":
                self.instructions.append(cachegrind_count(stdout, where))

    @property
    def items(self) -> int:
        return sum(self.outcomes.values())


# valgrind's cachegrind counts every user-space instruction the same way each run, whatever else the machine does
# (for machines where perf cannot count: VMs). Without its cache and branch simulation it only counts, about 12x
# slower than a plain run (callgrind, which also builds a call graph: 33x). No output file, only the total.
CACHEGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=no", "--cachegrind-out-file=/dev/null"]
INSTRUCTIONS_READ = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)$", re.MULTILINE)


def cachegrind_count(output: str, where: str) -> int:
    found = INSTRUCTIONS_READ.findall(output)
    if len(found) != 1:  # none: valgrind failed; several: the run started a child process, which this does not add
        sys.exit(f"{where}: cachegrind gave {len(found)} totals, not one:\n{output[-2000:]}")
    return int(found[0].replace(",", ""))


def perf_prefix(out: Path) -> list[str]:
    return ["perf", "stat", "-e", "instructions:u", "-x", ",", "-o", str(out), "--"]


def read_instructions(path: Path) -> int:
    """The count ``perf stat -x ,`` wrote (its first field on the instructions line)."""
    for line in path.read_text().splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
            return int(fields[0])
    sys.exit(f"perf stat counted no instructions: {path.read_text()[-500:]}")


def perf_works() -> bool:
    """Whether ``perf stat`` can count this user's instructions here (perf installed, perf_event_paranoid <= 2)."""
    if shutil.which("perf") is None:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "perf.txt"
        done = subprocess.run([*perf_prefix(out), sys.executable, "-c", "pass"], capture_output=True, check=False)
        return done.returncode == 0 and out.exists() and any(
            line.split(",")[0].isdigit() for line in out.read_text().splitlines() if "instructions" in line)


def child_env(data: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "PYTEST_", "PYTHON")) and k not in ("COV_CORE_SOURCE", "PERSPECTIVE_API_KEY")}
    # PYTHONPATH: bench_count, both sides; one hash seed for every run, so that set and dict orders (and with them
    # the instruction counts) repeat from run to run
    env.update(PYTEST_TRUST_DATA=data, PYTHONPATH=str(BENCH), PYTHONHASHSEED="0")
    return env


def our_addopts() -> str:
    """The addopts of our pyproject, which our side runs with: plugins it loads or not load on the floor too."""
    with open(REPO / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["pytest"]["ini_options"].get("addopts", "")


def build_variants(suite: str, tmp: Path, cassettes: Path, model: str, answers: Path | None, data: str,
                   limit: int | None) -> list[Variant]:
    floor_dir = tmp / f"floor-{suite}"
    floor_dir.mkdir()
    shutil.copy(BENCH / "floor_conftest.py", floor_dir / "conftest.py")
    module = (BENCH / "floor_module.py").read_text().replace("SUITE", suite).replace("MARKER", suite)
    (floor_dir / f"test_{suite}.py").write_text(module)
    (floor_dir / "pytest.ini").write_text(  # own rootdir; our pyproject's addopts (-p pytester -p no:anyio)
        f"[pytest]\naddopts = {our_addopts()}\nmarkers =\n    {suite}: the {suite} suite\n")
    env = child_env(data)
    floor_env = {**env, "BENCH_SUITE": suite, "BENCH_MODEL": model}
    if answers is not None:
        floor_env["BENCH_ANSWERS"] = str(answers)
    common = ["-m", suite, "-p", "no:cacheprovider", "-q", "--block-network", "-p", "bench_count"]
    ours = [PYTEST, f"suites/test_{suite}.py", *common, f"--model={model}", f"--trust-cassettes={cassettes}"]
    floor = [PYTEST, f"test_{suite}.py", *common, "-p", "no:trust"]
    full_ours = ours + ([f"--trust-limit={limit}"] if limit else [])
    full_env = {**floor_env, "BENCH_LIMIT": str(limit)} if limit else floor_env
    return [
        Variant(suite, "ours", False, full_ours, REPO, env),
        Variant(suite, "floor", False, floor, floor_dir, full_env),
        Variant(suite, "ours", True, ours + [f"--trust-limit={SUBSETS.get(suite, SUBSET)}"], REPO, env),
        Variant(suite, "floor", True, floor, floor_dir, {**floor_env, "BENCH_LIMIT": str(SUBSETS.get(suite, SUBSET))}),
    ]


# --- report ------------------------------------------------------------------------------------------

def report(suite: str, variants: list[Variant], rounds: int, max_ratio: float, metric: str) -> float:
    by = {(v.side, v.subset): v for v in variants}
    med = statistics.median
    rows, per_item = [], {}
    for side in ("ours", "floor"):
        full, sub = by[(side, False)], by[(side, True)]
        n = full.items - sub.items
        cpu_pi = (med(full.cpu) - med(sub.cpu)) / n * 1000
        wall_pi = (med(full.wall) - med(sub.wall)) / n * 1000
        ins_pi = (med(full.instructions) - med(sub.instructions)) / n / 1e6 if full.instructions else float("nan")
        per_item[side] = (cpu_pi, wall_pi, med(full.cpu), med(full.wall), ins_pi)
        rows.append((side, f"{full.items}/{sub.items}", f"{full.calls}/{sub.calls}",
                     f"{med(full.cpu):.2f}", f"{med(sub.cpu):.2f}", f"{med(full.wall):.2f}", f"{med(sub.wall):.2f}",
                     f"{cpu_pi:.3f}", f"{wall_pi:.3f}", f"{ins_pi:.2f}"))
    head = ("side", "items full/sub", "calls full/sub", "CPU full s", "CPU sub s", "wall full s", "wall sub s",
            "CPU ms/item", "wall ms/item", "Minstr/item")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print(f"\n{suite}: medians of {rounds} interleaved round(s); per item = (full - subset) / (items full - items subset)")
    for row in (head, *rows):
        print("  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    for v in variants:
        print(f"  {v.label:13s} CPU runs {' '.join(f'{x:.2f}' for x in v.cpu)}   wall runs "
              f"{' '.join(f'{x:.2f}' for x in v.wall)}   Minstr runs "
              f"{' '.join(f'{x / 1e6:.0f}' for x in v.instructions)}   outcomes {v.outcomes}")

    def ratio_of(i: int) -> float:
        o, f = per_item["ours"][i], per_item["floor"][i]
        return o / f if f > 0 else float("inf")

    # minima: on a shared machine other load only adds time, so they show how far noise moves the medians
    least = {side: (min(by[(side, False)].cpu) - min(by[(side, True)].cpu)) for side in ("ours", "floor")}
    least_ratio = least["ours"] / least["floor"] if least["floor"] > 0 else float("inf")
    counted = f"{ratio_of(4):.2f}" if by[("ours", False)].instructions else "not counted"
    print(f"{suite}: ratio ours/floor: per-item instructions {counted}, per-item CPU {ratio_of(0):.2f} "
          f"(of minima {least_ratio:.2f}), per-item wall {ratio_of(1):.2f}, total CPU "
          f"{per_item['ours'][2] / per_item['floor'][2]:.2f}, total wall {per_item['ours'][3] / per_item['floor'][3]:.2f}")
    ratio = ratio_of(4) if metric in ("instructions", "cachegrind") else ratio_of(0)
    print(f"{suite}: the RATIO compares per-item {metric}")
    print(f"RATIO replay_{suite} {ratio:.2f} {max_ratio}", flush=True)  # bench/run.py reads this line
    return ratio


def bench_suite(suite: str, args: argparse.Namespace, rounds: int, tmp: Path) -> float:
    """Record (or read) the suite's cassettes, run its four variants ``rounds`` times, report its ratio."""
    if args.cassettes:
        cassettes, model, limit = args.cassettes.resolve(), args.model, None
        answers = tmp / f"answers-{suite}.json"
        floor_answers(cassettes, model, SUITES[suite].benchmark, answers)
    else:
        limits = CACHEGRIND_LIMITS if args.metric == "cachegrind" else FULL_LIMITS
        cassettes, model, answers, limit = tmp / "cassettes", CANNED_MODEL, None, limits.get(suite)
        record_cassettes(suite, cassettes, child_env(args.data), limit)
    variants = build_variants(suite, tmp, cassettes, model, answers, args.data, limit)
    counter = args.metric if args.metric in ("instructions", "cachegrind") else None
    # Counts by cachegrind do not depend on what runs beside them: two runs at once, one per core. Seconds do.
    with ThreadPoolExecutor(max_workers=2 if args.metric == "cachegrind" else 1) as pool:
        # warm-up (bytecode, page cache) and the determinism baseline; not timed
        list(pool.map(lambda v: v.run(tmp, keep=False), variants))
        for r in range(rounds):
            order = variants[r % len(variants):] + variants[: r % len(variants)]
            list(pool.map(lambda v: v.run(tmp, counter=counter), order))
            print(f"{suite} round {r + 1}/{rounds}: " + ", ".join(f"{v.label} {v.cpu[-1]:.2f}s" for v in variants),
                  flush=True)
    ours, floor = variants[0], variants[1]
    print(f"{suite}: model calls: ours {ours.calls}, floor {floor.calls}; outcomes: ours {ours.outcomes}, "
          f"floor {floor.outcomes}")
    if (ours.calls, variants[2].calls) != (floor.calls, variants[3].calls):
        sys.exit(f"{suite}: the sides made different numbers of model calls")
    if (ours.outcomes, variants[2].outcomes) != (floor.outcomes, variants[3].outcomes):
        sys.exit(f"{suite}: the sides' outcomes differ")
    ratio = report(suite, variants, rounds, args.max_ratio, args.metric)
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
        for v in (ours, floor):
            out = (args.profile / f"{v.side}_{suite}.prof").resolve()
            cmd = [sys.executable, "-m", "cProfile", "-o", str(out), *v.cmd]
            subprocess.run(cmd, cwd=v.cwd, env={**v.env, "BENCH_COUNT_FILE": str(tmp / "count.txt")},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            print(f"{suite}: profile of the {v.label} run: {out}")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", action="append", choices=list(SUITES), metavar="SUITE",
                        help=f"a suite to measure (repeatable; default: {', '.join(DEFAULT_SUITES)})")
    parser.add_argument("--rounds", type=int, help="rounds of the four runs (default 3; 1 with --metric cachegrind)")
    parser.add_argument("--quick", action="store_true", help="one round (CI)")
    parser.add_argument("--cassettes", type=Path, help="replay existing RuLES cassettes under DIR (with --model)")
    parser.add_argument("--model", help="model of --cassettes (folder DIR/<model>)")
    parser.add_argument("--data", default=os.environ.get("PYTEST_TRUST_DATA", DEFAULT_DATA))
    parser.add_argument("--max-ratio", type=float, default=1.1)
    parser.add_argument("--metric", choices=["instructions", "cachegrind", "cpu"],
                        help="what the RATIO compares: user-space instructions retired (perf stat; the default where "
                             "perf can count them: other load on the machine hardly moves it), the same counted by "
                             "valgrind's cachegrind (where perf cannot count; ~12x slower, one round is enough), "
                             "or CPU seconds")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="afterwards, run each side's full set once under cProfile: DIR/{ours,floor}_<suite>.prof")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    args = parser.parse_args()
    if bool(args.cassettes) != bool(args.model):
        parser.error("--cassettes and --model go together")
    suites = args.benchmark or (["rules"] if args.cassettes else DEFAULT_SUITES)
    if args.cassettes and set(suites) - {"rules"}:
        parser.error("--cassettes replays every item of the RuLES suite: pass --benchmark rules, "
                     "or leave --cassettes out to record canned cassettes for the others")
    if args.metric is None:
        args.metric = "instructions" if perf_works() else "cpu"
    elif args.metric == "instructions" and not perf_works():
        parser.error("--metric instructions needs `perf stat` counting instructions:u (install perf, or set "
                     "/proc/sys/kernel/perf_event_paranoid to 2 or less), or pass --metric cpu")
    if args.metric == "cachegrind" and shutil.which("valgrind") is None:
        parser.error("--metric cachegrind needs valgrind (apt-get install valgrind)")
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    rounds = 1 if args.quick else args.rounds or (1 if args.metric == "cachegrind" else 3)
    print(f"per-item cost compared: {args.metric}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    ratios = {}
    try:
        for suite in suites:
            ratios[suite] = bench_suite(suite, args, rounds, tmp)
        if len(ratios) > 1:
            print(f"\nper-item {args.metric} ours/floor: " + ", ".join(f"{s} {r:.2f}" for s, r in ratios.items()))
        return 0 if all(r <= args.max_ratio for r in ratios.values()) else 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
