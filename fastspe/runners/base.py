"""What every model provider shares: settings, one completion, API keys, error classification.

Both official SDKs (openai, anthropic) have the same exception tree (``APIStatusError``,
``APITimeoutError`` < ``APIConnectionError``, ``APIResponseValidationError``), so one function turns
any SDK failure into a classified, secret-free ``AttemptError``.
"""

from __future__ import annotations

import os
import re
import socket
import urllib.parse
import warnings
from dataclasses import dataclass

from ..errors import UserError
from .._text import count
from ..protocols.conversation import ToolCall
from .log import MIN_SECRET_CHARS, scrub
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
    tool_calls: tuple[ToolCall, ...] = ()  # the tools the model called, in its order (a tools protocol's turns)


def as_messages(messages) -> list:
    """A conversation in the OpenAI chat format; a bare prompt text is one user message."""
    return [{"role": "user", "content": messages}] if isinstance(messages, str) else list(messages)


def resolve_base_url(provider: str, base_url: str | None) -> str:
    """The base URL requests go to: ``base_url``, else the SDK's environment variable, else the default."""
    url = base_url or os.environ.get(BASE_URL_VARIABLES[provider]) or DEFAULT_BASE_URLS[provider]
    return url.rstrip("/")


def api_key_from_env(provider: str, base_url: str | None) -> str:
    """The key from the provider's usual environment variable, never from a file or argument.

    With ``--base-url`` an OpenAI-compatible server may need no key; then a placeholder is sent. A key shorter
    than ``MIN_SECRET_CHARS`` is sent as is with a warning: it is not scrubbed from error texts, since
    replacing so short a string would rewrite ordinary words (and nothing else is ever scrubbed).
    """
    var = KEY_VARIABLES[provider]
    key = os.environ.get(var, "").strip()
    if key:
        if len(key) < MIN_SECRET_CHARS:
            warnings.warn(
                f"{var} is only {count(len(key), 'character')} long, too short to be a secret API key; it is "
                f"sent as is but not scrubbed from error texts in logs and messages (real keys are "
                f"much longer)",
                stacklevel=2,
            )
        return key
    if provider == "openai" and base_url:
        return PLACEHOLDER_KEY
    raise UserError(f"{var} is not set; export it in your shell (fastspe reads the key only from {var})")


def key_secrets(key: str) -> tuple:
    """The strings to keep out of error texts for ``key``: none for the placeholder, which is no secret."""
    return () if key == PLACEHOLDER_KEY else (key,)


def redact_error(text: str, secrets=(), limit: int | None = MAX_ERROR_CHARS) -> str:
    """An error text fit to log or print: ``secrets`` (in every form ``log.secret_forms`` knows) and key-shaped
    words (``KEY_SHAPED``) replaced by ``[redacted]``, at most ``limit`` characters long. For error texts only:
    an answer is never rewritten."""
    return KEY_SHAPED.sub("[redacted]", scrub(text, secrets))[:limit]


def public_url(url: str | None) -> str | None:
    """``url`` as recorded in a log: without a password in its user part (``https://user:KEY@host``)."""
    if not url:
        return url
    parts = urllib.parse.urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if ":" not in userinfo:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{userinfo.split(':', 1)[0]}:[redacted]{at}{host}"))


def classify_sdk_error(exc: BaseException, sdk, secrets=()) -> AttemptError:
    """An ``AttemptError`` for an exception raised by the ``openai`` or ``anthropic`` module ``sdk``."""
    message = redact_error(f"{type(exc).__name__}: {exc}", secrets)
    if isinstance(exc, sdk.APIStatusError):
        headers = exc.response.headers
        kind = kind_for_status(exc.status_code)
        if getattr(exc, "code", None) == "insufficient_quota":  # OpenAI's 429 for an empty account: waiting won't help
            kind = FATAL
        if exc.status_code == 404:
            message += base_url_hint(sdk.__name__, _request_path(exc))
        if 300 <= exc.status_code < 400:  # the client follows no redirect: another host's answer is no answer
            message = redact_error(
                f"{type(exc).__name__}: redirect not followed: HTTP {exc.status_code} from "
                f"{origin_of(exc)} to {public_url(headers.get('location')) or 'no Location'}",
                secrets,
            )
        return AttemptError(
            kind,
            message,
            http_status=exc.status_code,
            retry_after=parse_retry_after(headers),
            request_id=request_id_from(headers),
            rate_limits=rate_limits(headers),
        )
    if isinstance(exc, sdk.APITimeoutError):
        return AttemptError(TIMEOUT, redact_error(f"{type(exc).__name__}: {transport_failure(exc)}", secrets))
    if isinstance(exc, sdk.APIConnectionError):
        return AttemptError(CONNECTION, redact_error(f"{type(exc).__name__}: {transport_failure(exc)}", secrets))
    if isinstance(exc, (sdk.APIResponseValidationError, ValueError, KeyError, TypeError, AttributeError)):
        # A 200 whose body is not the JSON the wire format promises (truncated, wrong shape).
        return AttemptError(BAD_RESPONSE, message)
    return AttemptError(CONNECTION, message)  # any other SDK error: treat as transient


# What went wrong, and why in a user's words, for the socket errors a wrong address or a dead server gives.
SOCKET_FAILURES = (
    (ConnectionRefusedError, "connection refused", "the server is not listening"),
    (socket.gaierror, "host not found", "its name does not resolve"),
    (ConnectionResetError, "connection reset", "the server dropped the connection"),
    (ConnectionAbortedError, "connection aborted", "the server dropped the connection"),
)


def transport_failure(exc: BaseException) -> str:
    """What failed and why, naming the server's address: ``connection refused to http://127.0.0.1:9 (the server
    is not listening)``; the transport's own words (a timeout, a malformed answer) where it is no socket error
    fastspe knows. The SDKs' texts ("Connection error.") name neither."""
    chain, seen = [], set()
    cause = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    where = origin_of(exc)
    for error in reversed(chain):  # the innermost cause knows most
        for kind, what, why in SOCKET_FAILURES:
            if isinstance(error, kind):
                return f"{what} to {where} ({why})"
    inner = chain[1] if len(chain) > 1 else exc  # the httpx exception under the SDK's
    words = str(inner) or type(inner).__name__
    for error in reversed(chain[1:]):
        if isinstance(error, OSError) and error.strerror:
            words = f"{words}: {error.strerror}" if error.strerror not in words else words
            break
    return f"{type(inner).__name__} from {where} ({words})"


def origin_of(exc) -> str:
    """``scheme://host:port`` of the request ``exc`` failed on (the port always shown, no user or path), or
    ``the server`` where the exception carries no request."""
    try:
        url = exc.request.url
    except (AttributeError, RuntimeError):  # (httpx raises RuntimeError for an exception made without its request)
        return "the server"
    port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{url.scheme}://{host}:{port}" if port else f"{url.scheme}://{host}"


def _request_path(exc) -> str:
    try:
        return str(exc.response.request.url.path)
    except (AttributeError, RuntimeError):  # a response built without its request
        return ""


def base_url_hint(sdk_name: str, path: str) -> str:
    """A hint for a 404 whose path suggests a base URL with ``/v1`` too many or too few: the Anthropic SDK adds
    ``/v1/messages`` to its base URL itself, the OpenAI one only ``/chat/completions``."""
    if sdk_name == "anthropic" and "/v1/v1/" in path:
        return (
            " (the base URL ends in /v1, which the Anthropic SDK adds itself: give --base-url http://HOST:PORT "
            "or ANTHROPIC_BASE_URL without /v1)"
        )
    if sdk_name == "openai" and not path.startswith("/v1/") and "/v1/" not in path:
        return (
            " (an OpenAI-compatible server's base URL usually ends in /v1: --base-url http://HOST:PORT/v1; "
            "the SDK adds only /chat/completions)"
        )
    return ""


def response_failures(sdk) -> tuple:
    """Exceptions that reading a 200 response raises when its body is not what the wire format
    promises (truncated JSON, missing fields); the request itself only raises ``sdk.APIError``."""
    return (sdk.APIError, ValueError, KeyError, TypeError, AttributeError, IndexError)


def request_id_from(headers) -> str | None:
    """The request id header of either provider."""
    if headers is None:
        return None
    return headers.get("x-request-id") or headers.get("request-id")
