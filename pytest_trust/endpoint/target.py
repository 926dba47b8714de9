"""The user's application as the target: ``--trust-target module:function`` or the ``pytest_trust_target`` hook.

What users meet is the application's answer (its retrieval, tools, own client and filters), not the model's,
so a recording run calls the application instead of an endpoint. It is served behind a local OpenAI-compatible
HTTP server of its own (``AppServer``, 127.0.0.1): the model client, its retries and timeouts, the breaker,
``--trust-concurrency`` and the recording layer work exactly as for an endpoint, and what is recorded is the
application's answer to the request the benchmark (and the deployment's shaping) built, in the same cassettes.
A replay serves those answers and never imports nor calls the application.

Recordings go to a folder of the application's own (``<model>+app-<sha256[:12]>``): the digest covers the
target's name and the version the user declares (``--trust-target-version``, or the hook's ``(callable,
"v3")``), else the source of the target's module, so an edited application records beside the old one.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

FOLDER_MARK = "+app-"
HOOK = "pytest_trust_target"
OPTION = "--trust-target"
SIGNATURE = "function(messages, params)"


@dataclass(frozen=True)
class Target:
    """The application under test: its name, declared version, digest, and (when recording) the callable."""

    name: str
    version: str | None
    digest: str
    call: Callable[..., Any] | None = None

    def folder(self, recordings: str) -> str:
        """The application's recordings folder, beside the model's (or its prompt's)."""
        return f"{recordings}{FOLDER_MARK}{self.digest[:12]}"

    def describe(self) -> str:
        version = f"version {self.version}; " if self.version else ""
        return f"{self.name} ({version}sha256 {self.digest[:12]})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's ``run.target``."""
        return {"name": self.name, "version": self.version, "sha256": self.digest}


def digest(name: str, version: str | None, source: str | None) -> str:
    """The name and the declared version, else the module's source: what makes two applications different."""
    facts = {"name": name, "version": version} if version else {"name": name, "source": source or ""}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode("utf-8")).hexdigest()


def resolve(config: pytest.Config, rootdir: Path, recording: bool) -> Target | None:
    """The run's target: the option's (imported only when ``recording``), else the hook's; None without one."""
    spec = config.getoption("trust_target")
    version = config.getoption("trust_target_version")
    if spec:
        return _from_option(spec, version, rootdir, recording)
    found = config.pluginmanager.hook.pytest_trust_target(config=config)
    if found is None:
        if version:
            raise pytest.UsageError("--trust-target-version names the version of a target: pass --trust-target "
                                    "module:function too, or return (callable, version) from pytest_trust_target")
        return None
    call, declared = found if isinstance(found, tuple) and len(found) == 2 else (found, None)
    name = f"{getattr(call, '__module__', '?')}:{getattr(call, '__qualname__', type(call).__name__)}"
    _check_callable(call, f"the {HOOK} hook of conftest.py returned {name}")
    declared = version or declared
    module = inspect.getmodule(call)
    source = _source_of(module.__name__) if module is not None and not declared else None
    return Target(name, declared, digest(name, declared, source), call)


def _from_option(spec: str, version: str | None, rootdir: Path, recording: bool) -> Target:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise pytest.UsageError(f"{OPTION} {spec}: expected module:function (say {OPTION} myapp.answer:reply), "
                                "importable from the project root as conftest.py is")
    if str(rootdir) not in sys.path:
        sys.path.insert(0, str(rootdir))
    if not recording:  # a replay serves the recorded answers: the application is not imported
        return Target(spec, version, digest(spec, version, None if version else _source_of(module_name)))
    try:
        module = importlib.import_module(module_name)
    except Exception as err:  # noqa: BLE001 - the user's module: any failure to import it is theirs to fix
        raise pytest.UsageError(f"{OPTION} {spec}: cannot import {module_name} from {rootdir} "
                                f"({type(err).__name__}: {err}); make it importable from the project root") from None
    call = module
    for part in attribute.split("."):
        call = getattr(call, part, None)
        if call is None:
            raise pytest.UsageError(f"{OPTION} {spec}: {module_name} has no {attribute}; name a function of it")
    _check_callable(call, f"{OPTION} {spec}")
    return Target(spec, version, digest(spec, version, None if version else _source_of(module_name)), call)


def _source_of(module_name: str) -> str | None:
    """The module's source, found without importing it (a top-level module; a submodule imports its package)."""
    try:
        found = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    if found is None or not found.origin or not Path(found.origin).is_file():
        return None
    return Path(found.origin).read_text(encoding="utf-8", errors="replace")


def _check_callable(call: Any, what: str) -> None:
    if not callable(call):
        raise pytest.UsageError(f"{what}: is a {type(call).__name__}, not a function; pytest-trust calls it as "
                                f"{SIGNATURE}")
    try:
        inspect.signature(call).bind([], {})
    except TypeError as err:
        raise pytest.UsageError(f"{what}: cannot be called as {SIGNATURE} ({err}); give it two parameters, the "
                                "conversation and the decoding parameters") from None
    except ValueError:  # a builtin without a signature: it is tried when called
        pass


class TargetFault(Exception):
    """What the application did wrong on one request, as one line."""


def answers(call: Callable[..., Any], body: dict[str, Any], run: Callable[[Any], Any]) -> list[str]:
    """The ``n`` answers of the application to one request body; ``run`` awaits a coroutine. One text for
    ``n > 1`` means: call it ``n`` times, in order."""
    messages = body.get("messages") or []
    params = {k: v for k, v in body.items() if k not in ("messages", "model")}
    n = int(params.get("n") or 1)

    def once() -> Any:
        try:
            result = call(messages, dict(params))
            return run(result) if inspect.isawaitable(result) else result
        except Exception as err:  # noqa: BLE001 - the application's own failure: an errored item, named
            raise TargetFault(f"the application raised {type(err).__name__}: {err}") from None

    first = once()
    if isinstance(first, str):
        texts = [first, *(once() for _ in range(n - 1))]
    elif isinstance(first, list) and len(first) == n and all(isinstance(t, str) for t in first):
        texts = first
    else:
        raise TargetFault(f"the application returned {_shown(first)}; return the answer's text (a str), or a list "
                          f"of {n} texts when params['n'] is {n}")
    bad = next((t for t in texts if not isinstance(t, str)), None)
    if bad is not None:
        raise TargetFault(f"the application returned {_shown(bad)} on a later call; return the answer's text (a str)")
    return texts


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:80]}{'...' if len(text) > 80 else ''}"


def completion(body: dict[str, Any], texts: list[str], number: int) -> dict[str, Any]:
    """The chat completion an endpoint would have answered with these texts."""
    return {"id": f"chatcmpl-app-{number}", "object": "chat.completion", "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
                        for i, text in enumerate(texts)]}


@contextmanager
def serving(target: Target) -> Iterator[str]:
    """The application behind an OpenAI-compatible server on 127.0.0.1; yields its base URL. Sync targets run
    in the server's threads (one a request in flight), async ones as tasks of one event loop."""
    import asyncio  # an application target only: a replay never serves one
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    assert target.call is not None
    loop = asyncio.new_event_loop()
    looping = threading.Thread(target=loop.run_forever, name="pytest-trust-app-loop", daemon=True)
    looping.start()
    counter = iter(range(1, sys.maxsize))

    def run(awaitable: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(_awaited(awaitable), loop).result()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                texts = answers(target.call, body, run)
            except TargetFault as fault:
                return self._send(500, {"error": {"message": str(fault), "type": "application_error"}})
            except ValueError as err:
                return self._send(400, {"error": {"message": f"not a JSON request: {err}"}})
            return self._send(200, completion(body, texts, next(counter)))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            if status != 200:
                self.send_header("x-should-retry", "false")  # the application's fault is not transient
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    serving_thread = threading.Thread(target=server.serve_forever, name="pytest-trust-app", daemon=True)
    serving_thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        loop.call_soon_threadsafe(loop.stop)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
