"""Redaction of the text a run shows and writes: the credentials it holds, and anything credential-shaped."""

from __future__ import annotations

import base64

import pytest
from test_secrets import FAKE_KEY, FAKE_ORG, PASSWORD, QUERY_SECRET, SHAPED, USER

from pytest_trust.recording.audit import scan_bytes
from pytest_trust.recording.redact import REDACTED, known, redact


def test_an_echoed_key_is_redacted_by_its_shape():
    assert redact(f"HTTP 401 (Incorrect API key provided: Bearer {FAKE_KEY})") == \
        "HTTP 401 (Incorrect API key provided: Bearer [redacted])"
    assert redact(f"HTTP 401 (Incorrect API key provided: {FAKE_KEY}.)") == \
        "HTTP 401 (Incorrect API key provided: sk-[redacted].)"


@pytest.mark.parametrize(("line", "kind"), SHAPED)
def test_every_shape_the_audit_finds_is_redacted(line, kind):
    redacted = redact(f"first line\n{line}\n")
    assert REDACTED in redacted and scan_bytes(redacted.encode()) == []


def test_the_runs_own_credentials_are_redacted_whatever_their_shape():
    environ = {"OPENAI_API_KEY": "plain-proxy-key", "OPENAI_ORG_ID": FAKE_ORG, "PERSPECTIVE_API_KEY": "pk-42a",
               "HOME": "/root"}
    secrets = known(f"http://{USER}:{PASSWORD}@h:1/v1?api-key={QUERY_SECRET}&v=2", environ=environ)
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    assert set(secrets) == {"plain-proxy-key", FAKE_ORG, "pk-42a", PASSWORD, QUERY_SECRET, basic}  # "2": too short
    text = f"refused plain-proxy-key and pk-42a, {PASSWORD}, Basic {basic}, ?api-key={QUERY_SECRET} for /root"
    assert redact(text, secrets) == ("refused [redacted] and [redacted], [redacted], Basic [redacted], "
                                     "?api-key=[redacted] for /root")


def test_a_percent_encoded_password_is_known_in_both_forms():
    assert {"p@ss:w0rd/", "p%40ss%3Aw0rd%2F"} <= set(known("http://u:p%40ss%3Aw0rd%2F@h/v1", environ={}))


def test_prose_and_messages_without_credentials_are_left_as_they_are():
    for text in ("HTTP 503 (injected 503)", "the secret password is hunter2", "Bearer of bad news",
                 "connection failed (ConnectError: [Errno 111] Connection refused)", "naïve café ✓"):
        assert redact(text, known(environ={})) == text


def test_text_with_lone_surrogates_is_redacted_and_keeps_them():
    text = f"answer \ud800 then Bearer {FAKE_KEY} and \udcff"
    assert redact(text) == f"answer \ud800 then Bearer {REDACTED} and \udcff"
