"""Score's prompt check for answers of prompt variants: the specs kept beside the answers (their prompts sidecar)
become variants the bank's ``PromptHashes`` accepts, so an answer's ``prompt_text_sha256`` is checked against its
board's message under the variant it was asked with, never refused for being a legitimate variant."""

from __future__ import annotations

from ..errors import UserError
from .render import user_texts
from .sidecar import read_specs

__all__ = ["accept_variants", "accept_specs"]


def accept_variants(bank, paths) -> int:
    """Let ``bank`` (a ``Bank``) accept the prompt variants kept beside each of ``paths`` (run logs, responses or
    prompt exports); the number of variants added."""
    return sum(accept_specs(bank, read_specs(path).values()) for path in paths)


def accept_specs(bank, specs) -> int:
    """Let ``bank`` accept the prompt variants ``specs`` (``PromptSpec``s: those kept elsewhere than in a sidecar,
    such as an inspect_ai log's); the number of variants added."""
    added = 0
    for spec in specs:
        if not spec.is_default:
            bank.prompt_hashes.accept(spec.sha256, lambda frame, spec=spec: _texts(spec, bank.domain, frame))
            added += 1
    return added


def _texts(spec, domain, frame) -> list:
    """The variant's messages for ``frame``'s rows, or None each where it cannot be rendered (a template field
    that another domain's bank lacks): those answers then match no variant, and the mismatch is told as any."""
    try:
        return user_texts(spec, domain, frame)
    except UserError:
        return [None] * len(frame)
