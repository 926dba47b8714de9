"""The ``pytest-trust attack`` command line: its options, and the check for the attack extra, without
importing torch (the rest of pytest-trust works without the extra)."""

from __future__ import annotations

import argparse
import sys

from . import MISSING_HINT, missing_extra

USAGE_ERROR = 4


def add_parsers(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    """``attack gcg`` under the console script's subcommands; returns the parsers (for their usage errors)."""
    attack = sub.add_parser("attack", help="white-box attacks that write benchmark data (needs the attack extra)")
    kinds = attack.add_subparsers(dest="attack", required=True, metavar="gcg")
    gcg = kinds.add_parser(
        "gcg", help="GCG suffixes for the RuLES v1 justask cases, against a GGUF model on the CPU",
        description="Per behaviour, optimise a suffix (GCG, as RuLES v1's gcg_attack) that makes the model start "
                    "its answer to the justask cases it passes unattacked with the behaviour's target string, "
                    "judge it on the model's server, and write it as the rules_gcg suite's data. Resumable: the "
                    "state is saved after every step. Exit status 0 when every behaviour ran, 1 when one had no "
                    "case to attack, 2 when the server failed, 4 for a usage error.")
    from .options import add_gcg_arguments

    add_gcg_arguments(gcg)
    return [attack, gcg]


def main(args: argparse.Namespace) -> int:
    missing = missing_extra()
    if missing:
        print(MISSING_HINT.format(missing=", ".join(missing)), file=sys.stderr)
        return USAGE_ERROR
    from . import gcg_run

    return gcg_run.main(args)
