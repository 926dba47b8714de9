"""The ``pytest-trust`` console script: cassette housekeeping and imports outside a test run."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .data import DataStore
from .errors import TrustError
from .importers import decodingtrust
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
    importer = sub.add_parser("import", help="write cassettes from another tool's recorded run")
    importer.add_argument("source", choices=["decodingtrust"], help="whose recordings to import")
    importer.add_argument("--model", required=True,
                          help="a model the source recorded, by snapshot id or the source's alias (gpt-4-0314, gpt4)")
    importer.add_argument("--cassettes", default="cassettes", type=Path, help="cassette root (default: cassettes)")
    importer.add_argument("--data", type=Path, default=os.environ.get("PYTEST_TRUST_DATA"),
                          help="benchmark data mirror (default: $PYTEST_TRUST_DATA)")
    importer.add_argument("--only", action="append", choices=decodingtrust.PERSPECTIVES, metavar="PERSPECTIVE",
                          help="import only this perspective (repeatable; default: every perspective)")
    args = parser.parse_args(argv)
    if args.command == "import":
        return _import(args)
    root = model_dir(args.cassettes, args.model)
    if args.command == "merge":
        print(f"merged {merge_journals(root)} item(s) into {root}")
        return 0
    for path in sorted(root.glob("*/*.json")):
        by_item = read_cassette(path)
        print(f"{path.relative_to(root)}\t{len(by_item)} items\t{sum(map(len, by_item.values()))} interactions")
    return 0


def _import(args: argparse.Namespace) -> int:
    data = DataStore(Path(args.data) if args.data else None)
    try:
        report = decodingtrust.import_model(data, args.model, args.cassettes, args.only or decodingtrust.PERSPECTIVES,
                                            progress=lambda line: print(line, file=sys.stderr))
    except TrustError as err:
        print(f"pytest-trust import: {err}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    total = sum(s.imported for s in report.scenarios.values())
    print(f"{total} items imported into {model_dir(args.cassettes, report.model)} ({len(report.files)} files); "
          f"replay with: pytest suites/ --model {report.model}"
          + (f" --trust-cassettes {args.cassettes}" if str(args.cassettes) != "cassettes" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
