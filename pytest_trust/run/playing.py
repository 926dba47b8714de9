"""Playing one item: open its tape, run its benchmark against the model, close the tape, and say
what came of it, whether pytest plays it now or a concurrent recording pass played it ahead."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ..benchmarks import BENCHMARKS
from ..errors import (
    CassetteMiss,
    CorruptCassette,
    EndpointDown,
    InvalidItem,
    ModelError,
    NotRecorded,
    NotSaved,
    TrustError,
    Unavailable,
)
from ..items import Item, Result
from ..recording.batch import Pending
from ..results.records import ERROR_PROPERTY, RESULT_PROPERTY, SKIP_PROPERTY

ERROR_KINDS = {CassetteMiss: "miss", ModelError: "model error", EndpointDown: "model error",
               InvalidItem: "invalid item", CorruptCassette: "corrupt cassette", NotSaved: "not saved"}


class Played(NamedTuple):
    """One of: a result (with the counts of answers that were not plain text), a skip reason, an error
    (its kind and one-line message), or a crash (an exception of ours, re-raised in the item). A named
    tuple: one is made per item, and a frozen dataclass costs several times as much to make.
    ``stops_run``: no later item can do better (the endpoint is down, recordings cannot be written)."""

    result: Result | None = None
    irregular: Mapping[str, int] = MappingProxyType({})
    skipped: str | None = None
    error: tuple[str, str] | None = None
    stops_run: bool = False
    crash: BaseException | None = None

    def as_property(self, item: Item) -> tuple[str, Any]:
        """The user property the item's setup report carries to the run's record (``ItemRecord.take``)."""
        if self.crash is not None:
            return ERROR_PROPERTY, {"kind": "internal", "benchmark": item.benchmark}
        if self.skipped is not None:
            return SKIP_PROPERTY, self.skipped
        if self.error is not None:
            return ERROR_PROPERTY, {"kind": self.error[0], "benchmark": item.benchmark, "message": self.error[1]}
        assert self.result is not None
        payload = {"benchmark": item.benchmark, **self.result.to_dict()}
        if self.irregular:
            payload["irregular"] = self.irregular
        payload["scenario"] = item.cassette
        return RESULT_PROPERTY, payload


def play(player, item: Item, hint: str | Callable[[], str]) -> Played:
    """Play ``item`` on this thread with the session's ``Player`` (its recorder, model and services); ``hint`` says
    how to record the item (or makes that text), for the message of a miss."""
    recorder = player.recorder
    model = None
    try:
        recorder.begin(item.benchmark, item.cassette, item.id, hint=hint)
        model = player.connect()
        benchmark = BENCHMARKS[item.benchmark]
        played = Played(result=benchmark.run(item, model, **player.services.given(benchmark)))
    except KeyboardInterrupt:  # Ctrl-C in this item: half its conversation must not be kept (Recorder.stop)
        recorder.stop()
        raise
    except (NotRecorded, Unavailable, Pending) as err:
        played = Played(skipped=str(err))
    except TrustError as err:
        played = Played(error=_error(err, player), stops_run=isinstance(err, EndpointDown))
    except Exception as err:  # noqa: BLE001 - a bug of ours: the item re-raises it with its traceback
        played = Played(crash=err)
    finally:  # the tape is closed whatever came of it (after Ctrl-C the sealed journal takes nothing)
        not_saved = _end(recorder)
    if model is not None:  # this item's counts, taken whatever came of it, so the next item starts from none
        irregular = model.take_irregular()
        if played.result is not None and irregular:
            played = played._replace(irregular=irregular)
    if not_saved is not None:  # its answers are lost with the journal line: the item has no result
        return Played(error=_error(not_saved, player), stops_run=True)
    return played


def _end(recorder) -> NotSaved | None:
    try:
        recorder.end()
    except NotSaved as err:
        return err
    return None


def _error(err: TrustError, player) -> tuple[str, str]:
    """The error's kind and message; the message goes to the terminal and every report: redacted, whatever raised
    it."""
    return ERROR_KINDS.get(type(err), "error"), player.redacted(str(err))
