"""What the prompts sidecar (``boundary.prompt_texts``) says: the spec of a run and the text of every user message
it sent, each kept once, so that any answer can be shown with what was asked and checked against its variant."""

from __future__ import annotations

from typing import Iterable

from ..boundary.prompt_texts import append_prompt_records, read_prompt_records, sidecar_path
from ..domains.contract import prompt_hash
from .spec import SPEC_RECORD, PromptSpec

__all__ = ["PROMPT_RECORD", "keep_prompts", "read_specs", "prompt_text_of", "spec_of"]

PROMPT_RECORD = "prompt"


def keep_prompts(path, spec: PromptSpec, texts: Iterable[str]) -> int:
    """Append to the sidecar of ``path`` (a run log or an export) ``spec`` and the user messages ``texts`` it lacks;
    the records appended."""
    side = sidecar_path(path)
    have_specs, have_texts = set(), set()
    for rec in read_prompt_records(side):
        if rec["record"] == SPEC_RECORD:
            have_specs.add(rec.get("prompt_spec_sha256"))
        elif rec["record"] == PROMPT_RECORD:
            have_texts.add(rec.get("prompt_text_sha256"))
    new = [] if spec.sha256 in have_specs else [spec.sidecar_record()]
    for text in texts:
        h = prompt_hash(text)
        if h not in have_texts:
            have_texts.add(h)
            new.append({"record": PROMPT_RECORD, "prompt_text_sha256": h, "text": text})
    append_prompt_records(side, new)
    return len(new)


def read_specs(path) -> dict[str, PromptSpec]:
    """The specs the sidecar of ``path`` keeps, by hash (specs of another version are left out)."""
    specs = {}
    for rec in read_prompt_records(sidecar_path(path), SPEC_RECORD):
        try:
            spec = PromptSpec.from_record(rec)
        except (ValueError, KeyError, TypeError):
            continue  # another version, or a damaged record: its answers are not checked against it
        specs[spec.sha256] = spec
    return specs


def spec_of(path, sha256: str | None) -> PromptSpec | None:
    """The spec of hash ``sha256`` in the sidecar of ``path`` (None when it keeps none of that hash)."""
    return read_specs(path).get(sha256) if sha256 else None


def prompt_text_of(path, sha256: str | None) -> str | None:
    """The user message of hash ``sha256`` in the sidecar of ``path`` (None when it keeps none)."""
    for rec in read_prompt_records(sidecar_path(path), PROMPT_RECORD):
        if rec.get("prompt_text_sha256") == sha256:
            return rec.get("text")
    return None
