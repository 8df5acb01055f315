"""Score's prompt check for answers of prompt variants: the specs kept beside the answers (their prompts sidecar)
become variants the bank's ``PromptHashes`` accepts, so an answer's ``prompt_text_sha256`` is checked against its
board's message under the variant it was asked with, never refused for being a legitimate variant."""

from __future__ import annotations

from ..errors import UserError
from .render import user_texts
from .sidecar import read_specs

__all__ = ["accept_variants"]


def accept_variants(bank, paths) -> int:
    """Let ``bank`` (a ``Bank``) accept the prompt variants kept beside each of ``paths`` (run logs, responses or
    prompt exports); the number of variants added."""
    added = 0
    for path in paths:
        for sha, spec in read_specs(path).items():
            if not spec.is_default:
                bank.prompt_hashes.accept(sha, lambda frame, spec=spec: _texts(spec, bank.domain, frame))
                added += 1
    return added


def _texts(spec, domain, frame) -> list:
    """The variant's messages for ``frame``'s rows, or None each where it cannot be rendered (a template field
    that another domain's bank lacks): those answers then match no variant, and the mismatch is told as any."""
    try:
        return user_texts(spec, domain, frame)
    except UserError:
        return [None] * len(frame)
