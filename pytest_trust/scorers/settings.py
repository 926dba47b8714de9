"""What the session tells a scorer it builds: where recorded scores live, how to record them, the key."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..recording import RecordMode
from ..recording.cassettes import model_dir

DEFAULT_RPM = 60.0  # Perspective's default quota is one query per second
PERSPECTIVE_URL = "https://commentanalyzer.googleapis.com/v1alpha1/comments:analyze"
MODERATION_URL = "https://api.openai.com/v1"  # OpenAI's API, for its moderation endpoint


@dataclass(frozen=True)
class Settings:
    """The session's scorer settings; the key is read from the environment, never stored on disk."""

    name: str | None = None  # a registered scorer's name, resolved by configure; None before it (offline)
    cassettes: Path | None = None  # cassette root; None: remote scores are not recorded
    model: str | None = None  # the evaluated model, whose cassette folder holds its scores
    record_mode: RecordMode = RecordMode.NONE  # the session's record mode
    rpm: float = DEFAULT_RPM
    session_id: str | None = None  # names the session's journals, shared with its xdist workers
    worker: str = "main"
    url: str = PERSPECTIVE_URL  # the analyze endpoint (another only in tests)
    key: str | None = field(default=None, repr=False)  # the chosen scorer's key (its spec's key_variable)
    moderation_url: str = MODERATION_URL  # OpenAI's API base URL (another only in tests)
    registered: tuple[str, ...] = ()  # every registered scorer's name: a message names the others

    @property
    def scores_root(self) -> Path | None:
        """The folder a recording scorer treats as its cassette root: the evaluated model's."""
        if self.cassettes is None or self.model is None:
            return None
        return model_dir(self.cassettes, self.model)


def scorer_mode(session: RecordMode, has_key: bool) -> RecordMode:
    """How remote scores are recorded: as the session records; in a replay, scores never recorded are fetched
    (and recorded) only when a key is given, else they miss."""
    if session.can_record:
        return session
    return RecordMode.NEW_EPISODES if has_key else RecordMode.NONE
