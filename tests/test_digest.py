import json

from pytest_trust.recording.digest import canonical_float, endpoint_of, request_digest

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0, "max_tokens": 100}


def test_digest_ignores_key_order_and_routing_fields():
    reordered = {"max_tokens": 100, "temperature": 0, "messages": BODY["messages"], "model": "m",
                 "user": "someone", "metadata": {"run": "1"}}
    assert request_digest("POST", "/chat/completions", reordered) == request_digest("post", "/chat/completions", BODY)


def test_digest_treats_integral_floats_as_integers():
    assert request_digest("POST", "/chat/completions", {**BODY, "temperature": 0.0}) == request_digest(
        "POST", "/chat/completions", BODY)


def test_a_body_parsed_canonically_digests_as_the_plain_parse():
    """The replay transport parses with canonical_float and skips the walk: the digest must not move."""
    body = {**BODY, "temperature": 1.0, "top_p": 0.95, "max_tokens": 1e3, "logit_bias": {"50256": -100.0},
            "messages": [{"role": "user", "content": "0.0 1.5e3"}], "tools": [{"x": [2.0, 2.5, -0.0, 1e20]}]}
    raw = json.dumps(body)
    assert '"temperature": 1.0' in raw  # the floats really are spelt as floats
    assert request_digest("POST", "/chat/completions", json.loads(raw, parse_float=canonical_float),
                          canonical=True) == request_digest("POST", "/chat/completions", json.loads(raw))


def test_digest_changes_with_everything_that_determines_the_answer():
    base = request_digest("POST", "/chat/completions", BODY)
    variants = [
        {**BODY, "model": "other"},
        {**BODY, "messages": [{"role": "user", "content": "hi!"}]},
        {**BODY, "messages": [{"role": "system", "content": "hi"}]},
        {**BODY, "temperature": 0.5},
        {**BODY, "max_tokens": 99},
        {**BODY, "seed": 1},
        {**BODY, "n": 2},
        {**BODY, "stop": ["\n"]},
    ]
    digests = {request_digest("POST", "/chat/completions", v) for v in variants}
    assert base not in digests and len(digests) == len(variants)
    assert request_digest("POST", "/completions", BODY) != base


def test_endpoint_is_relative_to_the_base_url():
    assert endpoint_of("/v1/chat/completions", "/v1") == "/chat/completions"
    assert endpoint_of("/openai/v1/chat/completions", "/openai/v1/") == "/chat/completions"
    assert endpoint_of("/chat/completions", "") == "/chat/completions"
