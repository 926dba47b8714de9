"""The ``pytest-trust`` console script: cassette housekeeping outside a test run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .recording.cassettes import model_dir, read_cassette
from .recording.journal import merge_journals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pytest-trust", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("merge", "merge journals left by killed recording runs into the cassettes"),
                       ("list", "count the recorded items and interactions per cassette file")):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("--model", required=True)
        cmd.add_argument("--cassettes", default="cassettes", type=Path)
    args = parser.parse_args(argv)
    root = model_dir(args.cassettes, args.model)
    if args.command == "merge":
        print(f"merged {merge_journals(root)} item(s) into {root}")
        return 0
    for path in sorted(root.glob("*/*.json")):
        by_item = read_cassette(path)
        print(f"{path.relative_to(root)}\t{len(by_item)} items\t{sum(map(len, by_item.values()))} interactions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
