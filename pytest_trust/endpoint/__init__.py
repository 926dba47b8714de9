"""Talking to a live endpoint: pacing, spreading the load, the breaker that stops a run, and the conditions
an answer can report. Nothing here reads or writes a cassette (that is ``recording/``)."""
