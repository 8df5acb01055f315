"""Prompt variants in inspect_ai (``planning(prompt=..., system=..., shots=..., shots_bank=...)``): a sample's input
is the opening ``fastspe run`` sends for its trial, and a log of such a task says which spec it asked with.

The spec is settled by ``fastspe.prompting`` as for ``fastspe run`` (``given_prompt_spec``, ``user_texts``,
``PromptSpec.opening``); here it only changes form: the opening's OpenAI-format messages become inspect's
``ChatMessageSystem``/``User``/``Assistant`` (the one user message of the paper prompt stays the plain text it always
was, so its logs do not change). The task's metadata keeps the spec's sidecar record (``SPEC_KEY``), each sample's
its variant, spec hash and user message hash (``SAMPLE_KEYS``); an import reads the spec back and refuses one that
no longer hashes to what its samples were asked with (an edited log).
"""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from .domains.contract import prompt_hash
from .errors import UserError
from .prompting import PromptSpec

__all__ = ["SPEC_KEY", "SAMPLE_KEYS", "chat_input", "spec_metadata", "sample_metadata", "spec_of_log",
           "check_sample_spec"]

SPEC_KEY = "fastspe_prompt_spec"  # the task's metadata: the spec's sidecar record (absent for the paper prompt)
# a sample's metadata: the log fields of its variant, under the task's own prefix (bank columns share the mapping)
SAMPLE_KEYS = {"prompt_variant": "fastspe_prompt_variant", "prompt_spec_sha256": "fastspe_prompt_spec_sha256",
               "prompt_text_sha256": "fastspe_prompt_text_sha256"}
_MESSAGE = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def chat_input(spec: PromptSpec, text: str) -> str | list[ChatMessage]:
    """A sample's input for the board's user message ``text``: the text alone, or the spec's opening as messages."""
    opening = spec.opening(text)
    if opening is None:
        return text
    return [_MESSAGE[m["role"]](content=m["content"]) for m in opening]


def spec_metadata(spec: PromptSpec) -> dict:
    """The task's metadata of ``spec`` (none for the default: the paper prompt's logs stay as they were)."""
    return {} if spec.is_default else {SPEC_KEY: spec.sidecar_record()}


def sample_metadata(spec: PromptSpec, text: str) -> dict:
    """A sample's metadata of ``spec`` and its user message ``text`` (none for the default)."""
    if spec.is_default:
        return {}
    fields = {"prompt_variant": spec.label, "prompt_spec_sha256": spec.sha256, "prompt_text_sha256": prompt_hash(text)}
    return {SAMPLE_KEYS[name]: value for name, value in fields.items()}


def spec_of_log(metadata: dict | None, name: str) -> PromptSpec | None:
    """The spec a task's ``metadata`` keeps (None: the paper prompt alone); a ``UserError`` naming the log ``name``
    when the record is unreadable or no longer hashes to its own hash."""
    record = (metadata or {}).get(SPEC_KEY)
    if record is None:
        return None
    try:
        spec = PromptSpec.from_record(record)
    except (UserError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UserError(f"{name}: the task's prompt spec ({SPEC_KEY}) cannot be read ({exc})") from None
    if spec.sha256 != record.get("prompt_spec_sha256"):
        raise UserError(f"{name}: the task's prompt spec ({SPEC_KEY}) does not hash to its prompt_spec_sha256 "
                        "(the log was edited?); its answers cannot be bound to what was asked")
    return spec


def check_sample_spec(spec: PromptSpec | None, metadata: dict | None, sample: str, name: str) -> None:
    """Refuse a sample asked with another spec than its task's (``spec``; None: the paper prompt, no spec hash)."""
    recorded = (metadata or {}).get(SAMPLE_KEYS["prompt_spec_sha256"])
    expected = None if spec is None else spec.sha256
    if recorded != expected:
        raise UserError(f"{name}: sample {sample!r} records prompt spec {recorded!r}, its task {expected!r} (the log "
                        "was edited?); its answers cannot be bound to what was asked")
