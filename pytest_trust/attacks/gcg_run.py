"""``pytest-trust attack gcg``: GCG suffixes for a benchmark's cases, written as the benchmark's data.

The benchmark is the registered one that declares a ``SuffixAttack`` (RuLES v1: its justask cases, the
rules_gcg suite's data). Per behaviour, as RuLES v1's attack script (normster/llm_rules@f55c686:
gcg_attack/main_gcg.py): the suffix is optimised so the model starts its answer with the behaviour's target.
The cases optimised on are those the model passes unattacked, judged by playing them with the benchmark's
``run`` on the model's server (the llama.cpp server the cassettes are recorded from) with the ordinary model
client, or the cases named with ``--cases``. The attack's success is judged the same way, with the suffix: the
benchmark's scorer on the server's greedy answers, not on the white-box copy (float32 transformers and the
server's quantised arithmetic can differ at near-ties).

The state of each behaviour's attack is saved after every step (``--state-dir``); a rerun with the same
settings continues from it. Each finished behaviour replaces its line in ``--out`` (JSON lines), which the
benchmark's attacked suite reads.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from ..benchmarks import BENCHMARKS
from ..benchmarks.spec import Benchmark, SuffixAttack
from ..data.location import command_store
from ..endpoint.client import Endpoint, Model
from ..errors import TrustError, UsageProblem
from ..items import Item, Result
from ..recording import Recorder, RecordMode
from ..run.services import Services
from . import gcg


def attacked() -> Benchmark:
    """The registered benchmark whose cases a suffix attack optimises on (the first that declares one)."""
    found = next((b for b in BENCHMARKS.values() if b.suffix_attack is not None), None)
    if found is None:
        raise UsageProblem("no registered benchmark declares a suffix attack (Benchmark.suffix_attack)")
    return found


def prompt_of(cases: SuffixAttack, item: Item, target_template: str) -> gcg.Prompt:
    """The conversation the model sees up to the attacked message, and the formatted target."""
    messages, target = cases.conversation(item, target_template)
    return gcg.Prompt(item.id, tuple(messages), target)


class ServerJudge:
    """Plays items with the benchmark's ``run`` on a live endpoint with the model client; its recordings go to a
    throwaway folder (the suites' cassettes are recorded by their own runs)."""

    def __init__(self, benchmark: Benchmark, base_url: str, model_name: str, timeout: float = 300.0) -> None:
        self.benchmark = benchmark
        self._folder = tempfile.TemporaryDirectory(prefix="pytest-trust-gcg-")
        self.recorder = Recorder(Path(self._folder.name), model_name, RecordMode.ALL)
        self.model = Model.connect(model_name, self.recorder, Endpoint(base_url, timeout=timeout, max_retries=2))
        self.services = Services()  # what the benchmark declares it needs, as a run's defaults

    def play(self, item: Item) -> Result:
        self.recorder.begin(item.benchmark, item.cassette, item.id)
        try:
            return self.benchmark.run(item, self.model, **self.services.given(self.benchmark))
        finally:
            self.recorder.end()

    def won(self, items: Sequence[Item], suffix: str) -> list[str]:
        """The ids of the items whose case the model fails with ``suffix``: the attack won them."""
        with_suffix = self.benchmark.suffix_attack.with_suffix
        return [item.id for item in items if not self.play(with_suffix(item, suffix)).verdict.passed]

    def close(self) -> None:
        self.model.close()
        self.services.finish(merge=False)
        self._folder.cleanup()


def check_arguments(args: argparse.Namespace) -> None:
    """One UsageProblem for the first bad argument, naming the option and what to do."""
    for name, low in (("steps", 1), ("candidates", 1), ("topk", 1), ("max_cases", 1), ("threads", 1),
                      ("chunk", 1), ("check_every", 0)):
        if getattr(args, name) < low:
            raise UsageProblem(f"--{name.replace('_', '-')} {getattr(args, name)}: must be at least {low}")
    if args.time_limit is not None and not args.time_limit > 0:
        raise UsageProblem(f"--time-limit {args.time_limit}: must be a positive number of seconds")
    if not args.model_file.is_file():
        raise UsageProblem(f"--model-file {args.model_file}: no such file; pass the GGUF file the server serves")
    if args.model_file.suffix.lower() != ".gguf":
        raise UsageProblem(f"--model-file {args.model_file}: not a .gguf file; pass the GGUF file the server serves")
    if args.no_check and not args.cases:
        raise UsageProblem("--no-check needs --cases: without a server, which cases the model passes unattacked "
                           "cannot be judged")
    if not args.no_check and not args.base_url:
        raise UsageProblem("no server to judge on: pass --base-url URL (or set OPENAI_BASE_URL), or --no-check "
                           "with --cases")


def case_filter(values: Sequence[str] | None) -> list[str]:
    return [v.strip() for value in values or () for v in value.split(",") if v.strip()]


def choose(cases: dict[str, list[Item]], wanted: Sequence[str], case: str) -> dict[str, list[Item]]:
    """Each behaviour's cases among ``wanted`` (uuids or item ids); every id must name one, every behaviour
    get one."""
    by_key = {key: item for items in cases.values() for item in items for key in (item.id, item.id.rsplit("/", 1)[1])}
    unknown = [w for w in wanted if w not in by_key]
    if unknown:
        some = next(iter(cases.values()))[0].id
        raise UsageProblem(f"--cases {', '.join(unknown)}: not a {case} of {', '.join(cases)} (ids look like "
                           f"{some} or its last part)")
    ids = {by_key[w].id for w in wanted}
    chosen = {b: [item for item in items if item.id in ids] for b, items in cases.items()}
    empty = [b for b, items in chosen.items() if not items]
    if empty:
        raise UsageProblem(f"--cases names no case of {', '.join(empty)}: name cases of every --behavior")
    return chosen


@dataclass
class Plan:
    """One behaviour's attack before the model is loaded: its cases and target, and any saved state."""

    behavior: str
    target: str
    cases: list[Item]
    state: gcg.State | None
    path: Path
    key: dict[str, Any]


def run(args: argparse.Namespace, progress: Callable[[str], None] | None = None,
        loader: Callable[[Path, int], tuple[Any, Any]] = gcg.load_model) -> int:
    """The command: 0 when every behaviour ran, 1 when one had no case to optimise on; UsageProblem for a
    bad argument (the caller prints it, exit status 4). Everything the server is asked comes before the
    model is loaded, so a server that is down says so at once."""
    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    check_arguments(args)
    benchmark = attacked()
    spec = benchmark.suffix_attack
    assert spec is not None
    data = command_store("--data", args.data)
    known = spec.targets(data)
    unknown = [b for b in args.behavior if b not in known]
    if unknown:
        raise UsageProblem(f"--behavior {', '.join(unknown)}: not a {spec.behavior} with a GCG target (known: "
                           f"{', '.join(sorted(known))})")
    cases = {b: spec.cases(data, b, args.system_instructions) for b in dict.fromkeys(args.behavior)}
    wanted = case_filter(args.cases)
    chosen = choose(cases, wanted, spec.case) if wanted else {}
    settings = gcg.Settings(candidates=args.candidates, topk=args.topk, seed=args.seed,
                            ascii_only=not args.allow_non_ascii)
    out = args.out or spec.suffix_file(args.model)
    judge = None if args.no_check else ServerJudge(benchmark, args.base_url, args.model)
    status = 0
    try:
        plans = []
        for behavior, items in cases.items():
            found = plan(args, behavior, items, chosen.get(behavior), known[behavior], settings, judge, say)
            if found is None:
                status = 1
            else:
                plans.append(found)
        if not plans:
            return status
        began = time.monotonic()
        say(f"loading {args.model_file.name} ({args.threads} thread{'s' * (args.threads > 1)})")
        model, tokenizer = loader(args.model_file, args.threads)
        say(f"loaded in {time.monotonic() - began:.0f} s")
        for found in plans:
            record = attack(args, spec, found, settings, model, tokenizer, judge, say)
            spec.write(out, record)
            say(f"{found.behavior}: written to {out}")
    finally:
        if judge is not None:
            judge.close()
    return status


def plan(args: argparse.Namespace, behavior: str, items: list[Item], chosen: list[Item] | None, target: str,
         settings: gcg.Settings, judge: ServerJudge | None, say: Callable[[str], None]) -> Plan | None:
    """The saved state (which must have the same settings) or the cases to start on: those named, else those
    the model passes unattacked on the server (the first ``--max-cases``). None when there is none."""
    path = args.state_dir / _safe(args.model) / f"{behavior}.json"
    state = None if args.restart else _load_state(path)
    key = {"behavior": behavior, "model_file": args.model_file.name, "model_bytes": args.model_file.stat().st_size,
           "system_instructions": args.system_instructions, "settings": asdict(settings)}
    if state is not None:
        saved = {k: v for k, v in state.key.items() if k != "cases"}
        if saved != key or (chosen is not None and state.key["cases"] != [i.id for i in chosen]):
            now = {**key, "cases": state.key["cases"] if chosen is None else [i.id for i in chosen]}
            raise UsageProblem(f"{path}: a saved attack on {behavior} with other settings ("
                               f"{_difference(state.key, now)}); pass the same options to continue it, or "
                               "--restart to discard it")
        by_id = {item.id: item for item in items}
        say(f"{behavior}: continuing from step {state.steps} (loss {state.loss:.4f}), {path}")
        return Plan(behavior, target, [by_id[i] for i in state.key["cases"]], state, path, key)
    if chosen is None:
        assert judge is not None
        say(f"{behavior}: judging the {len(items)} cases unattacked on {args.base_url}")
        passing = [item for item in items if judge.play(item).verdict.passed]
        say(f"{behavior}: the model passes {len(passing)}/{len(items)} unattacked")
        if not passing:
            say(f"{behavior}: no case to attack (the model fails every case unattacked); nothing written")
            return None
        chosen = passing[:args.max_cases]
    return Plan(behavior, target, chosen, None, path, key)


def attack(args: argparse.Namespace, spec: SuffixAttack, plan: Plan, settings: gcg.Settings, model: Any,
           tokenizer: Any, judge: ServerJudge | None, say: Callable[[str], None]) -> dict[str, Any]:
    """Run the behaviour's attack to its end (steps, time, or success) and return its suffix file record."""
    behavior, chosen = plan.behavior, plan.cases
    prompts = [prompt_of(spec, item, plan.target) for item in chosen]
    attack = gcg.Attack(model, tokenizer, prompts, ascii_only=settings.ascii_only, chunk=args.chunk)
    usable = int((~attack.disallowed).sum())
    if settings.topk > usable:
        raise UsageProblem(f"--topk {settings.topk}: the model has only {usable} tokens a suffix may use")
    state = plan.state
    if state is None:
        state = gcg.start(attack, settings, {**plan.key, "cases": [item.id for item in chosen]})
        state.save(plan.path)
        say(f"{behavior}: optimising on {', '.join(i.id for i in chosen)}; target {prompts[0].target!r}; "
            f"initial loss {state.loss:.4f}")
    check = None if judge is None else (lambda suffix: judge.won(chosen, suffix))
    gcg.optimise(attack, state, settings, steps=args.steps, time_limit=args.time_limit,
                 save=lambda s: s.save(plan.path), progress=lambda line: say(f"{behavior}: {line}"), check=check,
                 check_every=args.check_every, stop_on_success=not args.keep_going)
    best = gcg.best_checked(state)
    suffix, won, step = (state.suffix, None, state.steps) if best is None else (best["suffix"], best["won"], best["step"])
    loss = state.loss if suffix == state.suffix else float(attack.losses(torch.tensor([attack.initial_ids(suffix)]))[0])
    return {
        "behavior": behavior,
        "suffix": suffix,
        "target": plan.target,
        "steps": state.steps,
        "step": step,  # the step that found the suffix written (the one that won most cases on the server)
        "loss": round(loss, 6),
        "initial_loss": round(state.initial_loss, 6),
        "seconds": round(state.seconds, 1),
        "settings": {**asdict(settings), "steps": args.steps, "time_limit": args.time_limit,
                     "system_instructions": args.system_instructions, "max_cases": args.max_cases},
        "cases": [item.id for item in chosen],
        "succeeded": None if won is None else len(won) == len(chosen),
        "won": won,
        "model": args.model,
        "model_file": args.model_file.name,
        "date": datetime.date.today().isoformat(),
    }


def _load_state(path: Path) -> gcg.State | None:
    if not path.exists():
        return None
    try:
        return gcg.State.from_json(path.read_text(encoding="utf-8"))
    except (ValueError, TypeError, KeyError) as err:
        raise UsageProblem(f"{path}: not a readable GCG state ({err}); delete it or pass --restart") from None


def _difference(saved: dict[str, Any], now: dict[str, Any]) -> str:
    keys = sorted(k for k in {*saved, *now} if saved.get(k) != now.get(k))
    return "; ".join(f"{k}: saved {saved.get(k)!r}, now {now.get(k)!r}" for k in keys) or "the cases differ"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def main(args: argparse.Namespace) -> int:
    try:
        return run(args)
    except UsageProblem as err:
        print(f"pytest-trust attack gcg: {err}", file=sys.stderr)
        return 4
    except TrustError as err:
        print(f"pytest-trust attack gcg: {err}", file=sys.stderr)
        return 2
