"""The options of ``pytest-trust attack gcg`` (no torch here: the parser is built without the extra)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..data import location


def add_gcg_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model-file", type=Path, required=True, metavar="PATH.gguf",
                        help="the model's weights and tokenizer as one GGUF file (the file the server serves)")
    parser.add_argument("--model", required=True, metavar="NAME",
                        help="the model's name as the suites run it (--model): named in requests and in the "
                             "default --out file")
    parser.add_argument("--behavior", action="append", required=True, metavar="NAME",
                        help="a RuLES v1 behaviour (justask file stem, e.g. Encryption); repeatable")
    parser.add_argument("--steps", type=int, default=500, help="GCG steps in all, counting a resumed run's "
                        "(default 500, as upstream)")
    parser.add_argument("--time-limit", type=float, metavar="SECONDS",
                        help="stop a behaviour's attack before a step would pass this many seconds of this run")
    parser.add_argument("--candidates", type=int, default=512, help="candidate suffixes per step (default 512)")
    parser.add_argument("--topk", type=int, default=256, help="tokens per position to sample from (default 256)")
    parser.add_argument("--seed", type=int, default=20, help="the sampler's seed (default 20, as upstream)")
    parser.add_argument("--cases", action="append", metavar="ID",
                        help="optimise on these justask cases (uuid or item id; repeatable, comma-separated) "
                             "instead of judging which the model passes unattacked")
    parser.add_argument("--max-cases", type=int, default=1,
                        help="optimise on at most this many of the cases passed unattacked, in file order "
                             "(default 1; each one adds a step's cost)")
    parser.add_argument("--system-instructions", action="store_true",
                        help="the rules as the system message (upstream --use_system_instructions)")
    parser.add_argument("--allow-non-ascii", action="store_true", help="let the suffix use non-ASCII tokens")
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL"),
                        help="the model's server, for judging (default: $OPENAI_BASE_URL)")
    parser.add_argument("--check-every", type=int, default=10, metavar="N",
                        help="judge the suffix on the server every N steps and at the end (default 10)")
    parser.add_argument("--no-check", action="store_true",
                        help="never judge on the server (needs --cases; the output says success unknown)")
    parser.add_argument("--keep-going", action="store_true",
                        help="do not stop when the suffix wins every case it is optimised on")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--chunk", type=int, default=64, help="candidates per forward pass (default 64)")
    parser.add_argument("--state-dir", type=Path, default=_default_state_dir(),
                        help="where each attack's state is saved after every step (default: the user cache)")
    parser.add_argument("--restart", action="store_true", help="discard saved state and start again")
    parser.add_argument("--out", type=Path,
                        help="suffix file to write (default: the rules_gcg suite's data file for --model)")
    parser.add_argument("--data", type=Path, metavar="DIR", help=location.OPTION_HELP)



def _default_state_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-trust" / "gcg"
