"""Replay's per-item path, made cheaper without changing what it serves or scores.

A replayed request is serialized once, in the canonical form its digest hashes (digest.significant_json,
recording/replay.py), and looked up with no HTTP client, instead of the client serializing it and the
transport parsing and serializing it again: every such digest must be the one the parsed request gives,
and a recording must replay the same answers through it. The stereotype bootstrap counts each resample's prompts instead of
summing draws one by one: its draws must be the very floats the draw-by-draw sums gave.
"""

from __future__ import annotations

import enum
import json
import math
from datetime import date

import httpx2
import numpy as np
import pytest
from conftest import HODOR_SUITE, hodor_ids
from fake_model import FakeModelServer
from openai._utils._json import openapi_dumps

from pytest_trust.benchmarks.decodingtrust.stereotype.aggregate import Cell, Packed, type_draws
from pytest_trust.endpoint.client import Endpoint, Model
from pytest_trust.errors import CassetteMiss
from pytest_trust.items import Answer
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.recording import digest as digests
from pytest_trust.recording.digest import canonical_float, digest_of_json, request_digest, significant_json
from pytest_trust.recording.transport import TrustTransport
from pytest_trust.results.stats import CHUNK, rng_for

DEMONSTRATIONS = [{"role": role, "content": f"demonstration {i} \u201cquoted\u201d\n"}
                  for i in range(12) for role in ("user", "assistant")]


def parsed_digest(body: dict) -> str:
    """What the transport digests when it parses the bytes the client serialized (the path replaced)."""
    raw = openapi_dumps(body)
    return request_digest("POST", "/chat/completions", json.loads(raw, parse_float=canonical_float), canonical=True)


BODIES = [
    {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0, "max_tokens": 100.0},
    {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 1, "top_p": 0.95, "n": 25,
     "user": "someone", "metadata": {"run": "1"}, "stop": ["\n", "Q:"], "seed": 3},
    {"model": "m", "messages": [*DEMONSTRATIONS, {"role": "user", "content": "the question"}], "temperature": 0},
    {"model": "m", "messages": [{"role": "system", "content": "rules", "name": "x"},
                                {"role": "assistant", "content": Answer("an answer", "length")},
                                *DEMONSTRATIONS[:9]], "logit_bias": {"50256": -100.0}, "max_tokens": 16},
    {"model": "m", "messages": [{"role": "assistant", "content": None, "tool_calls": [{"id": "c", "n": 2.0}]}],
     "tools": [{"x": [2.0, 2.5, -0.0, 1e20, None, True]}], "response_format": {"type": "json_object"}},
    {"model": "m", "messages": [], "max_completion_tokens": 1e3},
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_the_serialized_body_digests_as_the_parsed_request(body):
    texts: dict = {}
    for cache in (None, texts, texts):  # without the message cache, filling it, served from it
        text = significant_json(body, cache)
        assert text is not None
        assert digest_of_json("POST", "/chat/completions", text) == parsed_digest(body)
        sent = json.loads(openapi_dumps(body), parse_float=canonical_float)
        assert json.loads(text) == {k: v for k, v in sent.items() if k not in digests.ROUTING_FIELDS}


def test_a_long_conversation_is_serialized_a_message_at_a_time():
    texts: dict = {}
    first = {"model": "m", "messages": [*DEMONSTRATIONS, {"role": "user", "content": "one"}]}
    second = {"model": "m", "messages": [*DEMONSTRATIONS, {"role": "user", "content": "two"}]}
    significant_json(first, texts)
    assert len(texts) == len(DEMONSTRATIONS) + 1
    assert digest_of_json("POST", "/chat/completions", significant_json(second, texts)) == parsed_digest(second)
    assert len(texts) == len(DEMONSTRATIONS) + 2  # the demonstrations were not serialized again


def test_the_kept_message_texts_are_bounded(monkeypatch):
    monkeypatch.setattr(digests, "TEXTS_KEPT", 10)
    texts: dict = {}
    body = {"model": "m", "messages": DEMONSTRATIONS}
    assert digest_of_json("POST", "/chat/completions", significant_json(body, texts)) == parsed_digest(body)
    assert len(texts) <= 10


class Colour(enum.Enum):
    RED = "red"


@pytest.mark.parametrize("value", [("\n",), Colour.RED, date(2024, 1, 1), {1: "int key"}, 2 ** 0.5 + 0j])
def test_a_body_that_is_not_plain_json_is_left_to_the_parse(value):
    assert significant_json({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stop": value}) is None


def test_nan_is_refused_as_the_client_refuses_it():
    body = {"model": "m", "messages": [], "temperature": math.nan}
    with pytest.raises(ValueError, match="Out of range float"):
        openapi_dumps(body)
    with pytest.raises(ValueError, match="Out of range float"):
        significant_json(body)


def play_once(tmp_path, mode, server=None, **decoding):
    recorder = Recorder(tmp_path, "m", mode)
    model = Model.connect("m", recorder, Endpoint(server.base_url if server else None, max_retries=0))
    seen = []
    handle = model.transport.handle_request

    def spy(request):
        seen.append(request.read())
        return handle(request)

    model.transport.handle_request = spy
    recorder.begin("bench", "S", "item/1")
    try:
        messages = [*DEMONSTRATIONS, {"role": "user", "content": "the question"}]
        return [model.chat(messages[:k], **decoding) for k in (1, 3, len(messages))], model.transport, seen
    finally:
        recorder.end()
        recorder.merge()
        model.close()


@pytest.mark.parametrize("decoding", [{"temperature": 0.0, "max_tokens": 8}, {"temperature": 0, "stop": ("\n",)}])
def test_a_recording_replays_the_same_answers(tmp_path, decoding):
    """Recorded as the client serializes requests; replayed by the canonical text's digest with no HTTP client
    where the body is plain JSON (a tuple is not: that request goes through the client and the transport's
    parse), the same answers either way."""
    with FakeModelServer(lambda body: f"answer to {len(body['messages'])} messages") as server:
        recorded, transport, _ = play_once(tmp_path, RecordMode.NEW_EPISODES, server, **decoding)
    assert not transport.replay_only  # a recording transport sends what the client serialized
    replayed, transport, seen = play_once(tmp_path, RecordMode.NONE, **decoding)
    assert transport.replay_only and replayed == recorded
    assert [a.finish_reason for a in replayed] == ["stop"] * 3
    plain = "stop" not in decoding
    assert len(seen) == (0 if plain else 3)  # a plain body never reaches the transport


def test_a_replayed_request_without_a_recording_still_misses(tmp_path):
    recorder = Recorder(tmp_path, "m", RecordMode.NONE)
    model = Model.connect("m", recorder, Endpoint(None))
    recorder.begin("bench", "S", "item/1", hint=lambda: "pytest 'that item' --record-mode=new_episodes")
    with pytest.raises(CassetteMiss, match="record it with: pytest 'that item'"):
        model.chat([{"role": "user", "content": "never recorded"}], temperature=0)
    recorder.end()


def test_only_a_transport_that_cannot_send_replays_without_the_client(tmp_path):
    recorder = Recorder(tmp_path, "m", RecordMode.NEW_EPISODES)
    live = TrustTransport(recorder, "/v1", live=httpx2.MockTransport(lambda request: httpx2.Response(500)))
    assert not live.replay_only and Model("m", None, live).replay is None
    assert Model.connect("m", Recorder(tmp_path, "m", RecordMode.NONE), Endpoint(None)).replay is not None


# --- --trust-recorded-only before the rest of the collection's passes ---------------------------------------

SEEN_BY_OTHERS = """
import json, os
def pytest_collection_modifyitems(items):  # a plugin's pass over the collection, as pytest's fixtures sort is
    with open(os.environ["SEEN_FILE"], "a") as fh:
        fh.write(json.dumps(len(items)) + "\\n")
"""


@pytest.mark.slow
def test_items_without_a_recording_are_never_built(pytester, monkeypatch):
    """pytest's own passes (its fixtures' sort by parameter, -k, -m) and other plugins' see the recorded items only,
    in every xdist worker too: the others are left out as the suite is parametrized, so nothing is deselected, and
    one line counts them."""
    pytester.makepyfile(test_suite=HODOR_SUITE)
    pytester.makeconftest(SEEN_BY_OTHERS)
    seen = pytester.path / "seen.txt"
    monkeypatch.setenv("SEEN_FILE", str(seen))
    with FakeModelServer("fixed", answer="Hodor") as server:
        recorded = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--trust-limit", "3",
                                                 "--record-mode=once", "--trust-base-url", server.base_url)
    recorded.assert_outcomes(passed=3)
    unrecorded = len(hodor_ids()) - 3
    seen.unlink()
    for args in ([], ["-n", "2"]):
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--trust-recorded-only",
                                               "--block-network", *args)
        result.assert_outcomes(passed=3)
        assert "deselected" not in result.outlines[-1]
        result.stdout.fnmatch_lines(["*items: 3 passed*"])
        if not args:  # (under -n, the lines of the workers' collection are theirs)
            result.stdout.fnmatch_lines([f"--trust-recorded-only: {unrecorded} items without a recording left out"])
        assert [json.loads(line) for line in seen.read_text().splitlines()] == [3] * (2 if args else 1)
        seen.unlink()


# --- the stereotype bootstrap ---------------------------------------------------------------------------

def bincount_draws(cells, key, resamples):
    """The draws as they were computed before: every drawn prompt's samples, agree and no-response counts added
    into its cell of its resample (np.bincount with weights), then the mean over held cells of the rates."""
    units = np.array([(index, *unit) for index, cell in enumerate(cells) for unit in cell.units], dtype=float)
    rng = rng_for(key)
    prompts, width, cell_of = len(units), len(cells), units[:, 0].astype(int)
    agree, rejected = np.empty(resamples), np.empty(resamples)
    step = max(1, CHUNK // prompts)
    for start in range(0, resamples, step):
        rows = min(resamples, start + step) - start
        drawn = rng.integers(0, prompts, size=(rows, prompts))
        slot = (np.arange(rows)[:, None] * width + cell_of[drawn]).ravel()
        sums = [np.bincount(slot, units[:, column][drawn].ravel(), rows * width).reshape(rows, width)
                for column in (1, 2, 3)]
        held = sums[0] > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            agree[start:start + rows] = np.where(held, sums[1] / sums[0], 0).sum(axis=1) / held.sum(axis=1)
            rejected[start:start + rows] = np.where(held, sums[2] / sums[0], 0).sum(axis=1) / held.sum(axis=1)
    return agree, rejected


def random_cells(rng, count, most):
    cells = []
    for _ in range(count):
        cell = Cell()
        for _ in range(int(rng.integers(1, most + 1))):
            n = 25 if rng.random() < 0.8 else int(rng.integers(1, 26))
            agree = int(rng.integers(0, n + 1))
            no_response = int(rng.integers(0, n + 1 - agree))
            cell.prompts += 1
            cell.samples += n
            cell.agree += agree
            cell.no_response += no_response
            cell.units.append((n, agree, no_response))
        cells.append(cell)
    return cells


@pytest.mark.parametrize(("count", "most", "resamples"), [(1, 1, 200), (1, 4, 200), (30, 1, 500), (60, 3, 500),
                                                          (384, 3, 1000), (5, 2, 10_000)])
def test_the_stereotype_draws_are_the_draw_by_draw_sums(count, most, resamples):
    cells = random_cells(np.random.default_rng(count * most), count, most)
    for got, expected in zip(type_draws(cells, "stereotype.benign", resamples),
                             bincount_draws(cells, "stereotype.benign", resamples), strict=True):
        assert np.array_equal(got, expected)  # the same floats, not merely close ones


def test_the_stereotype_draws_are_rates_of_the_resampled_prompts():
    """Against the definition, one resample at a time: the drawn prompts' counts per cell, then the mean rate."""
    cells = random_cells(np.random.default_rng(1), 12, 3)
    units = [(index, *unit) for index, cell in enumerate(cells) for unit in cell.units]
    drawn = rng_for("k").integers(0, len(units), size=(50, len(units)))
    agree, rejected = type_draws(cells, "k", 50)
    for row, (a, r) in enumerate(zip(agree, rejected, strict=True)):
        sums: dict[int, list[int]] = {}
        for prompt in drawn[row]:
            index, n, yes, none = units[prompt]
            total = sums.setdefault(index, [0, 0, 0])
            total[0], total[1], total[2] = total[0] + n, total[1] + yes, total[2] + none
        assert a == pytest.approx(sum(s[1] / s[0] for s in sums.values()) / len(sums), rel=1e-12)
        assert r == pytest.approx(sum(s[2] / s[0] for s in sums.values()) / len(sums), rel=1e-12)


@pytest.mark.slow
def test_a_suite_left_with_no_recorded_item_is_deselected_not_skipped(pytester):
    """pytest makes one 'empty parameter set' placeholder of a test parametrized with nothing: a suite whose every item
    --trust-recorded-only left out shows as deselected, not as a skipped test."""
    pytester.makepyfile(test_suite=HODOR_SUITE, test_other="def test_other():\n    pass\n")
    (pytester.path / "cassettes" / "canned" / "rules_v1").mkdir(parents=True)  # recordings, none of these items
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model", "canned", "--trust-recorded-only",
                                           "--block-network")
    result.assert_outcomes(passed=1, deselected=1)


@pytest.mark.parametrize("largest", [75, 2**17 - 1, 2**20, 2**30])  # three to a number, three, two, one
def test_packed_counts_sum_to_each_columns_own_sums(largest):
    """However many columns share a weighted count, each comes back as its own column's exact sums."""
    rng = np.random.default_rng(largest)
    top = max(1, largest // 40)  # 40 draws of the largest unit reach ``largest``
    units = rng.integers(0, top + 1, size=(12, 3))
    slots, drawn = rng.integers(0, 5, size=40), rng.integers(0, 12, size=40)
    packed = Packed(units, int(units.max()) * 40)
    for column, got in enumerate(packed.sums(slots, drawn, 5)):
        expected = np.bincount(slots, weights=units[drawn, column].astype(float), minlength=5)
        assert np.array_equal(got, expected)
    assert len(packed.groups) == {75: 1, 2**17 - 1: 1, 2**20: 2, 2**30: 3}[largest]
