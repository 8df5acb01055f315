"""The runners' lean request path (issue 21): the SDK's ``post`` with ``create``'s body and answers read straight
from their JSON, each checked against the path it replaces (the SDK's own ``with_raw_response.create`` and its
parser) on the same answers. The HTTP transport's hostile cases are in ``test_sdk_transport.py``."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fake_llm_server import FakeLLMServer, drop, isolate_api_environment, ok, slow, status, truncated
from fastspe.runners import GenerationSettings
from fastspe.runners import anthropic_runner, openai_runner
from fastspe.runners.anthropic_runner import AnthropicMessages
from fastspe.runners.base import classify_sdk_error, response_failures
from fastspe.runners.http_client import httpx_of
from fastspe.runners.openai_runner import RAW_RESPONSE_HEADER, TRIAL_HEADER, OpenAIChat, raw_response_header
from fastspe.runners.retry import AttemptError

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = httpx_of(openai)
KEY = "sk-fastspe-LEAN-0000000000000000"
PROMPT = "Solve this board."


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    isolate_api_environment(monkeypatch, KEY)


def sdk_complete(wire: str, url: str, runner, settings: GenerationSettings, trial_id: str, timeout: float):
    """The replaced path: ``with_raw_response.create`` and the SDK's parser, on the SDK's default HTTP client."""
    sdk, make = (openai, openai.OpenAI) if wire == "openai" else (anthropic, anthropic.Anthropic)
    client = make(api_key=KEY, base_url=url, max_retries=0, timeout=timeout)
    resource = client.chat.completions if wire == "openai" else client.messages
    module = openai_runner if wire == "openai" else anthropic_runner
    try:
        try:
            raw = resource.with_raw_response.create(
                **runner.request(PROMPT, settings), extra_headers={TRIAL_HEADER: trial_id}
            )
        except sdk.APIError as exc:
            raise classify_sdk_error(exc, sdk, ()) from None
        try:
            return module.completion_of(raw.parse(), raw.headers, raw.status_code)
        except response_failures(sdk) as exc:
            raise classify_sdk_error(exc, sdk, ()) from None
    finally:
        client.close()


def outcome(fn, port: int | None = None):
    """``fn()``'s Completion, or its AttemptError's kind, message (the server's ``port`` in it as PORT: each path
    has a server of its own), status and Retry-After."""
    try:
        return fn()
    except AttemptError as err:
        message = err.message.replace(f":{port}", ":PORT") if port else err.message
        return ("error", err.kind, message, err.http_status, err.retry_after)


ACTIONS = [
    ok,
    lambda: ok("MOVES: U,L,D,R", finish_reason="length"),
    lambda: ok("", model="other-model"),
    lambda: status(429, retry_after=0.01),
    lambda: status(500),
    lambda: status(404),
    drop,
    truncated,
    lambda: slow(0.6),
]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize("action", ACTIONS)
def test_complete_gives_what_the_sdk_path_gives(wire, action):
    """Each path on a server of its own (answers carry the request's number): the same outcome, and the same
    request on the wire (the body, and every header but the SDK's per-request ones and the host's port)."""
    settings, seen, outcomes = GenerationSettings(max_tokens=64, temperature=0.0, stop=["END"]), [], []
    scripted = action()
    timeout = 0.3 if scripted.delay else 10.0  # short only where the answer is to come too late
    for path in ("runner", "sdk"):
        with FakeLLMServer(key=KEY) as server:
            url = server.openai_url if wire == "openai" else server.anthropic_url
            runner = (OpenAIChat if wire == "openai" else AnthropicMessages)("fake", base_url=url, timeout=timeout)
            settings = runner.effective_settings(settings)
            server.push(action())
            if path == "runner":
                outcomes.append(outcome(lambda: runner.complete(PROMPT, settings, "trial-1"), server.port))
            else:
                outcomes.append(
                    outcome(lambda: sdk_complete(wire, url, runner, settings, "trial-1", timeout), server.port)
                )
            runner.close()
            deadline = time.monotonic() + 5
            while not server.seen and time.monotonic() < deadline:  # (a timed-out request may be seen late)
                time.sleep(0.01)
            time.sleep(0.4 if scripted.delay else 0)  # a slow answer finishes before the server stops
            seen.append(server.seen[0])
    if scripted.delay:  # both time out; the runner's words name its deadline for the whole attempt
        assert outcomes[0][:2] == outcomes[1][:2] == ("error", "timeout") and outcomes[0][3:] == outcomes[1][3:]
        assert "no complete answer within the timeout of 0.3 s" in outcomes[0][2]
    else:
        assert outcomes[0] == outcomes[1]
    assert seen[0].body == seen[1].body and seen[0].path == seen[1].path
    assert drop_volatile(seen[0].headers) == drop_volatile(seen[1].headers)


def drop_volatile(headers: dict) -> dict:
    return {k: v for k, v in headers.items() if k not in ("x-stainless-retry-count", "idempotency-key", "host")}


def test_the_raw_response_header_is_the_sdks():
    assert raw_response_header(openai) == raw_response_header(anthropic) == RAW_RESPONSE_HEADER


# --- the lean JSON reads against the SDK's parser, on every shape of answer -----------------------------------


def maybe(value_strategy, *odd):
    """A field: usually ``value_strategy``, sometimes missing (``...``), sometimes an odd JSON value."""
    odd_values = st.sampled_from([None, 0, 1.5, True, "x", [], {}, [1], {"a": 1}, *odd])
    return st.one_of(value_strategy, value_strategy, st.just(...), odd_values)


def obj(**fields):
    return st.fixed_dictionaries({k: v for k, v in fields.items()}).map(
        lambda d: {k: v for k, v in d.items() if v is not ...}
    )


TOKENS = st.integers(0, 10**6)
TEXT = st.text(max_size=20)
OPENAI_BODY = obj(
    id=maybe(TEXT),
    model=maybe(TEXT),
    object=st.just("chat.completion"),
    choices=maybe(
        st.lists(
            obj(
                index=st.just(0),
                finish_reason=maybe(st.sampled_from(["stop", "length"])),
                message=maybe(obj(role=st.just("assistant"), content=maybe(TEXT))),
            ),
            min_size=0,
            max_size=2,
        )
    ),
    usage=maybe(
        obj(
            prompt_tokens=maybe(TOKENS),
            completion_tokens=maybe(TOKENS),
            completion_tokens_details=maybe(obj(reasoning_tokens=maybe(TOKENS))),
        )
    ),
)
ANTHROPIC_BODY = obj(
    id=maybe(TEXT),
    type=st.just("message"),
    role=st.just("assistant"),
    model=maybe(TEXT),
    stop_reason=maybe(st.sampled_from(["end_turn", "max_tokens", "stop_sequence", "refusal"])),
    content=maybe(
        st.lists(
            st.one_of(
                obj(type=st.just("text"), text=maybe(TEXT)),
                obj(type=maybe(st.sampled_from(["thinking", "redacted_thinking", "tool_use"])), thinking=TEXT),
            ),
            max_size=3,
        )
    ),
    usage=maybe(obj(input_tokens=maybe(TOKENS), output_tokens=maybe(TOKENS))),
)
HEADERS = st.sampled_from([{}, {"x-request-id": "req-9"}, {"request-id": ""}])


def response_of(body, headers: dict):
    return httpx.Response(
        200,
        content=json.dumps(body).encode(),
        headers={"content-type": "application/json", **headers},
        request=httpx.Request("POST", "http://127.0.0.1/v1/x"),
    )


def sdk_read(parse, module, response):
    try:
        return module.completion_of(parse(response.json()), response.headers, response.status_code)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        return "the SDK's parser fails"


def parse_chat(data):
    return openai.types.chat.ChatCompletion.construct(**data)  # the SDK's (non-validating) parse of a JSON object


def parse_message(data):
    return anthropic.types.Message.construct(**data)


@settings(max_examples=400, deadline=None)
@given(body=OPENAI_BODY, headers=HEADERS)
def test_lean_chat_completion_is_the_sdks_reading_or_declines(body, headers):
    response = response_of(body, headers)
    lean = openai_runner.lean_completion(response)
    assert lean is None or lean == sdk_read(parse_chat, openai_runner, response)


@settings(max_examples=400, deadline=None)
@given(body=ANTHROPIC_BODY, headers=HEADERS)
def test_lean_message_is_the_sdks_reading_or_declines(body, headers):
    response = response_of(body, headers)
    lean = anthropic_runner.lean_completion(response)
    assert lean is None or lean == sdk_read(parse_message, anthropic_runner, response)


@pytest.mark.parametrize("body", [b"", b"{", b"[1, 2]", b'"text"', b'{"choices": {"0": {}}}', b"\xff\xfe"])
def test_lean_reads_decline_what_is_not_an_answer(body):
    response = httpx.Response(200, content=body, request=httpx.Request("POST", "http://127.0.0.1/v1/x"))
    assert openai_runner.lean_completion(response) is None and anthropic_runner.lean_completion(response) is None


def test_lean_reads_take_ordinary_answers():
    chat = {
        "id": "c1",
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "MOVES: U"}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "completion_tokens_details": {"reasoning_tokens": 2}},
    }
    message = {
        "id": "m1",
        "model": "c",
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 5, "output_tokens": 3},
        "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "MOVES: U"}],
    }
    got = openai_runner.lean_completion(response_of(chat, {}))
    assert got is not None and got == sdk_read(parse_chat, openai_runner, response_of(chat, {}))
    assert (got.text, got.reasoning_tokens, got.request_id) == ("MOVES: U", 2, "c1")
    got = anthropic_runner.lean_completion(response_of(message, {"request-id": "r1"}))
    assert got is not None and got == sdk_read(
        parse_message, anthropic_runner, response_of(message, {"request-id": "r1"})
    )
    assert (got.text, got.finish_reason, got.raw_finish_reason, got.request_id) == (
        "MOVES: U",
        "length",
        "max_tokens",
        "r1",
    )
