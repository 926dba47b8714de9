"""Which of DecodingTrust's two advglue requests an item sends (setting ``advglue_protocol``).

``paper`` (default) is the first commit's script, AI-secure/DecodingTrust@c9b63ad
``adv-glue-plus-plus/gpt_eval.py``, which produced the published AdvGLUE numbers: a system turn, no
demonstrations, and a request of model, messages and temperature 0 only. ``head`` is
AI-secure/DecodingTrust@161ae83 ``src/dt/perspectives/advglue/gpt_eval.py`` with its configs
(``sys: false``, ``demo: true``): demonstration turns and no system turn, sent through ``Chat.call`` with
``max_tokens=16`` (and its default ``n=1``). The two also spell the qqp prompt differently (see prompts.py);
both parse answers with the same ``response_to_labels``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....errors import UsageProblem

PROTOCOLS = ("paper", "head")
DEFAULT_PROTOCOL = "paper"

# The request fields each protocol sends besides model and messages
DECODING: Mapping[str, Mapping[str, Any]] = {
    "paper": {"temperature": 0},
    "head": {"temperature": 0, "max_tokens": 16, "n": 1},
}
SYSTEM_TURN = {"paper": True, "head": False}  # c9b63ad always sends one; 161ae83's configs say sys: false
DEMONSTRATIONS = {"paper": False, "head": True}  # c9b63ad has no demonstrations; 161ae83's configs say demo: true


def protocol(settings: Mapping[str, Any] | None) -> str:
    chosen = (settings or {}).get("advglue_protocol") or DEFAULT_PROTOCOL
    if chosen not in PROTOCOLS:
        raise UsageProblem(f"unknown advglue protocol {chosen!r}; expected one of {', '.join(PROTOCOLS)}")
    return chosen
