"""Generation settings sent with every model request, and the ``PROVIDER:MODEL`` name.

Kept apart from ``fastspe.runners`` (which pulls in pandas) so that the command line can check
option values at parse time and still start fast. Every field is None when not given: None means
the server's default, and nothing is sent. Each field is recorded in every attempt of a run log
and is part of its condition's identity, so a log written before a field existed (no such key)
still resumes while that field is left unset.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields

from ..errors import UserError
from ..kernels import MAX_SEED

REASONING_EFFORTS = ("minimal", "low", "medium", "high")
MIN_THINKING_BUDGET = 1024  # Anthropic's smallest extended-thinking budget
MAX_TOKENS = 10_000_000  # no answer needs more; turns typos (1e30) into errors
# Request keys that only fastspe sets: the model, the one fresh prompt, a whole (not streamed) answer.
RESERVED_BODY_KEYS = ("model", "messages", "stream")
# Request keys each setting sends; --extra-body may not send them too (which value would count?).
BODY_KEYS = {
    "temperature": ("temperature",),
    "max_tokens": ("max_tokens", "max_completion_tokens"),
    "top_p": ("top_p",),
    "seed": ("seed",),
    "stop": ("stop", "stop_sequences"),
    "reasoning_effort": ("reasoning_effort",),
    "thinking_budget": ("thinking",),
}
OPTION_NAMES = {
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "top_p": "--top-p",
    "seed": "--seed",
    "stop": "--stop",
    "reasoning_effort": "--reasoning-effort",
    "thinking_budget": "--thinking-budget",
    "extra_body": "--extra-body",
}


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


@dataclass(frozen=True)
class GenerationSettings:
    """Settings sent with every request (None: the server's default, not sent).

    ``stop`` is a tuple of stop sequences; ``thinking_budget`` turns on Anthropic's extended thinking;
    ``extra_body`` is a JSON object merged into each request body. Empty ``stop`` and ``extra_body``
    read as None (nothing sent), so they resume logs that lack them.
    """

    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    stop: tuple | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    extra_body: dict | None = None

    def __post_init__(self):
        if self.stop is not None:
            stop = (self.stop,) if isinstance(self.stop, str) else tuple(self.stop)
            object.__setattr__(self, "stop", stop or None)
        if self.extra_body is not None:
            try:
                object.__setattr__(self, "extra_body", check_extra_body(self.extra_body) or None)
            except ValueError as exc:
                raise UserError(f"--extra-body {exc}") from None
        if self.temperature is not None and not 0 <= self.temperature < math.inf:
            raise UserError(f"--temperature must be a finite number >= 0, got {self.temperature}")
        if self.max_tokens is not None and (int(self.max_tokens) != self.max_tokens or self.max_tokens < 1):
            raise UserError(f"--max-tokens must be a whole number >= 1, got {self.max_tokens}")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise UserError(f"--top-p must be a number > 0 and <= 1, got {self.top_p}")
        if self.seed is not None and not _whole(self.seed, 0, MAX_SEED):
            raise UserError(f"--seed must be a whole number in 0..{MAX_SEED}, got {self.seed!r}")
        if self.stop is not None and not all(isinstance(s, str) and s for s in self.stop):
            raise UserError(f"each --stop must be a non-empty text, got {list(self.stop)!r}")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise UserError(
                f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}, got {self.reasoning_effort!r}"
            )
        if self.thinking_budget is not None and not _whole(self.thinking_budget, MIN_THINKING_BUDGET, MAX_TOKENS):
            raise UserError(
                f"--thinking-budget must be a whole number of tokens >= {MIN_THINKING_BUDGET}, "
                f"got {self.thinking_budget!r}"
            )
        for name, keys in BODY_KEYS.items():
            taken = [k for k in keys if getattr(self, name) is not None and k in (self.extra_body or {})]
            if taken:
                raise UserError(f"--extra-body sets {taken[0]!r}, which {OPTION_NAMES[name]} sets too; give it once")

    def as_dict(self) -> dict:
        """The settings as their log record holds them (JSON types: ``stop`` is a list)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.stop is not None:
            out["stop"] = list(self.stop)
        return out

    def sent(self) -> str:
        """The settings given, shortly (``temperature=0.7 reasoning_effort=high``), for dry runs and summaries."""
        given = [
            f"{k}={json.dumps(v, separators=(',', ':'))}" if isinstance(v, (list, dict)) else f"{k}={v}"
            for k, v in self.as_dict().items()
            if v is not None
        ]
        return " ".join(given) or "none (the server's defaults)"


_JSON_TYPES = {
    "list": "an array",
    "str": "a string",
    "int": "a number",
    "float": "a number",
    "bool": "true/false",
    "NoneType": "null",
}


def check_extra_body(body) -> dict:
    """``body`` if it is a JSON object (a dict of JSON values) that sets none of ``RESERVED_BODY_KEYS``;
    else a ValueError whose message follows the option name (``must be a JSON object ...``)."""
    if not isinstance(body, dict):
        got = _JSON_TYPES.get(type(body).__name__, type(body).__name__)
        raise UserError(f"must be a JSON object like '{{\"key\": value}}', got {got}")
    for key in RESERVED_BODY_KEYS:
        if key in body:
            raise UserError(f"must not set {key!r}: fastspe sends it" + (" (give --model)" if key == "model" else ""))
    try:
        # A JSON round trip: the body must be sendable as is and equal its copy read back from the log.
        text = json.dumps(body, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")  # a lone surrogate (JSON "\\ud800") is no text a request or a log can hold
        return json.loads(text)
    except RecursionError:
        raise UserError(_TOO_DEEP) from None
    except UnicodeEncodeError as exc:
        raise UserError(
            f"must hold only valid Unicode text, got the lone surrogate {exc.object[exc.start : exc.end]!r}"
        ) from None
    except (TypeError, ValueError) as exc:
        raise UserError(f"must hold only finite JSON values ({exc})") from None


_TOO_DEEP = "is nested too deeply (JSON objects and arrays inside each other, hundreds of levels)"


def parse_extra_body(text: str) -> dict:
    """``--extra-body`` text as a checked JSON object; a ValueError (message as ``check_extra_body``'s)."""
    try:
        body = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"must be valid JSON ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        raise UserError(_TOO_DEEP) from None
    return check_extra_body(body)


def _no_constant(name: str):
    raise UserError(f"must hold only finite JSON values, got {name}")


def split_model(model: str) -> tuple[str, str]:
    """``"openai:gpt-x"`` or ``"openai/gpt-x"`` -> ``("openai", "gpt-x")``.

    The provider ends at the first ``:`` or ``/``, whichever comes first (provider names hold
    neither), so model names may hold both: ``openai:meta-llama/Llama-3-8B``,
    ``openai/meta-llama/Llama-3-8B`` and ``openai/llama3:8b`` all work. A ValueError says the form.
    """
    text = str(model)
    cuts = [i for i in (text.find(":"), text.find("/")) if i >= 0]
    cut = min(cuts) if cuts else -1
    provider, name = (text[:cut], text[cut + 1 :]) if cut >= 0 else ("", "")
    if not provider or not name:
        raise UserError(
            f"--model {model!r}: use PROVIDER:MODEL (or PROVIDER/MODEL), e.g. openai:gpt-4o, "
            f"anthropic:claude-sonnet-4-5, or baseline:greedy"
        )
    return provider, name


def canonical_model(model: str) -> str:
    """``PROVIDER:MODEL`` for either spelling: the default condition, so both spellings resume one condition."""
    provider, name = split_model(model)
    return f"{provider}:{name}"


def default_condition(model: str, prompt=None, protocol=None) -> str:
    """A run's condition when none is named: ``PROVIDER:MODEL``, then the prompt's suffix and the protocol's, each
    only when not the default (``openai:gpt-4o+cot+tools``); ``prompt`` and ``protocol`` are a ``PromptSpec`` and a
    ``ProtocolSpec`` (None: the default)."""
    return (
        canonical_model(model)
        + (prompt.suffix if prompt is not None else "")
        + (protocol.suffix if protocol is not None else "")
    )
