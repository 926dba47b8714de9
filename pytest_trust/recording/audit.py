"""Credential-shaped strings in recorded files and reports, found before they are committed or shared.

Recording scrubs requests (headers by allow-list, userinfo and query off the URI) and a run redacts the
error text its reports show (redact.py), but a cassette can also be written by hand, by an importer or
by an older version; the audit checks what is on disk.
It matches the *shapes* of credentials (key prefixes, header names with a value, URL userinfo, query
parameters named like secrets), never words: benchmark prompts and answers talk about passwords and
secret keys all the time. A finding names the file, the line and the kind, and shows at most a
masked prefix, so the report itself can be pasted anywhere.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

SHOWN = 2  # characters of a secret a finding may show, after its fixed prefix
MASK = "…"
REDACTED = "[redacted]"  # what pytest_trust/recording/redact.py leaves in a secret's place: a placeholder below

HEADERS = ("authorization", "proxy-authorization", "api-key", "x-api-key", "x-goog-api-key", "openai-organization",
           "openai-project", "cookie", "set-cookie")
PARAMS = ("api-key", "api_key", "apikey", "key", "token", "access-token", "access_token", "refresh_token", "id_token",
          "auth_token", "secret", "client_secret", "password", "passwd", "pwd", "sig", "signature",
          "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature")
# Values that stand for a credential in docs and examples rather than being one.
_PLACEHOLDER = re.compile(
    rb"(<[^>]*>|\{[^}]*\}|\$\{?\w+\}?|%[sd]|x+|\*+|\.+|-+|your[\w-]*|\[?redacted\]?|dummy|none|null|"
    rb"(?-i:[A-Z0-9]+(_[A-Z0-9]+)+))",
    re.IGNORECASE,
)
_AUTH_SCHEME = re.compile(rb"^(bearer|basic|token|digest)\s+", re.IGNORECASE)


def _random_looking(secret: bytes) -> bool:
    """Keys and tokens are random: a digit, or mixed case. Hyphenated prose (``org-wide-...``) is neither."""
    return any(c in b"0123456789" for c in secret) or (secret.lower() != secret and secret.upper() != secret)


def _not_placeholder(secret: bytes) -> bool:
    return _PLACEHOLDER.fullmatch(secret.strip()) is None


def _header_not_placeholder(value: bytes) -> bool:
    """``Bearer YOUR_TOKEN`` in an example is not a credential; the scheme word is not the value."""
    return _not_placeholder(_AUTH_SCHEME.sub(b"", value.strip()))


def _password_not_placeholder(secret: bytes) -> bool:
    return _not_placeholder(secret.partition(b":")[2])


def _always(secret: bytes) -> bool:
    return True


@dataclass(frozen=True)
class Shape:
    """One kind of credential: a pattern whose ``secret`` group is the part never shown.

    Scanning 400 MB of cassettes must take seconds, and a regex starting with an alternation or a
    look-behind tries every byte. So a pattern either starts with a literal (its look-behinds come
    after it) and runs with ``finditer``, or is tried only where one of its ``anchors`` occurs (found
    with ``bytes.find``). ``before``, if set, must match right up to the match (searched 64 bytes
    back); it is shown in the finding's prefix. A ``lowered`` shape runs over the lower-cased text,
    which has the same offsets."""

    kind: str
    pattern: re.Pattern[bytes]
    check: Callable[[bytes], bool] = _always
    anchors: tuple[bytes, ...] = ()
    before: re.Pattern[bytes] | None = None
    lowered: bool = False


def _re(pattern: str) -> re.Pattern[bytes]:
    return re.compile(pattern.encode())


def _any(names: tuple[str, ...]) -> str:
    return "(?:" + "|".join(map(re.escape, names)) + ")"


SHAPES: tuple[Shape, ...] = (
    Shape("anthropic-key", _re(r"sk-ant-(?<![\w-]sk-ant-)(?P<secret>[A-Za-z0-9_-]{20,})"), _random_looking),
    Shape("openai-key", _re(r"sk-(?<![\w-]sk-)(?!ant-)(?:proj-|svcacct-|admin-)?(?P<secret>[A-Za-z0-9_-]{20,})"),
          _random_looking),
    Shape("openai-org-id", _re(r"org-(?<![\w-]org-)(?P<secret>[A-Za-z0-9]{20,})(?![\w-])"), _random_looking),
    Shape("aws-access-key-id", _re(r"A(?:KIA|SIA)(?<![A-Za-z0-9]....)(?P<secret>[0-9A-Z]{16})(?![A-Za-z0-9])")),
    Shape("google-api-key", _re(r"AIza(?<![\w-]AIza)(?P<secret>[0-9A-Za-z_-]{35})(?![\w-])")),
    Shape("bearer-token", _re(r"(?<![\w-])bearer\s+(?P<secret>[a-z0-9._~+/=-]{16,})"), _random_looking,
          anchors=(b"bearer",), lowered=True),
    # "authorization": ["Bearer ..."], 'api-key': '...', ["cookie", "..."], also inside escaped JSON.
    Shape("credential-header", _re(r"(?<=[\"'])" + _any(HEADERS) + r"\\?[\"']\s*[:,]\s*\[?\s*\\?[\"']"
                                   r"(?P<secret>[^\"'\\\s\]][^\"'\\\r\n]*)"),
          _header_not_placeholder, anchors=tuple(n.encode() for n in HEADERS), lowered=True),
    # Authorization: Bearer ... (an HTTP or YAML line), or a YAML list item on the next line.
    Shape("credential-header", _re(_any(HEADERS) + r"[ \t]*:[ \t]*(?:\r?\n[ \t]*-[ \t]*)?"
                                   r"(?P<secret>[^\s\[\]{}\"'][^\r\n]*)"),
          _header_not_placeholder, anchors=tuple(n.encode() for n in HEADERS),
          before=_re(r"(?:^|(?<=\n))[ \t]*-?[ \t]*\Z"), lowered=True),
    Shape("url-userinfo", _re(r"://(?P<secret>[^\s/@:\"'<>\\]+:[^\s/@\"'<>\\]+)@"), _password_not_placeholder,
          before=_re(r"[A-Za-z][A-Za-z0-9+.-]*\Z")),
    Shape("url-query-credential", _re(r"=(?P<secret>[^&\s\"'#<>\\]+)"), _not_placeholder, anchors=(b"=",),
          before=_re(r"[?&]" + _any(PARAMS) + r"\Z"), lowered=True),
)


@dataclass(frozen=True, order=True)
class Finding:
    path: Path
    line: int
    kind: str
    masked: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind} ({self.masked})"


@dataclass
class AuditReport:
    files: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.findings


def mask(prefix: str, secret: bytes) -> str:
    """The fixed prefix and the first ``SHOWN`` characters, so a finding can be told apart but not used;
    nothing of a secret too short to spare them."""
    shown = secret[:SHOWN] if len(secret) >= 4 * SHOWN else b""
    return prefix + shown.decode("utf-8", "replace") + MASK


def _matches(shape: Shape, text: bytes) -> Iterator[re.Match[bytes]]:
    if not shape.anchors:
        yield from shape.pattern.finditer(text)
        return
    for anchor in shape.anchors:
        at = text.find(anchor)
        while at != -1:
            match = shape.pattern.match(text, at)
            if match:
                yield match
            at = text.find(anchor, at + 1)


def _hits(shape: Shape, data: bytes, lowered: bytes) -> Iterator[tuple[int, int, int]]:
    """(start, secret start, secret end) of each match whose ``before`` holds, in no particular order."""
    text = lowered if shape.lowered else data
    for match in _matches(shape, text):
        start = match.start()
        if shape.before is not None:
            context = shape.before.search(text, max(0, start - 64), start)
            if context is None:
                continue
            start = context.start()
        yield start, match.start("secret"), match.end("secret")


def _prefix(text: bytes) -> str:
    """What a finding shows before the secret: ``sk-``, ``authorization:``, ``api-key=``, ``https://``."""
    shown = re.sub(r"[\\\[\]\"'\s]+", " ", text.decode("utf-8", "replace"))  # no quoting or line breaks
    return re.sub(r"\s*[:,](?!//)\s*(-\s*)?", ": ", shown).lstrip("?&- ")


def secret_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every credential-shaped secret in ``data``, sorted; they may overlap."""
    lowered = data.lower()
    return sorted((start, end) for shape in SHAPES for _, start, end in _hits(shape, data, lowered)
                  if shape.check(data[start:end]))


def scan_bytes(data: bytes) -> list[tuple[int, str, str]]:
    """(line, kind, masked) for every credential-shaped string in ``data``, once per line and kind."""
    lowered = data.lower()
    found: dict[tuple[int, str], str] = {}
    for shape in SHAPES:
        line, seen = 1, 0
        for start, secret_start, secret_end in sorted(_hits(shape, data, lowered)):
            secret = data[secret_start:secret_end]
            if not shape.check(secret):
                continue
            line += data.count(b"\n", seen, start)
            seen = start
            found.setdefault((line, shape.kind), mask(_prefix(data[start:secret_start]), secret))
    return [(line, kind, masked) for (line, kind), masked in sorted(found.items())]


def scan_file(path: Path) -> list[Finding]:
    try:
        data = path.read_bytes()
    except OSError as err:
        return [Finding(path, 0, f"unreadable ({err.strerror or err})", "")]
    return [Finding(path, line, kind, masked) for line, kind, masked in scan_bytes(data)]


def files_under(root: Path) -> Iterator[Path]:
    """Every regular file, hidden ones included (journals live under ``.journal/``), in a stable order; a
    file given as ``root`` (a run's report) is itself the only one."""
    if root.is_file():
        yield root
    for directory, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            path = Path(directory, name)
            if path.is_file():
                yield path


def audit(*roots: Path) -> AuditReport:
    """Every file under each of ``roots`` (folders or files), scanned once."""
    report = AuditReport()
    for path in dict.fromkeys(path for root in roots for path in files_under(root)):
        report.files += 1
        report.findings.extend(scan_file(path))
    return report
