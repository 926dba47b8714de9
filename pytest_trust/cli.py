"""The ``pytest-trust`` console script: cassette housekeeping, imports and the credential audit, outside a test run."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .data import DataStore
from .errors import TrustError
from .importers import decodingtrust
from .recording.audit import audit
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
    auditor = sub.add_parser(
        "audit", help="list credential-shaped strings in recorded files before they are committed or shared",
        description="Scan every file under DIR (cassettes, journals, anything) for credential-shaped strings: "
                    "API keys (OpenAI sk-/sk-proj-, Anthropic sk-ant-, Google AIza, AWS AKIA), OpenAI org ids, "
                    "Bearer tokens, Authorization/api-key/cookie headers with a value, user:password@ in URLs, "
                    "URL query parameters named like a key, token, secret, password or signature. Each finding "
                    "is printed as path:line: kind, with at most a masked prefix of the secret. Exit status 1 "
                    "if anything is found, 0 if nothing is, 2 if DIR is not a directory.")
    auditor.add_argument("dir", type=Path, metavar="DIR", help="folder to scan, e.g. cassettes")
    args = parser.parse_args(argv)
    if args.command == "import":
        return _import(args)
    if args.command == "audit":
        return _audit(args.dir)
    root = model_dir(args.cassettes, args.model)
    if args.command == "merge":
        report = merge_journals(root)
        print(f"merged {report.items} item(s) into {root}")
        for problem in report.problems:
            print(f"pytest-trust merge: {problem}", file=sys.stderr)
        return 1 if report.problems else 0
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


def _audit(root: Path) -> int:
    if not root.is_dir():
        print(f"pytest-trust audit: {root} is not a directory; pass the cassette folder, e.g. cassettes",
              file=sys.stderr)
        return 2
    report = audit(root)
    for finding in report.findings:
        print(finding)
    if report.findings:
        print(f"{len(report.findings)} credential-shaped string(s) in {len({f.path for f in report.findings})} of "
              f"{report.files} files: remove them (or re-record) before committing or sharing {root}",
              file=sys.stderr)
        return 1
    print(f"no credential-shaped strings in {report.files} files under {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
