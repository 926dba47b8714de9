"""What a user is told beyond the verdicts: why a benchmark has nothing to replay and the command that records
it, the command that records one item, and the notes the terminal prints under the summary."""

from __future__ import annotations

import difflib
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..importers import import_hint
from ..options import RunConfig
from ..recording.cassettes import model_dir
from ..results.gates import Thresholds
from .ledger import Ledger
from .player import Player
from .selection import Selection

if TYPE_CHECKING:
    from ..report.terminal import LiveNotes


NO_RECORDINGS = "no recordings of"  # the start of the one line a run with nothing to replay ends on


class Hints:
    def __init__(self, config: RunConfig, thresholds: Thresholds, selection: Selection, ledger: Ledger,
                 player: Player) -> None:
        self.config = config
        self.thresholds = thresholds
        self.selection = selection
        self.ledger = ledger
        self.player = player

    def no_recordings_message(self, benchmarks: list[str], selection: str = "") -> str:
        """Why nothing of ``benchmarks`` can replay, and the command that records (or imports) just them;
        ``selection`` is the run's test paths, so the command runs as printed."""
        model = self.config.model or ""
        prompt = self.config.system_prompt
        where = model_dir(self.config.cassettes, self.config.recordings or model)
        with_prompt = f" with {prompt.label} {prompt.describe()}" if prompt is not None else ""
        text = f"{NO_RECORDINGS} {model}{with_prompt} for {', '.join(benchmarks)} in {where}"
        cassettes = self.config.cassettes if self.config.cassettes_given else None
        hint = import_hint(model, benchmarks, cassettes) if prompt is None else None  # imports have no prompt
        if hint:
            return f"{text}: {hint}"
        flag = f" --trust-cassettes {shlex.quote(str(cassettes))}" if cassettes is not None else ""
        flag += self.system_prompt_flag()
        marker = shlex.quote(" or ".join(benchmarks))
        paths = f"{selection} " if selection else ""
        return text + (f": record them with `pytest {paths}-m {marker} --model {shlex.quote(model)}{flag} "
                       "--record-mode=new_episodes --trust-base-url URL`") + self._other_models(where)

    def _other_models(self, where: Path) -> str:
        """When the model has no folder at all but others do: a misspelt --model, most likely. Their names, and
        the closest one."""
        root = self.config.cassettes
        if where.is_dir() or not root.is_dir() or self.config.system_prompt is not None:  # a new prompt: no typo
            return ""
        known = sorted(p.name for p in root.iterdir()
                       if p.is_dir() and not p.name.startswith(".") and "+prompt-" not in p.name
                       and "+deploy-" not in p.name)
        if not known:
            return ""
        close = difflib.get_close_matches(where.name, known, n=1)
        return ((f"; did you mean --model {close[0]}?" if close else "")
                + f" (recorded models under {root}: {', '.join(known)})")

    def system_prompt_flag(self) -> str:
        """What a printed command needs to reach this prompt's recordings: the option when the prompt came from
        a file (a conftest.py hook provides its prompt by itself)."""
        prompt = self.config.system_prompt
        return f" --trust-system-prompt {shlex.quote(prompt.source)}" if prompt is not None and prompt.from_option else ""

    def record_hint(self, node: pytest.Item) -> str:
        """The command that records just this item, runnable as printed: its node id, or under ``--pyargs`` (a node
        id relative to the installed package, no path the user can give) the run's selection and ``-k`` its id."""
        cfg = self.config
        cassettes = f" --trust-cassettes {shlex.quote(str(cfg.cassettes))}" if cfg.cassettes_given else ""
        cassettes += self.system_prompt_flag()
        callspec = getattr(node, "callspec", None)
        marks = node.config.getoption("markexpr", "")
        where = (f"{run_selection(node.config)}{' -m ' + shlex.quote(marks) if marks else ''}"
                 f" -k {shlex.quote(callspec.id)}" if node.config.option.pyargs and callspec else shlex.quote(node.nodeid))
        return (f"pytest {where} --model {shlex.quote(cfg.model or '')}{cassettes} "
                "--record-mode=new_episodes --trust-base-url URL")

    def notes(self) -> LiveNotes:
        """What the terminal tells beyond the report: where the recordings are, what happened on the way."""
        from ..report.terminal import LiveNotes

        cfg, prompt, ledger = self.config, self.config.system_prompt, self.ledger
        return LiveNotes(str(cfg.cassettes),
                         (f"{prompt.label} {prompt.describe()}   recordings {cfg.cassettes / str(cfg.recordings)}"
                          if prompt is not None else None),
                         thresholds_file=self.thresholds.path is not None, allow_partial=cfg.allow_partial,
                         left_out=self.selection.left_out_lines(), missing=self.selection.missing,
                         baseline=ledger.baseline_lines, merged_items=ledger.merged_items,
                         batch=self.player.batch_lines,
                         merge_problems=ledger.merge_problems, unwritten=ledger.unwritten)


def run_selection(config: pytest.Config) -> str:
    """The test paths of this run as a command line takes them (``--pyargs`` included) and its run size, for
    printed commands, so they run as printed on the same items."""
    profile = config.getoption("trust_profile", None)
    size = f" --trust-profile {profile}" if profile else ""
    if config.args_source != pytest.Config.ArgsSource.ARGS:  # none given: pytest's own default applies again
        return size.strip()
    paths = " ".join(shlex.quote(str(arg)) for arg in config.args)
    return (f"--pyargs {paths}" if config.option.pyargs else paths) + size
