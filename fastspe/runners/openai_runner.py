"""OpenAI chat completions through the official ``openai`` SDK (also any compatible server).

With ``--base-url`` this talks to vLLM, Ollama, llama.cpp or any other server that speaks the
chat-completions wire format. The SDK's own retries are off: fastspe's retry loop decides.

Per request the SDK's typed layers cost more CPU than the HTTP itself (at 64 connections they made the client
its own bottleneck, issue 21), so a request goes through the SDK's generic ``post`` (its auth, headers, HTTP
client, status errors and exceptions, as ``create`` would) with the body ``create`` would send, and a well-formed
answer is read straight from its JSON (``lean_completion``); any other answer goes to the SDK's own parser,
exactly as before.
"""

from __future__ import annotations

from ..errors import UserError
from ..extras import require
from .generation import GenerationSettings
from .base import (
    Completion,
    ToolCall,
    api_key_from_env,
    as_messages,
    classify_sdk_error,
    key_secrets,
    request_id_from,
    resolve_base_url,
    response_failures,
)
from .http_client import sdk_http_client
from .pacing import rate_limits

# Per-trial header: lets a server (and the tests) tell trials apart; an opaque hash, nothing secret.
TRIAL_HEADER = "X-Fastspe-Trial-Id"
# The header by which the SDKs' ``with_raw_response`` asks for the raw response object (the same in both SDKs).
RAW_RESPONSE_HEADER = "X-Stainless-Raw-Response"
MAX_STOP_SEQUENCES = 4  # chat completions take at most 4 stop sequences


class OpenAIChat:
    """One model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    Parameters
    ----------
    model : str
        The model name sent in each request.
    base_url : str or None
        The server (e.g. ``http://localhost:8000/v1``); None for OPENAI_BASE_URL or api.openai.com.
    timeout : float
        Seconds per request, from its start to the end of its answer.
    max_connections : int
        Requests in flight at most (the connection pool's size).
    """

    provider = "openai"

    def __init__(self, model: str, base_url: str | None = None, timeout: float = 120.0, max_connections: int = 4):
        openai = require("openai", "--model openai:...")  # here: `fastspe` starts fast without it

        self._sdk = openai
        self.model = model
        self.base_url = resolve_base_url("openai", base_url)
        key = api_key_from_env("openai", base_url)
        self.secrets = key_secrets(key)
        # api.openai.com wants max_completion_tokens (reasoning models reject max_tokens);
        # compatible servers know max_tokens.
        self._max_tokens_param = "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"
        self._client = openai.OpenAI(
            api_key=key,
            base_url=self.base_url,
            max_retries=0,
            timeout=timeout,
            http_client=sdk_http_client(openai, timeout, max_connections),
        )
        self._raw_header = raw_response_header(openai)
        self._answer_type = openai.types.chat.ChatCompletion

    @staticmethod
    def effective_settings(settings: GenerationSettings) -> GenerationSettings:
        """``settings`` as sent; a ValueError (before any request) for those the wire format lacks."""
        if settings.thinking_budget is not None:
            raise UserError(
                "--thinking-budget is Anthropic's extended thinking; for openai: models give --reasoning-effort instead"
            )
        if settings.stop is not None and len(settings.stop) > MAX_STOP_SEQUENCES:
            raise UserError(
                f"openai: models take at most {MAX_STOP_SEQUENCES} --stop sequences, got {len(settings.stop)}"
            )
        return settings

    def request(self, messages, settings: GenerationSettings, tools: list | None = None) -> dict:
        """The keyword arguments of one request (``messages``: a conversation in the chat format, or a prompt's
        text); only the settings given are sent, and ``tools`` only when given."""
        kwargs: dict = {"model": self.model, "messages": as_messages(messages)}
        if tools:
            kwargs["tools"] = tools
        optional = {
            "temperature": settings.temperature,
            self._max_tokens_param: settings.max_tokens,
            "top_p": settings.top_p,
            "seed": settings.seed,
            "stop": list(settings.stop) if settings.stop else None,
        }
        kwargs.update((k, v) for k, v in optional.items() if v is not None)
        extra = dict(settings.extra_body or {})
        if settings.reasoning_effort is not None:
            # Via extra_body: SDKs before 1.58 lack the argument; the body sent is the same.
            extra["reasoning_effort"] = settings.reasoning_effort
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def body(self, messages, settings: GenerationSettings, tools: list | None = None) -> dict:
        """The JSON body of one request, as ``create(**request(...))`` sends it (``extra_body`` merged in)."""
        kwargs = self.request(messages, settings, tools)
        extra = kwargs.pop("extra_body", {})
        return {**kwargs, **extra}

    def complete(
        self, messages, settings: GenerationSettings, trial_id: str = "", tools: list | None = None
    ) -> Completion:
        """Send one request of a conversation (a prompt's text: a fresh single-message chat) offering ``tools``;
        raise ``AttemptError`` on any failure."""
        headers = {self._raw_header: "true", TRIAL_HEADER: trial_id} if trial_id else {self._raw_header: "true"}
        try:
            raw = self._client.post(
                "/chat/completions",
                body=self.body(messages, settings, tools),
                cast_to=self._answer_type,
                options={"headers": headers},
            )
        except self._sdk.APIError as exc:
            raise classify_sdk_error(exc, self._sdk, self.secrets) from None
        try:
            return lean_completion(raw.http_response) or completion_of(raw.parse(), raw.headers, raw.status_code)
        except response_failures(self._sdk) as exc:
            raise classify_sdk_error(exc, self._sdk, self.secrets) from None

    @property
    def client(self):
        """The SDK client (the batch runner uploads files and creates batches through it)."""
        return self._client

    def close(self) -> None:
        self._client.close()


def completion_of(body, headers=None, http_status: int = 200, request_id: str | None = None) -> Completion:
    """A ``Completion`` from a parsed ``ChatCompletion`` (an online answer or one line of a batch's output)."""
    choice = body.choices[0]
    usage = body.usage
    details = getattr(usage, "completion_tokens_details", None) if usage else None
    return Completion(
        text=choice.message.content or "",
        returned_model=body.model,
        rate_limits=rate_limits(headers),
        request_id=request_id or request_id_from(headers) or body.id,
        http_status=http_status,
        finish_reason=choice.finish_reason,
        input_tokens=usage.prompt_tokens if usage else None,
        output_tokens=usage.completion_tokens if usage else None,
        reasoning_tokens=getattr(details, "reasoning_tokens", None) if details else None,
        # (a server that writes no id, name or arguments: texts still, so the logged call reads back on resume;
        # no id: the call's place in the answer)
        tool_calls=tuple(
            ToolCall(_text(c.id, f"call_{i}"), _text(c.function.name), _text(c.function.arguments))
            for i, c in enumerate(choice.message.tool_calls or ())
            if getattr(c, "function", None) is not None
        ),
    )


def _text(value, default: str = "") -> str:
    return value if isinstance(value, str) else default


def raw_response_header(sdk) -> str:
    """The header asking ``sdk`` (openai or anthropic) for its raw response object: the SDK's own constant where
    it has one where fastspe looks, else the name every SDK release since 1.0 has used."""
    constants = getattr(sdk, "_constants", None)
    return getattr(constants, "RAW_RESPONSE_HEADER", RAW_RESPONSE_HEADER)


def typed(obj: dict, key: str, types) -> bool:
    """Whether ``obj`` has ``key`` with a value of exactly one of ``types`` (``bool`` is no ``int`` here)."""
    return key in obj and type(obj[key]) in types


OPTIONAL_STR = (str, type(None))
OPTIONAL_INT = (int, type(None))


def lean_completion(response) -> Completion | None:
    """The ``Completion`` that ``completion_of`` makes of a chat completion, read straight from the JSON of
    ``response`` (an httpx response); None unless every field read is there with its JSON type, and the caller
    then lets the SDK parse the body (so an odd answer gets exactly the SDK's result or error)."""
    try:
        body = response.json()
        choice = body["choices"][0]
        message, usage = choice["message"], body.get("usage")
    except (ValueError, LookupError, TypeError):
        return None
    headers = response.headers
    request_id = request_id_from(headers)
    if not (
        type(body) is dict
        and type(choice) is dict
        and type(message) is dict
        and typed(body, "model", OPTIONAL_STR)
        and typed(message, "content", OPTIONAL_STR)
        and typed(choice, "finish_reason", OPTIONAL_STR)
        and (request_id or typed(body, "id", OPTIONAL_STR))
    ):
        return None
    counts = token_counts(usage)
    calls = tool_calls_of(message)
    if counts is None or calls is None:
        return None
    return Completion(
        text=message["content"] or "",
        returned_model=body["model"],
        rate_limits=rate_limits(headers),
        request_id=request_id or body["id"],
        http_status=response.status_code,
        finish_reason=choice["finish_reason"],
        input_tokens=counts[0],
        output_tokens=counts[1],
        reasoning_tokens=counts[2],
        tool_calls=calls,
    )


def tool_calls_of(message: dict) -> tuple | None:
    """The tool calls of a chat completion's ``message`` as ``completion_of`` reads them; None where the SDK's
    parser must decide (a call that is not a function call of text fields)."""
    calls = message.get("tool_calls")
    if calls is None:
        return ()
    if type(calls) is not list:
        return None
    out = []
    for call in calls:
        function = call.get("function") if type(call) is dict else None
        if not (
            type(function) is dict
            and call.get("type") == "function"
            and typed(call, "id", (str,))
            and typed(function, "name", (str,))
            and typed(function, "arguments", (str,))
        ):
            return None
        out.append(ToolCall(call["id"], function["name"], function["arguments"]))
    return tuple(out)


def token_counts(usage) -> tuple | None:
    """(prompt, completion, reasoning) tokens of a chat completion's ``usage`` as ``completion_of`` reads them
    (all None for no usage); None where the SDK's parser must decide."""
    if usage is None:
        return None, None, None
    if not (
        type(usage) is dict
        and typed(usage, "prompt_tokens", OPTIONAL_INT)
        and typed(usage, "completion_tokens", OPTIONAL_INT)
    ):
        return None
    details = usage.get("completion_tokens_details")
    if details is None:
        return usage["prompt_tokens"], usage["completion_tokens"], None
    if type(details) is dict and type(details.get("reasoning_tokens")) in OPTIONAL_INT:
        return usage["prompt_tokens"], usage["completion_tokens"], details.get("reasoning_tokens")
    return None
