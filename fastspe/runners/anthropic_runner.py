"""Anthropic messages through the official ``anthropic`` SDK.

The SDK's own retries are off: fastspe's retry loop decides. ``stop_reason`` is mapped onto the
chat-completions vocabulary (``max_tokens`` -> ``length``, ``end_turn`` -> ``stop``) so the scorer
flags truncated answers the same way for every provider; the raw value is kept too. A well-formed answer is
read straight from its JSON (``lean_completion``, as in the OpenAI runner); any other goes to the SDK's parser.
"""

from __future__ import annotations

import json
from dataclasses import replace

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
from .openai_runner import OPTIONAL_INT, OPTIONAL_STR, TRIAL_HEADER, typed

# The messages API requires max_tokens; this is sent (and recorded) when --max-tokens is not given.
DEFAULT_MAX_TOKENS = 8192
# Extended thinking allows top_p only in 0.95..1 and no temperature but 1 (Anthropic's rules).
THINKING_MIN_TOP_P = 0.95
FINISH_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
# Content blocks the lean read knows (text and tool calls are kept); an answer with any other goes to the SDK's
# parser.
KNOWN_BLOCKS = {"text", "thinking", "redacted_thinking", "tool_use"}


class AnthropicMessages:
    """One Claude model behind the ``/v1/messages`` endpoint.

    Parameters
    ----------
    model : str
    base_url : str or None
        None for ANTHROPIC_BASE_URL or api.anthropic.com.
    timeout : float
        Seconds per request, from its start to the end of its answer.
    max_connections : int
        Requests in flight at most (the connection pool's size).
    """

    provider = "anthropic"

    def __init__(self, model: str, base_url: str | None = None, timeout: float = 120.0, max_connections: int = 4):
        anthropic = require("anthropic", "--model anthropic:...")

        self._sdk = anthropic
        self.model = model
        self.base_url = resolve_base_url("anthropic", base_url)
        key = api_key_from_env("anthropic", base_url)
        self.secrets = key_secrets(key)
        self._client = anthropic.Anthropic(
            api_key=key,
            base_url=self.base_url,
            max_retries=0,
            timeout=timeout,
            http_client=sdk_http_client(anthropic, timeout, max_connections),
        )

    @staticmethod
    def effective_settings(settings: GenerationSettings) -> GenerationSettings:
        """``settings`` as sent (``max_tokens`` is required); a ValueError, before any request, for settings
        the messages API refuses, rather than the same HTTP 400 on every request."""
        if settings.max_tokens is None:
            settings = replace(settings, max_tokens=DEFAULT_MAX_TOKENS)
        if settings.reasoning_effort is not None:
            raise UserError(
                "anthropic: models take no --reasoning-effort; give --thinking-budget TOKENS "
                "(>= 1024) for extended thinking instead"
            )
        if settings.seed is not None:
            raise UserError("Anthropic's messages API has no sampling seed; leave --seed out for anthropic: models")
        budget = settings.thinking_budget
        if budget is not None:
            if budget >= settings.max_tokens:
                raise UserError(
                    f"--thinking-budget {budget} must be below --max-tokens {settings.max_tokens} "
                    f"(thinking tokens count toward it); raise --max-tokens"
                )
            if settings.temperature not in (None, 1):
                raise UserError(
                    f"with --thinking-budget Anthropic takes no --temperature but 1, got {settings.temperature}"
                )
            if settings.top_p is not None and settings.top_p < THINKING_MIN_TOP_P:
                raise UserError(
                    f"with --thinking-budget Anthropic takes --top-p only in "
                    f"{THINKING_MIN_TOP_P}..1, got {settings.top_p}"
                )
        return settings

    def request(self, messages, settings: GenerationSettings, tools: list | None = None) -> dict:
        """The keyword arguments of one request (``messages``: a conversation in the OpenAI chat format, or a
        prompt's text, converted by ``messages_api_conversation``); only the settings given are sent."""
        settings = self.effective_settings(settings)
        system, turns = messages_api_conversation(as_messages(messages))
        kwargs: dict = {"model": self.model, "max_tokens": settings.max_tokens, "messages": turns}
        if system is not None:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = [messages_api_tool(t) for t in tools]
        if settings.stop:
            kwargs["stop_sequences"] = list(settings.stop)
        # Via extra_body: recent SDKs dropped the temperature and top_p arguments and older ones lack
        # thinking; servers take all three in the body.
        extra = {
            "temperature": settings.temperature,
            "top_p": settings.top_p,
            "thinking": {"type": "enabled", "budget_tokens": settings.thinking_budget}
            if settings.thinking_budget is not None
            else None,
        }
        extra = {**(settings.extra_body or {}), **{k: v for k, v in extra.items() if v is not None}}
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def complete(
        self, messages, settings: GenerationSettings, trial_id: str = "", tools: list | None = None
    ) -> Completion:
        """Send one request of a conversation (a prompt's text: a fresh single-message one) offering ``tools``;
        raise ``AttemptError`` on any failure."""
        kwargs = self.request(messages, settings, tools)
        try:
            raw = self._client.messages.with_raw_response.create(
                **kwargs, extra_headers={TRIAL_HEADER: trial_id} if trial_id else None
            )
        except self._sdk.APIError as exc:
            raise classify_sdk_error(exc, self._sdk, self.secrets) from None
        try:
            return lean_completion(raw.http_response) or completion_of(raw.parse(), raw.headers, raw.status_code)
        except response_failures(self._sdk) as exc:
            raise classify_sdk_error(exc, self._sdk, self.secrets) from None

    @property
    def client(self):
        """The SDK client (the batch runner creates message batches through it)."""
        return self._client

    def close(self) -> None:
        self._client.close()


def completion_of(msg, headers=None, http_status: int = 200) -> Completion:
    """A ``Completion`` from a parsed ``Message`` (an online answer or one result of a message batch)."""
    text = "".join(block.text for block in msg.content if block.type == "text")
    usage = msg.usage
    return Completion(
        text=text,
        returned_model=msg.model,
        rate_limits=rate_limits(headers),
        request_id=request_id_from(headers) or msg.id,
        http_status=http_status,
        finish_reason=FINISH_REASONS.get(msg.stop_reason, msg.stop_reason),
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=usage.output_tokens if usage else None,
        reasoning_tokens=None,  # thinking tokens are inside output_tokens; no separate count
        raw_finish_reason=msg.stop_reason,
        tool_calls=tuple(
            ToolCall(b.id, b.name, json.dumps(b.input, ensure_ascii=False)) for b in msg.content if b.type == "tool_use"
        ),
    )


def lean_completion(response) -> Completion | None:
    """The ``Completion`` that ``completion_of`` makes of a message, read straight from the JSON of ``response``
    (an httpx response); None unless every field read is there with its JSON type and every content block is
    one of ``KNOWN_BLOCKS``, and the caller then lets the SDK parse the body."""
    try:
        msg = response.json()
        blocks, usage = msg["content"], msg["usage"]
    except (ValueError, LookupError, TypeError):
        return None
    headers = response.headers
    request_id = request_id_from(headers)
    if not (
        type(msg) is dict
        and type(blocks) is list
        and type(usage) is dict
        and typed(msg, "model", OPTIONAL_STR)
        and typed(msg, "stop_reason", OPTIONAL_STR)
        and typed(usage, "input_tokens", OPTIONAL_INT)
        and typed(usage, "output_tokens", OPTIONAL_INT)
        and (request_id or typed(msg, "id", OPTIONAL_STR))
    ):
        return None
    if not all(
        type(b) is dict
        and typed(b, "type", (str,))
        and b["type"] in KNOWN_BLOCKS
        and (b["type"] != "text" or typed(b, "text", (str,)))
        and (
            b["type"] != "tool_use"
            or (typed(b, "id", (str,)) and typed(b, "name", (str,)) and typed(b, "input", (dict,)))
        )
        for b in blocks
    ):
        return None
    stop = msg["stop_reason"]
    return Completion(
        text="".join(b["text"] for b in blocks if b["type"] == "text"),
        returned_model=msg["model"],
        rate_limits=rate_limits(headers),
        request_id=request_id or msg["id"],
        http_status=response.status_code,
        finish_reason=FINISH_REASONS.get(stop, stop),
        input_tokens=usage["input_tokens"],
        output_tokens=usage["output_tokens"],
        reasoning_tokens=None,
        raw_finish_reason=stop,
        tool_calls=tuple(
            ToolCall(b["id"], b["name"], json.dumps(b["input"], ensure_ascii=False))
            for b in blocks
            if b["type"] == "tool_use"
        ),
    )


# An empty answer in a conversation sent back (the messages API takes no empty assistant turn); marked as no text of
# the model's, so the feedback on it ("no plan could be read") still follows an answer.
EMPTY_ANSWER = "(empty answer)"


def messages_api_tool(tool: dict) -> dict:
    """A tool of the OpenAI chat format (``{"type": "function", "function": ...}``) as the messages API has it."""
    function = tool["function"]
    return {
        "name": function["name"],
        "description": function.get("description", ""),
        "input_schema": function["parameters"],
    }


def messages_api_conversation(messages: list) -> tuple[str | None, list]:
    """A conversation of the OpenAI chat format as the messages API has it: the system text apart, assistant tool
    calls as ``tool_use`` blocks, tool results as ``tool_result`` blocks of a user turn (consecutive user-side
    messages merged into one turn, as the API wants roles to alternate)."""
    system = [m["content"] for m in messages if m["role"] == "system"]
    turns: list = []
    for m in messages:
        role = m["role"]
        if role == "system":
            continue
        if role == "tool":
            role, blocks = "user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}]
        elif role == "assistant" and m.get("tool_calls"):
            blocks = [{"type": "text", "text": m["content"]}] if (m.get("content") or "").strip() else []
            blocks += [
                {
                    "type": "tool_use",
                    "id": c["id"],
                    "name": c["function"]["name"],
                    "input": _tool_input(c["function"]["arguments"]),
                }
                for c in m["tool_calls"]
            ]
        else:
            blocks = None
        if blocks is None and not (turns and turns[-1]["role"] == role):
            text = m["content"]
            if role == "assistant" and not (text or "").strip():
                text = EMPTY_ANSWER  # the API refuses an empty turn; feedback on an empty answer must still go back
            turns.append({"role": role, "content": text})  # a plain turn: sent as today, a text
            continue
        blocks = blocks if blocks is not None else [{"type": "text", "text": m["content"]}]
        if turns and turns[-1]["role"] == role:
            last = turns[-1]
            if isinstance(last["content"], str):
                last["content"] = [{"type": "text", "text": last["content"]}]
            last["content"] = last["content"] + blocks
        else:
            turns.append({"role": role, "content": blocks})
    return ("\n\n".join(system) if system else None), turns


def _tool_input(arguments: str) -> dict:
    """A tool call's JSON arguments as a ``tool_use`` block's input: an object (other text, which the messages API
    never writes, is kept whole under ``arguments``)."""
    try:
        value = json.loads(arguments)
    except (ValueError, TypeError):
        value = None
    return value if isinstance(value, dict) else {"arguments": arguments}
