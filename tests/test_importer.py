"""Imported cassettes: they replay through the real openai client, mark what the source never
recorded, and are byte-identical when imported twice."""

from __future__ import annotations

import json

import pytest
from vcr.serialize import deserialize
from vcr.serializers import jsonserializer

from pytest_trust.endpoint.client import Endpoint, Model
from pytest_trust.errors import CassetteMiss, NotRecorded
from pytest_trust.importers.decodingtrust import import_command, resolve
from pytest_trust.importers.writer import CassetteSet, chat_body
from pytest_trust.recording import Recorder, RecordMode
from pytest_trust.recording.cassettes import cassette_file, read_cassette_file
from pytest_trust.recording.journal import merge_journals

MESSAGES = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "system", "name": "example_user", "content": "a demo"},
            {"role": "user", "content": "classify this"}]
DECODING = {"temperature": 0, "max_tokens": 20, "n": 1}
RESPONSE = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1686000000, "model": "gpt-4-0314",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Yes"}}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 1, "total_tokens": 31}}


def imported(tmp_path) -> CassetteSet:
    cassettes = CassetteSet(tmp_path, "gpt-4-0314")
    cassettes.add("bench", "S", "S/1", chat_body("gpt-4-0314", MESSAGES, DECODING), RESPONSE)
    cassettes.mark("bench", "S", "the source recorded only item 1", item_id="S/2")
    cassettes.mark("bench", "T", "the source recorded nothing of T")
    cassettes.write()
    return cassettes


def replay(tmp_path, item_id: str, cassette: str = "S", messages=MESSAGES, mode=RecordMode.NONE) -> str:
    recorder = Recorder(tmp_path, "gpt-4-0314", mode)
    model = Model.connect("gpt-4-0314", recorder, Endpoint(None))
    try:
        recorder.begin("bench", cassette, item_id)
        return model.chat(messages, **DECODING)
    finally:
        recorder.end()
        model.close()


def test_an_imported_answer_replays_through_the_openai_client(tmp_path):
    imported(tmp_path)
    assert replay(tmp_path, "S/1") == "Yes"


def test_a_different_request_misses_the_imported_answer(tmp_path):
    imported(tmp_path)
    changed = [*MESSAGES[:-1], {"role": "user", "content": "classify this."}]
    with pytest.raises(CassetteMiss, match="no recorded answer for item S/1"):
        replay(tmp_path, "S/1", messages=changed)


def test_items_the_source_never_recorded_skip_with_its_reason(tmp_path):
    imported(tmp_path)
    with pytest.raises(NotRecorded, match="recorded only item 1"):
        replay(tmp_path, "S/2")
    with pytest.raises(NotRecorded, match="recorded nothing of T"):
        replay(tmp_path, "T/9", cassette="T")


def test_recording_a_not_recorded_item_clears_its_mark(tmp_path):
    imported(tmp_path)
    path = cassette_file(tmp_path, "gpt-4-0314", "bench", "S")
    recorder = Recorder(tmp_path, "gpt-4-0314", RecordMode.NEW_EPISODES)
    recorder.begin("bench", "S", "S/2")  # a recording mode never raises NotRecorded
    recorder.tape.keep("d" * 64, {"body": "{}"},
                       {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}})
    recorder.end()
    assert merge_journals(tmp_path / "gpt-4-0314", recorder.session_id).items == 1
    by_item, marks = read_cassette_file(path)
    assert sorted(by_item) == ["S/1", "S/2"] and marks == {}


def test_importing_twice_gives_identical_files_that_vcrpy_reads(tmp_path):
    first = {p: p.read_bytes() for p in imported(tmp_path).write()}
    second = {p: p.read_bytes() for p in imported(tmp_path).write()}
    assert first == second and len(first) == 2
    requests, responses = deserialize(first[cassette_file(tmp_path, "gpt-4-0314", "bench", "S")].decode(),
                                      jsonserializer)
    assert json.loads(requests[0].body)["messages"] == MESSAGES and responses[0]["status"]["code"] == 200


def test_decodingtrust_model_spellings_resolve_to_the_snapshot_id():
    assert resolve("gpt4").full == resolve("gpt-4-0314").full == "gpt-4-0314"
    assert resolve("gpt3").full == resolve("gpt3.5").full == "gpt-3.5-turbo-0301"
    with pytest.raises(Exception, match="recorded no run of 'llama'.*gpt-4-0314 \\(gpt4\\).*vicuna-7b-v1.3 \\(vicuna\\)"):
        resolve("llama")
    assert import_command("gpt4") == "pytest-trust import decodingtrust --model gpt4"


@pytest.mark.parametrize(("spelling", "full", "org"), [
    ("vicuna", "vicuna-7b-v1.3", "lmsys"), ("hf/lmsys/vicuna-7b-v1.3", "vicuna-7b-v1.3", "lmsys"),
    ("lmsys/vicuna-7b-v1.3", "vicuna-7b-v1.3", "lmsys"), ("alpaca-native", "alpaca-native", "chavinlo"),
    ("falcon", "falcon-7b-instruct", "tiiuae"), ("llama2", "Llama-2-7b-chat-hf", "meta-llama"),
    ("hf/mosaicml/mpt-7b-chat", "mpt-7b-chat", "mosaicml"),
    ("hf/togethercomputer/RedPajama-INCITE-7B-Instruct", "RedPajama-INCITE-7B-Instruct", "together"),
])
def test_open_models_resolve_by_decodingtrusts_id_and_a_short_alias(spelling, full, org):
    names = resolve(spelling)
    assert (names.full, names.org) == (full, org)


def test_open_models_accept_every_model_column_decodingtrust_wrote():
    assert resolve("falcon").column_spellings() == ("hf/tiiuae/falcon-7b-instruct", "falcon-7b-instruc",
                                                    "falcon-7b-instruct")
    assert "pt-7b-chat" in resolve("mpt").column_spellings()
    assert resolve("gpt4").column_spellings() == ("gpt-4-0314",)


def test_import_model_writes_each_perspectives_recordings_and_reports_them(tmp_path, monkeypatch):
    """The importer on a benchmark the test declares: recorded requests, rebuilt requests, marks; found
    through the registry by name, like a built-in perspective."""
    from pytest_trust import benchmarks
    from pytest_trust.benchmarks.spec import Benchmark, Recorded, Unrecorded
    from pytest_trust.importers.decodingtrust import import_model, importable
    from pytest_trust.items import Item

    def item(n: int) -> Item:
        return Item(f"S/{n}", "fake", "S", {"text": f"q{n}"}, DECODING)

    def recordings(data, names):
        return [
            Recorded(item(1), RESPONSE, messages=MESSAGES),  # the recording holds the request
            Recorded(item(2), RESPONSE),  # answers only: the request is rebuilt by messages()
            Unrecorded("fake", "S", "the source stopped early", item_id="S/3"),
            Unrecorded("fake", "T", "never recorded", files=("data/fake/T.jsonl",)),
        ]

    fake = Benchmark("fake", run=None, aggregate=None, metric_keys=tuple, suites=(),
                     recordings={"decodingtrust": recordings},
                     messages=lambda it: [{"role": "user", "content": it.inputs["text"]}])
    monkeypatch.setitem(benchmarks.BENCHMARKS, "fake", fake)
    assert importable()[-1] is fake
    report = import_model(None, "gpt4", tmp_path, ["fake"])
    assert report.model == "gpt-4-0314"
    assert list(report.lines()) == [
        "fake/S: 2 item(s) imported; not recorded: the source stopped early",
        "fake/T: 0 item(s) imported; not recorded: never recorded; missing files: data/fake/T.jsonl",
    ]
    by_item, marks = read_cassette_file(cassette_file(tmp_path, "gpt-4-0314", "fake", "S"))
    sent = {key: json.loads(value[0]["request"]["body"])["messages"] for key, value in by_item.items()}
    assert sent == {"S/1": MESSAGES, "S/2": [{"role": "user", "content": "q2"}]} and marks == {
        "S/3": "the source stopped early"}
    assert read_cassette_file(cassette_file(tmp_path, "gpt-4-0314", "fake", "T"))[1] == {"*": "never recorded"}


def test_the_importer_finds_its_benchmarks_in_the_registry(tmp_path, monkeypatch):
    """No list of perspectives of its own: every benchmark with a DecodingTrust reader, in registry order (the
    order of `pytest-trust import decodingtrust`); an import hint for any of them, passed by name or object."""
    from pytest_trust import benchmarks
    from pytest_trust.benchmarks.spec import Benchmark
    from pytest_trust.errors import UsageProblem
    from pytest_trust.importers import import_hint
    from pytest_trust.importers.decodingtrust import PERSPECTIVES, import_model, importable

    assert PERSPECTIVES == tuple(b.name for b in importable()) == (
        "ood", "advglue", "adv_demonstration", "machine_ethics", "fairness", "toxicity", "stereotype", "privacy")
    assert import_hint("gpt-4-0314", ["rules", "fake"]) is None
    fake = Benchmark("fake", run=None, aggregate=None, metric_keys=tuple, suites=(),
                     recordings={"decodingtrust": lambda data, names: []})
    monkeypatch.setitem(benchmarks.BENCHMARKS, "fake", fake)
    assert import_hint("gpt-4-0314", ["rules", "fake"]) == (
        "DecodingTrust recorded this model; import its run with `pytest-trust import decodingtrust --model gpt-4-0314`")
    assert import_model(None, "gpt4", tmp_path, [fake]).cassettes == {}
    with pytest.raises(UsageProblem, match="no benchmark 'rules' to import from DecodingTrust"):
        import_model(None, "gpt4", tmp_path, ["rules"])
