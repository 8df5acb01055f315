"""What every model provider shares: settings, one completion, API keys, error classification.

Both official SDKs (openai, anthropic) have the same exception tree (``APIStatusError``,
``APITimeoutError`` < ``APIConnectionError``, ``APIResponseValidationError``), so one function turns
any SDK failure into a classified, secret-free ``AttemptError``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..boundary.errors import UserError
from ..generation import GenerationSettings, split_model  # noqa: F401 (re-exported: part of the runners API)
from .log import scrub
from .pacing import RateLimits, rate_limits
from .retry import BAD_RESPONSE, CONNECTION, FATAL, TIMEOUT, AttemptError, kind_for_status, parse_retry_after

KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_VARIABLES = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
DEFAULT_BASE_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
# Sent when an OpenAI-compatible local server (given with --base-url) needs no key.
PLACEHOLDER_KEY = "not-needed"
MAX_ERROR_CHARS = 500
# Key-shaped words (whole or masked like "sk-ab***yz") that servers echo in error messages.
KEY_SHAPED = re.compile(r"\b(sk-[A-Za-z0-9_\-*.]{3,}|Bearer\s+\S+)")


@dataclass
class Completion:
    """One successful answer and its metadata."""

    text: str
    returned_model: str | None
    request_id: str | None
    http_status: int
    finish_reason: str | None
    input_tokens: int | None
    output_tokens: int | None
    reasoning_tokens: int | None = None
    raw_finish_reason: str | None = None  # the provider's own word (Anthropic stop_reason)
    rate_limits: RateLimits | None = None  # what the rate-limit headers said is left


def resolve_base_url(provider: str, base_url: str | None) -> str:
    """The base URL requests go to: ``base_url``, else the SDK's environment variable, else the default."""
    url = base_url or os.environ.get(BASE_URL_VARIABLES[provider]) or DEFAULT_BASE_URLS[provider]
    return url.rstrip("/")


def api_key_from_env(provider: str, base_url: str | None) -> str:
    """The key from the provider's usual environment variable, never from a file or argument.

    With ``--base-url`` an OpenAI-compatible server may need no key; then a placeholder is sent.
    """
    var = KEY_VARIABLES[provider]
    key = os.environ.get(var, "").strip()
    if key:
        return key
    if provider == "openai" and base_url:
        return PLACEHOLDER_KEY
    raise UserError(f"{var} is not set; export it in your shell (fastspe reads the key only from {var})")


def classify_sdk_error(exc: BaseException, sdk, secrets=()) -> AttemptError:
    """An ``AttemptError`` for an exception raised by the ``openai`` or ``anthropic`` module ``sdk``."""
    message = KEY_SHAPED.sub("[redacted]", scrub(f"{type(exc).__name__}: {exc}", secrets))[:MAX_ERROR_CHARS]
    if isinstance(exc, sdk.APIStatusError):
        headers = exc.response.headers
        kind = kind_for_status(exc.status_code)
        if getattr(exc, "code", None) == "insufficient_quota":  # OpenAI's 429 for an empty account: waiting won't help
            kind = FATAL
        return AttemptError(kind, message, http_status=exc.status_code, retry_after=parse_retry_after(headers),
                            request_id=request_id_from(headers), rate_limits=rate_limits(headers))
    if isinstance(exc, sdk.APITimeoutError):
        return AttemptError(TIMEOUT, message)
    if isinstance(exc, sdk.APIConnectionError):
        return AttemptError(CONNECTION, message)
    if isinstance(exc, (sdk.APIResponseValidationError, ValueError, KeyError, TypeError, AttributeError)):
        # A 200 whose body is not the JSON the wire format promises (truncated, wrong shape).
        return AttemptError(BAD_RESPONSE, message)
    return AttemptError(CONNECTION, message)  # any other SDK error: treat as transient


def response_failures(sdk) -> tuple:
    """Exceptions that reading a 200 response raises when its body is not what the wire format
    promises (truncated JSON, missing fields); the request itself only raises ``sdk.APIError``."""
    return (sdk.APIError, ValueError, KeyError, TypeError, AttributeError, IndexError)


def request_id_from(headers) -> str | None:
    """The request id header of either provider."""
    if headers is None:
        return None
    return headers.get("x-request-id") or headers.get("request-id")
