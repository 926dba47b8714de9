"""``pytest-trust import decodingtrust --model M``: DecodingTrust's recorded runs as cassettes of M.

DecodingTrust ships the paper's June 2023 runs under ``data/<perspective>/generations/``, named with
several spellings of one model (AI-secure/DecodingTrust@161ae83, ``data/*/generations``): the
snapshot id (``gpt-4-0314``) in most perspectives, ``gpt4`` in OOD's 0- and 5-shot files and in
toxicity. Each perspective finds its own files (its benchmark's ``recordings["decodingtrust"]``); this
module resolves the model's spellings, builds each request exactly as the perspective's scenario does (its
``messages``), and writes the cassettes. It names no perspective: it imports every registered benchmark
with a reader for this source, so a benchmark of another package is imported the same way.
"""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..benchmarks import BENCHMARKS
from ..benchmarks.spec import Benchmark, Recorded, Unrecorded
from ..data import DataStore
from ..errors import UsageProblem
from .writer import CassetteSet, chat_body

SOURCE = "decodingtrust"  # this importer's key in a benchmark's ``recordings``


@dataclass(frozen=True)
class ModelNames:
    """The spellings DecodingTrust's file names use for one model."""

    full: str  # snapshot id or file name, the cassette folder and the requests' model: gpt-4-0314, vicuna-7b-v1.3
    short: str  # OOD 0/5-shot files: gpt4, gpt3.5
    toxicity: str  # toxicity files: gpt4, gpt3
    org: str = "openai"  # the stereotype recordings' folder: data/stereotype/generations/<org>/
    # The stereotype CSVs' ``model`` column: not the same in every split (``falcon-7b-instruc`` in the targeted files).
    columns: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # further names ``--model`` accepts: DecodingTrust's config id, a short alias

    def spellings(self) -> tuple[str, ...]:
        return (self.full, self.short, self.toxicity, *self.aliases)

    def column_spellings(self) -> tuple[str, ...]:
        return self.columns or (self.full,)


def _open_model(org: str, name: str, hub_org: str, alias: str, *targeted_column: str) -> ModelNames:
    """An open model DecodingTrust recorded for stereotype only (through its ``hf/<org>/<name>`` client): the files
    are named ``name``, the benign and untargeted rows say ``hf/<hub org>/<name>``, the targeted ones
    ``targeted_column`` where it differs."""
    config_id = f"hf/{hub_org}/{name}"
    return ModelNames(name, name, name, org, (config_id, *targeted_column, name),
                      (config_id, f"{hub_org}/{name}", alias))


# The models DecodingTrust recorded, by snapshot id (data/decodingtrust README of the mirror, section 0;
# verified against the `model` field of the recorded responses). The open models' stereotype runs are at
# AI-secure/DecodingTrust@161ae83:data/stereotype/generations/<org>/; their ids are DecodingTrust's
# (src/dt/visualize.py, models_to_analyze), the `model` column spellings those of the files (counted).
RECORDED_MODELS = {
    "gpt-4-0314": ModelNames("gpt-4-0314", "gpt4", "gpt4"),
    "gpt-3.5-turbo-0301": ModelNames("gpt-3.5-turbo-0301", "gpt3.5", "gpt3"),
    "alpaca-native": _open_model("chavinlo", "alpaca-native", "chavinlo", "alpaca"),
    "vicuna-7b-v1.3": _open_model("lmsys", "vicuna-7b-v1.3", "lmsys", "vicuna"),
    "falcon-7b-instruct": _open_model("tiiuae", "falcon-7b-instruct", "tiiuae", "falcon", "falcon-7b-instruc"),
    "Llama-2-7b-chat-hf": _open_model("meta-llama", "Llama-2-7b-chat-hf", "meta-llama", "llama2"),
    "mpt-7b-chat": _open_model("mosaicml", "mpt-7b-chat", "mosaicml", "mpt", "pt-7b-chat"),
    "RedPajama-INCITE-7B-Instruct": _open_model("together", "RedPajama-INCITE-7B-Instruct", "togethercomputer",
                                                "redpajama"),
}


def importable() -> tuple[Benchmark, ...]:
    """The registered benchmarks with a reader of DecodingTrust's recordings, in registry order (read each
    time, so a benchmark registered later is found too)."""
    return tuple(benchmark for benchmark in BENCHMARKS.values() if SOURCE in benchmark.recordings)


# Their names, in the order they are imported (the choices of `pytest-trust import decodingtrust --only`).
PERSPECTIVES = tuple(benchmark.name for benchmark in importable())


def resolve(model: str) -> ModelNames:
    """The recorded model named by its snapshot id or one of DecodingTrust's short aliases."""
    for names in RECORDED_MODELS.values():
        if model in names.spellings():
            return names
    known = ", ".join(f"{n.full} ({(n.aliases or (n.short,))[-1]})" for n in RECORDED_MODELS.values())
    raise UsageProblem(f"DecodingTrust recorded no run of {model!r}; it recorded {known}")


def has_recordings(model: str) -> bool:
    try:
        resolve(model)
    except UsageProblem:
        return False
    return True


def import_command(model: str, cassettes: Path | None = None) -> str:
    tail = f" --cassettes {shlex.quote(str(cassettes))}" if cassettes is not None else ""
    return f"pytest-trust import decodingtrust --model {shlex.quote(model)}{tail}"


@dataclass
class CassetteReport:
    imported: int = 0
    not_recorded: list[str] = field(default_factory=list)  # reasons
    missing_files: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    model: str
    cassettes: dict[tuple[str, str], CassetteReport] = field(default_factory=lambda: defaultdict(CassetteReport))
    files: list[Path] = field(default_factory=list)

    def lines(self) -> Iterable[str]:
        for (benchmark, cassette), report in sorted(self.cassettes.items()):
            line = f"{benchmark}/{cassette}: {report.imported} item(s) imported"
            if report.not_recorded:
                reasons = Counter(report.not_recorded)
                line += "; not recorded: " + "; ".join(
                    f"{r}" + (f" ({n} items)" if n > 1 else "") for r, n in sorted(reasons.items()))
            if report.missing_files:
                shown = report.missing_files[:3]
                more = len(report.missing_files) - len(shown)
                line += "; missing files: " + ", ".join(shown) + (f" and {more} more" if more else "")
            yield line


def _benchmark(perspective: str | Benchmark) -> Benchmark:
    """A benchmark passed as itself or by its registered name; it must have a reader for this source."""
    benchmark = BENCHMARKS.get(perspective) if isinstance(perspective, str) else perspective
    if benchmark is None or SOURCE not in benchmark.recordings:
        known = ", ".join(b.name for b in importable())
        name = getattr(perspective, "name", perspective)
        raise UsageProblem(f"no benchmark {name!r} to import from DecodingTrust; it can import {known}")
    return benchmark


def import_model(data: DataStore, model: str, root: Path, perspectives: Iterable[str | Benchmark] | None = None,
                 progress: Callable[[str], None] | None = None) -> ImportReport:
    """Write cassettes under ``root/<model>/`` from DecodingTrust's recordings of ``model``: of ``perspectives``
    (benchmarks, or their registered names), by default of every benchmark with a reader for this source."""
    names = resolve(model)
    benchmarks = [_benchmark(p) for p in perspectives] if perspectives is not None else importable()
    cassettes = CassetteSet(root, names.full)
    report = ImportReport(names.full)
    for benchmark in benchmarks:
        if progress:
            progress(f"importing {benchmark.name} ...")
        for entry in benchmark.recordings[SOURCE](data, names):
            if isinstance(entry, Unrecorded):
                cassette = report.cassettes[entry.benchmark, entry.cassette]
                cassette.not_recorded.append(entry.reason)
                cassette.missing_files.extend(f for f in entry.files if f not in cassette.missing_files)
                cassettes.mark(entry.benchmark, entry.cassette, entry.reason, entry.item_id)
                continue
            item = entry.item
            cassettes.add(item.benchmark, item.cassette, item.id,
                          chat_body(names.full, _request(benchmark, entry), item.decoding), entry.response)
            report.cassettes[item.benchmark, item.cassette].imported += 1
    report.files = cassettes.write()
    return report


def _request(benchmark: Benchmark, entry: Recorded) -> list:
    """The recorded request messages, or, where the recording holds only the answer, those ``run`` sends."""
    if entry.messages is not None:
        return list(entry.messages)
    if benchmark.messages is None:
        raise UsageProblem(f"benchmark {benchmark.name!r} recorded {entry.item.id} without its request and "
                           "declares no messages to rebuild it")
    return benchmark.messages(entry.item)
