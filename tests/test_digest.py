from pytest_trust.recording.digest import endpoint_of, request_digest

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0, "max_tokens": 100}


def test_digest_ignores_key_order_and_routing_fields():
    reordered = {"max_tokens": 100, "temperature": 0, "messages": BODY["messages"], "model": "m",
                 "user": "someone", "metadata": {"run": "1"}}
    assert request_digest("POST", "/chat/completions", reordered) == request_digest("post", "/chat/completions", BODY)


def test_digest_treats_integral_floats_as_integers():
    assert request_digest("POST", "/chat/completions", {**BODY, "temperature": 0.0}) == request_digest(
        "POST", "/chat/completions", BODY)


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
