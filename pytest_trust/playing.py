"""Playing one item: open its tape, run its benchmark against the model, close the tape, and say
what came of it, whether pytest plays it now or a concurrent recording pass played it ahead."""

from __future__ import annotations

from dataclasses import dataclass, field

from .benchmarks import BENCHMARKS
from .errors import (
    CassetteMiss,
    CorruptCassette,
    EndpointDown,
    InvalidItem,
    ModelError,
    NotRecorded,
    TrustError,
    Unavailable,
)
from .items import Item, Result
from .recording.batch import Pending

ERROR_KINDS = {CassetteMiss: "miss", ModelError: "model error", EndpointDown: "model error",
               InvalidItem: "invalid item", CorruptCassette: "corrupt cassette"}


@dataclass(frozen=True)
class Played:
    """One of: a result (with the counts of answers that were not plain text), a skip reason, an error
    (its kind and one-line message), or a crash (an exception of ours, re-raised in the item)."""

    result: Result | None = None
    irregular: dict[str, int] = field(default_factory=dict)
    skipped: str | None = None
    error: tuple[str, str] | None = None
    endpoint_down: bool = False
    crash: BaseException | None = None


def play(trust, item: Item, hint: str) -> Played:
    """Play ``item`` on this thread. ``trust`` is the TrustSession (its recorder and model)."""
    recorder = trust.recorder
    model = None
    try:
        recorder.begin(item.benchmark, item.scenario, item.id, hint=hint)
        model = trust.connect()
        model.take_irregular()
        result = BENCHMARKS[item.benchmark].run(item, model)
    except (NotRecorded, Unavailable, Pending) as err:
        return Played(skipped=str(err))
    except TrustError as err:
        return Played(error=(ERROR_KINDS.get(type(err), "error"), str(err)), endpoint_down=isinstance(err, EndpointDown))
    except Exception as err:  # noqa: BLE001 - a bug of ours: the item re-raises it with its traceback
        return Played(crash=err)
    finally:
        recorder.end()
    return Played(result=result, irregular=model.take_irregular())
