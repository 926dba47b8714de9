"""The deployment's own system prompt under test: ``--trust-system-prompt FILE``, or the deployment hook of the
top-level conftest.py (``pytest_trust_deployment``, or its shorthand ``pytest_trust_system_prompt``;
pytest_trust/hookspecs.py and pytest_trust/endpoint/deployment.py), which may also put a template around each
user turn and fixed messages first.

One rule for every benchmark, applied by the model client to each request (benchmarks never see it):
the prompt goes first in the request's first system message, followed by a blank line and that
message's own text; a request with no leading system message gets the prompt as a new first
message. The table in docs/decisions.md says what follows the prompt for each benchmark.

Recordings are kept per model and prompt: ``cassettes/<model>/`` without a prompt,
``cassettes/<model>+prompt-<sha256[:12]>/`` with one, so the old prompt's and the new prompt's
recordings live side by side; a deployment that also templates or prefixes the turns records in
``cassettes/<model>+deploy-<sha256[:12]>/``, the digest of all it produced. The option wins over both
hooks' prompt (the prompt hook is then not called; the deployment hook's template and preamble still apply).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from . import deployment
from .deployment import normalised

SEPARATOR = "\n\n"  # between the deployment prompt and the benchmark's own system text
FOLDER_MARK = "+prompt-"  # cassettes/<model>+prompt-<digest12>/
DEPLOY_MARK = "+deploy-"  # cassettes/<model>+deploy-<digest12>/: a prompt with a user template or a preamble
WORKER_KEY = "trust_system_prompt"  # the controller's prompt, handed to xdist workers
Message = Mapping[str, Any]


@dataclass(frozen=True)
class SystemPrompt:
    text: str | None  # None: a deployment that only templates or prefixes the turns
    source: str  # the file as given on the command line, or the conftest.py whose hook built it
    from_option: bool = False  # from --trust-system-prompt (a command we print must pass it again)
    user_template: str | None = None  # the deployment's wrapper of each user turn, "{user}" marking the text
    preamble: tuple[Message, ...] = ()  # fixed messages before the benchmark's turns

    @property
    def prompt_only(self) -> bool:
        """A system prompt alone: its digest and folder are the prompt's, whichever way it was given."""
        return self.user_template is None and not self.preamble

    @property
    def label(self) -> str:
        return "system prompt" if self.prompt_only else "deployment"

    @property
    def sha256(self) -> str:
        if self.prompt_only:
            return hashlib.sha256((self.text or "").encode("utf-8")).hexdigest()
        shaped = {"system_prompt": self.text, "user_template": self.user_template,
                  "preamble": [dict(m) for m in self.preamble]}
        return hashlib.sha256(json.dumps(shaped, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()

    def folder(self, model: str) -> str:
        """The name of this prompt's recordings folder for ``model`` (under the cassette root)."""
        return f"{model}{FOLDER_MARK if self.prompt_only else DEPLOY_MARK}{self.sha256[:12]}"

    def shapes(self) -> list[str]:
        """What it does to each request, in words."""
        return ([*(["system prompt"] if self.text is not None else []),
                 *(["user template"] if self.user_template is not None else []),
                 *([f"preamble of {len(self.preamble)} message(s)"] if self.preamble else [])])

    def describe(self) -> str:
        """How messages and the terminal name the prompt: its source and the start of its digest."""
        if self.prompt_only:
            return f"{self.source} (sha256 {self.sha256[:12]})"
        return f"{self.source} ({', '.join(self.shapes())}; sha256 {self.sha256[:12]})"

    def apply(self, messages: Sequence[Message]) -> list[Message]:
        """The request as the deployment sends it: each user turn in the template, the preamble after the
        benchmark's system message (first, without one), then the prompt by :func:`apply`'s rule."""
        out = list(messages)
        if self.user_template is not None:
            out = [_wrap(m, self.user_template) for m in out]
        if self.preamble:
            first = out[0] if out else None
            at = 1 if first is not None and first.get("role") == "system" and not first.get("name") else 0
            out[at:at] = self.preamble
        return apply(out, self.text) if self.text is not None else out

    def to_worker(self) -> dict[str, Any]:
        """What an xdist worker is handed (workerinput): the text itself, so every process sends the same."""
        return {"text": self.text, "source": self.source, "from_option": self.from_option,
                "user_template": self.user_template, "preamble": [dict(m) for m in self.preamble]}

    @classmethod
    def from_worker(cls, handed: Mapping[str, Any]) -> SystemPrompt:
        return cls(handed["text"], handed["source"], handed["from_option"], handed.get("user_template"),
                   tuple(handed.get("preamble") or ()))

    def to_dict(self) -> dict[str, Any]:
        """The JSON report's ``run.system_prompt``: where it came from and what it was, not its text."""
        named = {"source": self.source, "sha256": self.sha256, "chars": len(self.text or "")}
        return named if self.prompt_only else {**named, "shapes": self.shapes()}


def _wrap(message: Message, template: str) -> Message:
    """A user turn inside the deployment's template; other turns, and content parts, as they are."""
    if message.get("role") != "user" or not isinstance(message.get("content"), str):
        return message
    return {**message, "content": template.replace(deployment.PLACEHOLDER, message["content"])}


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
    """The run's prompt: --trust-system-prompt (relative to where pytest was started), else the deployment
    hook's, else the prompt hook's, else None; the deployment hook's template and preamble in any case. An xdist
    worker takes its controller's, so every process of a run sends the same text."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:  # the controller hands its prompt over, or none when it has none
        handed = workerinput.get(WORKER_KEY)
        return SystemPrompt.from_worker(handed) if handed else None
    value = config.getoption("trust_system_prompt", None)
    shaped = deployment.from_hooks(config, lambda hook: _hook_source(config, hook), ask_prompt=not value)
    if value:
        prompt: SystemPrompt | None = from_file(value, invocation_dir)
    elif shaped and shaped["system_prompt"] is not None:
        prompt = SystemPrompt(shaped["system_prompt"], shaped["prompt_from"])
    else:
        prompt = None
    if not shaped or not (shaped["user_template"] or shaped["preamble"]):
        return prompt
    source = _hook_source(config, deployment.HOOK)
    if prompt is None:
        return SystemPrompt(None, source, user_template=shaped["user_template"], preamble=shaped["preamble"])
    if prompt.source != source:
        source = f"{prompt.source} + {source}"
    return replace(prompt, source=source, user_template=shaped["user_template"], preamble=shaped["preamble"])


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
    text = normalised(text)
    if not text.strip():
        raise pytest.UsageError(f"{what}: {path} is empty; write the deployment's system prompt in it, or leave "
                                "the option out to run without one")
    return SystemPrompt(text, value, from_option=True)


def _hook_source(config: pytest.Config, hook: str) -> str:
    """The file of the hook implementation(s), relative to the rootdir where possible."""
    files = []
    for impl in getattr(config.hook, hook).get_hookimpls():
        file = getattr(impl.plugin, "__file__", None)
        if file is None:
            files.append(impl.plugin_name)
            continue
        try:
            files.append(str(Path(file).relative_to(config.rootpath)))
        except ValueError:
            files.append(str(file))
    return ", ".join(files) or "a plugin"
