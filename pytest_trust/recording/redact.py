"""Credentials out of the text a run shows and writes.

An endpoint's error text becomes an item's error message, and that message reaches the terminal and every
report (JSON, JUnit XML, HTML, Markdown), which CI uploads as artifacts; some proxies echo the key they
refused (``401 Incorrect API key provided: Bearer sk-...``). So error text is redacted where it enters the
run: the exact credentials this run holds, whatever their shape, and anything the audit
(recording/audit.py) calls credential-shaped. Only failures pay for it: an answer's text is never redacted.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterable, Mapping
from urllib.parse import unquote, unquote_plus, urlsplit

from .audit import REDACTED, secret_spans

# Where this run's credentials come from: the openai client's variables and the Perspective scorer's.
VARIABLES = ("OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID", "PERSPECTIVE_API_KEY")
SHORTEST = 4  # a shorter value is no secret worth the text it would mangle


def known(*urls: str | None, environ: Mapping[str, str] | None = None, variables: Iterable[str] = ()) -> tuple[str, ...]:
    """The credentials this run holds, longest first: keys and ids from the environment (``variables`` too: a key
    read from another one, --trust-api-key-env); each endpoint URL's password (as written and decoded), the Basic
    credential its user:password becomes, its query values."""
    environ = os.environ if environ is None else environ
    values = [environ.get(name) for name in (*VARIABLES, *variables)]
    for url in filter(None, urls):
        parts = urlsplit(url)
        if parts.password:
            user, password = unquote(parts.username or ""), unquote(parts.password)
            values += [parts.password, password, base64.b64encode(f"{user}:{password}".encode()).decode()]
        for pair in parts.query.split("&"):
            value = pair.partition("=")[2]
            values += [value, unquote_plus(value)]
    return tuple(sorted({v for v in values if v and len(v) >= SHORTEST}, key=len, reverse=True))


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with each of ``secrets`` and every credential-shaped string replaced by ``[redacted]``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    data = text.encode("utf-8", "surrogatepass")  # any text, a lone surrogate included
    merged: list[list[int]] = []
    for start, end in secret_spans(data):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    if not merged:
        return text
    pieces, at = [], 0
    for start, end in merged:
        pieces += [data[at:start], REDACTED.encode()]
        at = end
    return b"".join([*pieces, data[at:]]).decode("utf-8", "surrogatepass")
