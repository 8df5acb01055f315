"""OpenAI chat completions through the official ``openai`` SDK (also any compatible server).

With ``--base-url`` this talks to vLLM, Ollama, llama.cpp or any other server that speaks the
chat-completions wire format. The SDK's own retries are off: fastspe's retry loop decides.
"""

from __future__ import annotations

from ..errors import UserError
from ..extras import require
from .generation import GenerationSettings
from .base import (Completion, api_key_from_env, classify_sdk_error, key_secrets,
                   request_id_from, resolve_base_url, response_failures)
from .pacing import rate_limits

# Per-trial header: lets a server (and the tests) tell trials apart; an opaque hash, nothing secret.
TRIAL_HEADER = "X-Fastspe-Trial-Id"
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
        Seconds per request.
    """

    provider = "openai"

    def __init__(self, model: str, base_url: str | None = None, timeout: float = 120.0):
        openai = require("openai", "--model openai:...")  # here: `fastspe` starts fast without it

        self._sdk = openai
        self.model = model
        self.base_url = resolve_base_url("openai", base_url)
        key = api_key_from_env("openai", base_url)
        self.secrets = key_secrets(key)
        # api.openai.com wants max_completion_tokens (reasoning models reject max_tokens);
        # compatible servers know max_tokens.
        self._max_tokens_param = "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, max_retries=0, timeout=timeout)

    @staticmethod
    def effective_settings(settings: GenerationSettings) -> GenerationSettings:
        """``settings`` as sent; a ValueError (before any request) for those the wire format lacks."""
        if settings.thinking_budget is not None:
            raise UserError("--thinking-budget is Anthropic's extended thinking; for openai: models give "
                            "--reasoning-effort instead")
        if settings.stop is not None and len(settings.stop) > MAX_STOP_SEQUENCES:
            raise UserError(f"openai: models take at most {MAX_STOP_SEQUENCES} --stop sequences, "
                            f"got {len(settings.stop)}")
        return settings

    def request(self, prompt: str, settings: GenerationSettings) -> dict:
        """The keyword arguments of one request: only the settings given are sent."""
        kwargs: dict = {"model": self.model, "messages": [{"role": "user", "content": prompt}]}
        optional = {"temperature": settings.temperature, self._max_tokens_param: settings.max_tokens,
                    "top_p": settings.top_p, "seed": settings.seed,
                    "stop": list(settings.stop) if settings.stop else None}
        kwargs.update((k, v) for k, v in optional.items() if v is not None)
        extra = dict(settings.extra_body or {})
        if settings.reasoning_effort is not None:
            # Via extra_body: SDKs before 1.58 lack the argument; the body sent is the same.
            extra["reasoning_effort"] = settings.reasoning_effort
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def complete(self, prompt: str, settings: GenerationSettings, trial_id: str = "") -> Completion:
        """Send one fresh single-message chat; raise ``AttemptError`` on any failure."""
        kwargs = self.request(prompt, settings)
        try:
            raw = self._client.chat.completions.with_raw_response.create(
                **kwargs, extra_headers={TRIAL_HEADER: trial_id} if trial_id else None)
        except self._sdk.APIError as exc:
            raise classify_sdk_error(exc, self._sdk, self.secrets) from None
        try:
            return completion_of(raw.parse(), raw.headers, raw.status_code)
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
    )
