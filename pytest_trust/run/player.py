"""What plays the items: the recorder, the model behind its endpoint (or the application's server), and the
batch queue of --trust-batch; ``playing.play`` plays one item with it."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from ..endpoint.client import Endpoint, Model
from ..endpoint.target import serving
from ..options import RunConfig
from ..recording import Recorder, redact
from ..recording.batch import BatchQueue
from ..recording.cassettes import model_dir
from .playing import Played
from .services import Services


class Player:
    def __init__(self, config: RunConfig, worker: str | None, session_id: str | None = None) -> None:
        self.config = config
        self.recorder = (Recorder(config.cassettes, config.recordings, config.record_mode, session_id,
                                 worker or "main")
                         if config.recordings else None)  # a system prompt's recordings: a folder of their own
        self.model: Model | None = None
        self.services = Services()  # what benchmarks declare they need (run/services.py); the plugin chooses them
        self.batch = (BatchQueue(model_dir(config.cassettes, config.recordings))
                      if config.batch and config.recordings and worker is None else None)
        self.batch_lines: list[str] = []  # what --trust-batch collected and submitted
        self.app_url: str | None = None  # the application target's local server, once started
        self.closing = ExitStack()  # what the run started and stops at its end (that server)
        self.played_ahead: dict[str, Played] = {}  # nodeid -> what a concurrent recording pass gave
        self.running: Any = None  # the pytest item being set up (its trust_result fixture's node)

    def endpoint(self) -> Endpoint:
        target = self.config.target
        if target is not None and target.call is not None:  # the application answers, behind a server of ours
            if self.app_url is None:
                self.app_url = self.closing.enter_context(serving(target))
            return Endpoint(self.app_url, timeout=self.config.timeout, max_retries=self.config.retries,
                            label=f"the application {target.name}")
        return Endpoint(self.config.base_url, timeout=self.config.timeout, max_retries=self.config.retries,
                        others=self.config.other_urls, rpm=self.config.rpm, tpm=self.config.tpm,
                        key_env=self.config.api_key_env)

    def redacted(self, text: str) -> str:
        """``text`` without this run's credentials or anything credential-shaped: what an endpoint's error says
        goes to the terminal and every report."""
        return redact.redact(text, redact.known(self.config.base_url, *self.config.other_urls,
                                                variables=(self.config.api_key_env,)))

    def collect_batches(self) -> None:
        """--trust-batch, at the start: the answers of finished batches go into the cassettes."""
        assert self.batch is not None and self.recorder is not None
        with self.endpoint().plain_client() as client:
            report = self.batch.collect(client, self.recorder.session_id)
        self.batch_lines += report.lines

    def submit_batch(self) -> None:
        """--trust-batch, at the end: the requests this run queued become one batch."""
        assert self.batch is not None
        queued = len(self.batch.new)
        with self.endpoint().plain_client() as client:
            batch_id = self.batch.submit(client)
        if batch_id:
            self.batch_lines.append(f"batch {batch_id}: submitted with {queued} requests; run again with "
                                    "--trust-batch to collect its answers")

    def connect(self) -> Model:
        if self.model is None:
            assert self.recorder is not None and self.config.model
            prompt = self.config.system_prompt
            self.model = Model.connect(self.config.model, self.recorder, self.endpoint(), self.batch,
                                       deployment=prompt)
        return self.model

    def close(self) -> None:
        if self.model is not None:
            self.model.close()
        self.closing.close()
        if self.recorder is not None:
            self.recorder.journal.close()
