"""Greedy Coordinate Gradient (GCG; Zou et al. 2023) on a causal language model, on the CPU.

What RuLES v1 ran (normster/llm_rules@f55c686:gcg_attack/main_gcg.py and utils.py), written anew for a
model loaded by transformers from a GGUF file:

- the suffix is appended after one space to the attacked user message and starts as twenty ``!`` tokens;
- each step takes the gradient of the target's cross-entropy with respect to the one-hot suffix tokens
  (normalised per position), keeps the ``topk`` most promising tokens per position, and samples
  ``candidates`` suffixes that each change one position (positions spread evenly over the suffix, as
  upstream's ``sample_updates``), each token drawn uniformly from that position's top-k;
- only tokens whose text is printable ASCII are used (upstream's default), never a special token;
- a candidate is kept only if its text, put into the prompt, tokenises back to the very same ids
  (upstream's re-tokenisation filter; here checked on the whole rendered prompt of every case);
- the loss is the mean cross-entropy of the target tokens as the start of the assistant's reply.

Differences, each for a reason: the loss of several cases is averaged (upstream re-draws one case's
parameters per step; a fixed set makes losses comparable from step to step); the best candidate
replaces the suffix only when it does not raise the loss, so the loss never increases; the fixed
prompt before the suffix is run once and its key-value cache reused (exact, and it halves a step's
cost); upstream's initial suffix ends with a space, which this tokenizer would make a 21st token
that no decoded suffix keeps, so the twenty ``!`` come without it.

The optimiser knows nothing of pytest, HTTP or RuLES: it takes prompts (messages and a target string)
and gives a suffix. ``State`` is written after every step, so a run that stops continues from it.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

INIT_SUFFIX = " ".join(["!"] * 20)
MARK = "\x00gcg-suffix\x00"  # stands for the suffix while the prompt is rendered
STATE_VERSION = 1
Turn = tuple[str, str]


def load_model(model_file: Path, threads: int = 1) -> tuple[Any, Any]:
    """The model (float32, dequantised, gradients off) and its tokenizer, both from one GGUF file, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(threads)
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    logging.set_verbosity_error()
    logging.disable_progress_bar()
    model_file = Path(model_file)
    with contextlib.redirect_stderr(io.StringIO()):  # the GGUF reader's progress bar, one line per tensor
        tokenizer = AutoTokenizer.from_pretrained(model_file.parent, gguf_file=model_file.name)
        model = AutoModelForCausalLM.from_pretrained(model_file.parent, gguf_file=model_file.name,
                                                     dtype=torch.float32)
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model, tokenizer


@dataclass(frozen=True)
class Prompt:
    """One case to optimise on: the conversation up to the attacked user message (the last one) and the
    reply the attack wants to start the assistant's answer with."""

    case_id: str
    messages: tuple[Turn, ...]
    target: str


class Layout:
    """A prompt's tokens around the suffix: ``before`` (fixed, its cache reused), the suffix, ``after`` (the
    end of the user turn and the assistant header), then the target."""

    def __init__(self, tokenizer: Any, prompt: Prompt) -> None:
        if not prompt.messages or prompt.messages[-1][0] != "user":
            raise ValueError(f"case {prompt.case_id}: the attacked message must be the last one, from the user")
        *head, (_, content) = prompt.messages
        chat = [{"role": r, "content": c} for r, c in head] + [{"role": "user", "content": f"{content} {MARK}"}]
        text = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        if text.count(MARK) != 1:
            raise ValueError(f"case {prompt.case_id}: the chat template does not render the message once")
        self.tokenizer = tokenizer
        self.case_id = prompt.case_id
        self.before, self.after = text.split(" " + MARK)
        self.before_ids = encode(tokenizer, self.before)
        self.after_ids = encode(tokenizer, self.after)
        self.target_ids = encode(tokenizer, prompt.target)
        if not self.target_ids:
            raise ValueError(f"case {prompt.case_id}: empty target")

    def full_text(self, suffix: str) -> str:
        return f"{self.before} {suffix}{self.after}"

    def suffix_ids(self, suffix: str) -> list[int] | None:
        """The suffix's ids in this prompt, or None when it merges with the text around it."""
        ids = encode(self.tokenizer, self.full_text(suffix))
        n_before, n_after = len(self.before_ids), len(self.after_ids)
        if ids[:n_before] != self.before_ids or ids[len(ids) - n_after:] != self.after_ids:
            return None
        return ids[n_before:len(ids) - n_after]


def encode(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False).input_ids)


def suffix_text(tokenizer: Any, ids: Sequence[int]) -> str | None:
    """The suffix whose space-joined text gives ``ids``: their decoded text without its leading space."""
    text = tokenizer.decode(list(ids), skip_special_tokens=False, clean_up_tokenization_spaces=False)
    return text[1:] if text.startswith(" ") else None


def disallowed_tokens(tokenizer: Any, vocab_rows: int, ascii_only: bool = True) -> torch.Tensor:
    """A mask over the embedding rows: True for ids a suffix may not use (special or added tokens, rows past
    the tokenizer's vocabulary, and with ``ascii_only`` every token whose text is not printable ASCII)."""
    mask = torch.zeros(vocab_rows, dtype=torch.bool)
    size = min(len(tokenizer), vocab_rows)
    mask[size:] = True
    for token_id in {*tokenizer.all_special_ids, *getattr(tokenizer, "added_tokens_decoder", {})}:
        if 0 <= token_id < vocab_rows:
            mask[token_id] = True
    if ascii_only:
        texts = tokenizer.batch_decode([[i] for i in range(size)], clean_up_tokenization_spaces=False)
        for token_id, text in enumerate(texts):
            if not (text.isascii() and text.isprintable()) or not text:
                mask[token_id] = True
    return mask


def sample_candidates(ids: torch.Tensor, grad: torch.Tensor, count: int, topk: int, generator: torch.Generator,
                      disallowed: torch.Tensor | None = None) -> torch.Tensor:
    """``count`` suffixes, each ``ids`` with one position changed: candidate i changes position
    floor(i * L / count) to a token drawn uniformly from that position's ``topk`` tokens of most negative
    gradient (disallowed tokens excluded)."""
    grad = grad.clone()
    if disallowed is not None:
        grad[:, disallowed] = math.inf
    top = (-grad).topk(topk, dim=1).indices  # (L, topk)
    length = ids.shape[0]
    positions = torch.div(torch.arange(count) * length, count, rounding_mode="floor")
    picks = torch.randint(0, topk, (count,), generator=generator)
    candidates = ids.repeat(count, 1)
    candidates[torch.arange(count), positions] = top[positions, picks]
    return candidates


def _cache(prefix: Sequence[tuple[torch.Tensor, torch.Tensor]], batch: int) -> Any:
    from transformers import DynamicCache

    return DynamicCache(ddp_cache_data=[(k.expand(batch, -1, -1, -1), v.expand(batch, -1, -1, -1)) for k, v in prefix])


class Attack:
    """The model, its tokenizer and the prompts of one behaviour, with each prompt's cache of its fixed part."""

    def __init__(self, model: Any, tokenizer: Any, prompts: Sequence[Prompt], *, ascii_only: bool = True,
                 chunk: int = 64) -> None:
        if not prompts:
            raise ValueError("no case to optimise on")
        self.model = model
        self.tokenizer = tokenizer
        self.layouts = [Layout(tokenizer, p) for p in prompts]
        self.embeddings = model.get_input_embeddings().weight
        self.disallowed = disallowed_tokens(tokenizer, self.embeddings.shape[0], ascii_only)
        self.chunk = chunk
        self.prefixes = [self._prefix(layout) for layout in self.layouts]

    def _prefix(self, layout: Layout) -> list[tuple[torch.Tensor, torch.Tensor]]:
        with torch.no_grad():
            out = self.model(input_ids=torch.tensor([layout.before_ids]), use_cache=True)
        return [(layer.keys, layer.values) for layer in out.cache.layers]

    def initial_ids(self, suffix: str) -> list[int]:
        """The ids of a starting suffix, which must tokenise alike in every prompt."""
        found = {tuple(ids) if ids is not None else None for ids in (lay.suffix_ids(suffix) for lay in self.layouts)}
        if len(found) != 1 or None in found:
            raise ValueError(f"the suffix {suffix!r} does not tokenise alike in every case")
        return list(found.pop())

    def _tail(self, layout: Layout) -> torch.Tensor:
        return torch.tensor(layout.after_ids + layout.target_ids)

    def gradient(self, ids: Sequence[int]) -> tuple[torch.Tensor, float]:
        """d(mean loss)/d(one-hot suffix), one row per position, each row of unit norm; and the loss."""
        rows = self.embeddings.shape[0]
        total = torch.zeros(len(ids), rows)
        losses = []
        for layout, prefix in zip(self.layouts, self.prefixes, strict=True):
            one_hot = torch.zeros(len(ids), rows)
            one_hot[torch.arange(len(ids)), torch.tensor(ids)] = 1.0
            one_hot.requires_grad_(True)
            tail = self.model.get_input_embeddings()(self._tail(layout))
            embeds = torch.cat([one_hot @ self.embeddings, tail]).unsqueeze(0)
            n_target = len(layout.target_ids)
            out = self.model(inputs_embeds=embeds, cache=_cache(prefix, 1), use_cache=True,
                             logits_to_keep=n_target + 1)
            loss = F.cross_entropy(out.logits[0, :-1], torch.tensor(layout.target_ids))
            (loss / len(self.layouts)).backward()
            total += one_hot.grad
            losses.append(loss.item())
        return total / total.norm(dim=-1, keepdim=True), sum(losses) / len(losses)

    def losses(self, candidates: torch.Tensor) -> torch.Tensor:
        """The mean target loss over the prompts of each candidate suffix (rows of ids)."""
        total = torch.zeros(candidates.shape[0])
        with torch.inference_mode():
            for layout, prefix in zip(self.layouts, self.prefixes, strict=True):
                target = torch.tensor(layout.target_ids)
                tail = self._tail(layout)
                for start in range(0, candidates.shape[0], self.chunk):
                    part = candidates[start:start + self.chunk]
                    ids = torch.cat([part, tail.expand(part.shape[0], -1)], dim=1)
                    out = self.model(input_ids=ids, cache=_cache(prefix, part.shape[0]), use_cache=True,
                                     logits_to_keep=len(target) + 1)
                    logits = out.logits[:, :-1]
                    loss = F.cross_entropy(logits.transpose(1, 2), target.expand(part.shape[0], -1), reduction="none")
                    total[start:start + part.shape[0]] += loss.mean(dim=1)
        return total / len(self.layouts)

    def retokenising(self, candidates: torch.Tensor) -> tuple[torch.Tensor, list[str]]:
        """The candidates whose text tokenises back to the same ids in every prompt, and their texts."""
        kept, texts = [], []
        seen: set[tuple[int, ...]] = set()
        for row in candidates.tolist():
            key = tuple(row)
            if key in seen:
                continue
            seen.add(key)
            text = suffix_text(self.tokenizer, row)
            if text is None:
                continue
            if all(lay.suffix_ids(text) == row for lay in self.layouts):
                kept.append(row)
                texts.append(text)
        return torch.tensor(kept, dtype=torch.long).reshape(len(kept), candidates.shape[1]), texts


@dataclass(frozen=True)
class Settings:
    """What decides the optimisation's path; a state file continues only under the same settings."""

    candidates: int = 512
    topk: int = 256
    seed: int = 20
    ascii_only: bool = True
    init: str = INIT_SUFFIX


@dataclass
class State:
    """Everything a stopped run needs to go on: the suffix, its loss, the steps so far, the random state."""

    key: dict[str, Any]  # the behaviour, settings, model file and case ids the state belongs to
    suffix: str
    ids: list[int]
    loss: float
    initial_loss: float
    steps: int = 0
    seconds: float = 0.0
    rng: str = ""  # the sampler's torch.Generator state, base64
    history: list[dict[str, Any]] = field(default_factory=list)  # per step: loss, candidates kept, seconds
    checks: list[dict[str, Any]] = field(default_factory=list)  # per success check: step, cases the attack won

    def to_json(self) -> str:
        return json.dumps({"version": STATE_VERSION, **asdict(self)}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> State:
        data = json.loads(text)
        if data.pop("version", None) != STATE_VERSION:
            raise ValueError(f"not a GCG state file of version {STATE_VERSION}")
        return cls(**data)

    def save(self, path: Path) -> None:
        """Write atomically: a run killed mid-write leaves the previous step's state."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        os.replace(tmp, path)

    def generator(self, seed: int) -> torch.Generator:
        generator = torch.Generator().manual_seed(seed)
        if self.rng:
            generator.set_state(torch.frombuffer(bytearray(base64.b64decode(self.rng)), dtype=torch.uint8))
        return generator

    def keep_generator(self, generator: torch.Generator) -> None:
        self.rng = base64.b64encode(generator.get_state().numpy().tobytes()).decode("ascii")


def start(attack: Attack, settings: Settings, key: dict[str, Any]) -> State:
    """A fresh state: the initial suffix and its loss."""
    ids = attack.initial_ids(settings.init)
    loss = float(attack.losses(torch.tensor([ids]))[0])
    return State(key=key, suffix=settings.init, ids=ids, loss=loss, initial_loss=loss)


def step(attack: Attack, state: State, settings: Settings, generator: torch.Generator) -> dict[str, Any]:
    """One GCG step on ``state``: returns what it did (loss, candidates sampled and kept, accepted)."""
    began = time.monotonic()
    ids = torch.tensor(state.ids)
    grad, _ = attack.gradient(state.ids)
    sampled = sample_candidates(ids, grad, settings.candidates, settings.topk, generator, attack.disallowed)
    kept, texts = attack.retokenising(sampled)
    accepted = False
    if len(texts):
        losses = attack.losses(kept)
        best = int(losses.argmin())
        if float(losses[best]) <= state.loss:
            state.ids, state.suffix, state.loss = kept[best].tolist(), texts[best], float(losses[best])
            accepted = True
    state.steps += 1
    seconds = time.monotonic() - began
    state.seconds += seconds
    report = {"step": state.steps, "loss": state.loss, "sampled": settings.candidates, "kept": len(texts),
              "accepted": accepted, "seconds": round(seconds, 3)}
    state.history.append(report)
    return report


def optimise(attack: Attack, state: State, settings: Settings, *, steps: int, time_limit: float | None,
             save: Callable[[State], None], progress: Callable[[str], None] = lambda line: None,
             check: Callable[[str], list[str]] | None = None, check_every: int = 0,
             stop_on_success: bool = True) -> State:
    """Run steps until ``steps`` in all (counting earlier runs'), ``time_limit`` seconds of this run, or
    (with ``check``) a suffix that wins every case. ``check(suffix)`` returns the case ids the attack won;
    it is called every ``check_every`` steps (0: only at the end). State is saved after every step."""
    generator = state.generator(settings.seed)
    began = time.monotonic()
    won: list[str] | None = None
    n_cases = len(attack.layouts)
    while state.steps < steps:
        elapsed = time.monotonic() - began
        mean_step = state.seconds / state.steps if state.steps else 0.0
        if time_limit is not None and elapsed + mean_step > time_limit:
            progress(f"time limit: {elapsed:.0f} s of {time_limit:.0f} s used, a step takes about {mean_step:.0f} s")
            break
        report = step(attack, state, settings, generator)
        state.keep_generator(generator)
        save(state)
        progress(f"step {state.steps}/{steps}: loss {state.loss:.4f}"
                 f"{'' if report['accepted'] else ' (no candidate lower: suffix kept)'}, {report['kept']} of "
                 f"{report['sampled']} candidates distinct and re-tokenising, {report['seconds']:.1f} s; "
                 f"suffix {state.suffix!r}")
        if check is not None and check_every and state.steps % check_every == 0:
            won = _check(check, state, n_cases, save, progress)
            if stop_on_success and len(won) == n_cases:
                return state
    if check is not None and (not state.checks or state.checks[-1]["step"] != state.steps):
        _check(check, state, n_cases, save, progress)
    return state


def best_checked(state: State) -> dict[str, Any] | None:
    """The checked suffix that won the most cases, the latest of equals (its loss is lower); None without a
    check. Lower loss does not always win more: a later suffix can lose a case an earlier one won."""
    return max(reversed(state.checks), key=lambda c: len(c["won"])) if state.checks else None


def _check(check: Callable[[str], list[str]], state: State, n_cases: int, save: Callable[[State], None],
           progress: Callable[[str], None]) -> list[str]:
    won = check(state.suffix)
    state.checks.append({"step": state.steps, "suffix": state.suffix, "loss": state.loss, "won": won})
    save(state)
    progress(f"check at step {state.steps}: the attack wins {len(won)}/{n_cases} case(s) on the server")
    return won
