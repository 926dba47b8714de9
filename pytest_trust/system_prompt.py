"""The deployment's own system prompt under test: ``--trust-system-prompt FILE``, or the
``pytest_trust_system_prompt`` hook of the top-level conftest.py (pytest_trust/hookspecs.py).

One rule for every benchmark, applied by the model client to each request (benchmarks never see it):
the prompt goes first in the request's first system message, followed by a blank line and that
message's own text; a request with no leading system message gets the prompt as a new first
message. The table in docs/decisions.md says what follows the prompt for each benchmark.

Recordings are kept per model and prompt: ``cassettes/<model>/`` without a prompt,
``cassettes/<model>+prompt-<sha256[:12]>/`` with one, so the old prompt's and the new prompt's
recordings live side by side. The option wins over the hook (the hook is then not called).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SEPARATOR = "\n\n"  # between the deployment prompt and the benchmark's own system text
FOLDER_MARK = "+prompt-"  # cassettes/<model>+prompt-<digest12>/
HOOK = "pytest_trust_system_prompt"
WORKER_KEY = "trust_system_prompt"  # the controller's prompt, handed to xdist workers
Message = Mapping[str, Any]


@dataclass(frozen=True)
class SystemPrompt:
    text: str
    source: str  # the file as given on the command line, or the conftest.py whose hook built it
    from_option: bool = False  # from --trust-system-prompt (a command we print must pass it again)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def folder(self, model: str) -> str:
        """The name of this prompt's recordings folder for ``model`` (under the cassette root)."""
        return f"{model}{FOLDER_MARK}{self.sha256[:12]}"

    def describe(self) -> str:
        """How messages and the terminal name the prompt: its source and the start of its digest."""
        return f"{self.source} (sha256 {self.sha256[:12]})"

    def to_worker(self) -> dict[str, Any]:
        """What an xdist worker is handed (workerinput): the text itself, so every process sends the same."""
        return {"text": self.text, "source": self.source, "from_option": self.from_option}

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's ``run.system_prompt``: where it came from and what it was, not its text."""
        return {"source": self.source, "sha256": self.sha256, "chars": len(self.text)}


def apply(messages: Sequence[Message], prompt: str) -> list[Message]:
    """The request's messages with the deployment prompt in front (the rule in the module docstring).

    A named system message (DecodingTrust's few-shot ``example_user``/``example_assistant`` turns) is a
    demonstration, not instructions: a request that starts with one gets the prompt as a message before it.
    """
    out = list(messages)
    first = out[0] if out else None
    if first is None or first.get("role") != "system" or first.get("name"):
        return [{"role": "system", "content": prompt}, *out]
    content = first.get("content")
    if isinstance(content, str):
        merged: Any = prompt + SEPARATOR + content if content else prompt
    elif isinstance(content, list):  # content parts: the prompt is a text part of its own, first
        merged = [{"type": "text", "text": prompt + SEPARATOR}, *content]
    else:
        merged = prompt
    out[0] = {**first, "content": merged}
    return out


def resolve(config: pytest.Config, invocation_dir: Path) -> SystemPrompt | None:
    """The run's prompt: --trust-system-prompt (relative to where pytest was started), else the hook's, else
    None. An xdist worker takes its controller's, so every process of a run sends the same text."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:  # the controller hands its prompt over, or none when it has none
        handed = workerinput.get(WORKER_KEY)
        return SystemPrompt(handed["text"], handed["source"], handed["from_option"]) if handed else None
    value = config.getoption("trust_system_prompt", None)
    if value:
        return from_file(value, invocation_dir)
    text = config.hook.pytest_trust_system_prompt(config=config)
    if text is None:
        return None
    where = _hook_source(config)
    if not isinstance(text, str):
        raise pytest.UsageError(f"{HOOK} in {where} returned {type(text).__name__}, not the prompt's text: "
                                "return a str, or None for no system prompt")
    text = _normalised(text)
    if not text.strip():
        raise pytest.UsageError(f"{HOOK} in {where} returned an empty prompt: return the prompt's text, "
                                "or None for no system prompt")
    return SystemPrompt(text, where)


def from_file(value: str, invocation_dir: Path) -> SystemPrompt:
    """--trust-system-prompt FILE: its UTF-8 text; an unreadable, non-UTF-8 or empty file is a usage error."""
    path = Path(value).expanduser()
    path = path if path.is_absolute() else invocation_dir / path
    what = f"--trust-system-prompt {value}"
    try:
        data = path.read_bytes()
    except OSError as err:
        raise pytest.UsageError(f"{what}: {path} cannot be read ({err.strerror or err}); pass a UTF-8 text file "
                                "holding the deployment's system prompt") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise pytest.UsageError(f"{what}: {path} is not UTF-8 text (byte {data[err.start]:#04x} at offset "
                                f"{err.start}); save the prompt as UTF-8") from None
    text = _normalised(text)
    if not text.strip():
        raise pytest.UsageError(f"{what}: {path} is empty; write the deployment's system prompt in it, or leave "
                                "the option out to run without one")
    return SystemPrompt(text, value, from_option=True)


def _normalised(text: str) -> str:
    """Line breaks as \\n, without the final line break an editor adds: the same prompt from a file or from
    the hook has the same digest, so the same recordings folder."""
    return text.replace("\r\n", "\n").rstrip("\n")


def _hook_source(config: pytest.Config) -> str:
    """The file of the hook implementation(s), relative to the rootdir where possible."""
    files = []
    for impl in config.hook.pytest_trust_system_prompt.get_hookimpls():
        file = getattr(impl.plugin, "__file__", None)
        if file is None:
            files.append(impl.plugin_name)
            continue
        try:
            files.append(str(Path(file).relative_to(config.rootpath)))
        except ValueError:
            files.append(str(file))
    return ", ".join(files) or "a plugin"
