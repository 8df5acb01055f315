"""What a trial asks, as one value: the user message's variant, a system prompt and worked examples.

A ``PromptSpec`` is settled before a run (the shots drawn, the template read) so that it is a plain value: its hash
(``sha256``: over the variant, the template's text, the system text and every shot's messages) is part of a
condition's identity, and its record (``sidecar_record``) is kept beside the run log so that what was asked can be
shown and checked later. The default spec (the paper's prompt alone) records nothing new anywhere: runs without
prompt options write today's log lines.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property

from ..errors import UserError

__all__ = ["SPEC_VERSION", "PAPER", "COT", "TEMPLATE", "Shot", "PromptSpec", "PAPER_SPEC"]

SPEC_VERSION = "prompting/1"  # how a spec becomes messages; a change of it changes every variant's hash
PAPER, COT, TEMPLATE = "paper", "cot", "template"
SPEC_RECORD = "spec"


@dataclass(frozen=True)
class Shot:
    """One worked example: a board of the shots bank, its prompt (the user message) and its certified optimal plan
    in the domain's answer form (the assistant message); ``state`` keys its start state (``state_key``)."""

    board_id: str
    user: str
    assistant: str
    state: str = ""

    def messages(self) -> list[dict]:
        return [{"role": "user", "content": self.user}, {"role": "assistant", "content": self.assistant}]


@dataclass(frozen=True)
class PromptSpec:
    """A prompt variant, settled.

    variant : ``paper`` (the domain's prompt), ``cot`` (the same with its answer instruction asking for reasoning
        first, then the final ``MOVES:`` line) or ``template`` (``template``'s text, ``template_name`` its name)
    system : the system message's text, or None
    shots : worked examples sent before the board's prompt, in order
    shots_seed, shots_source : how the shots were drawn (kept in the record; the hash covers the shots themselves)
    """

    variant: str = PAPER
    template: str | None = None
    template_name: str = ""
    system: str | None = None
    shots: tuple[Shot, ...] = ()
    shots_seed: int = 0
    shots_source: str = ""
    template_source: str = ""  # the template's file, for error messages (not hashed: the text is)
    shots_domain: str = ""  # the shots bank's domain (a shot of another domain is refused)

    def __post_init__(self) -> None:
        if self.variant not in (PAPER, COT, TEMPLATE):
            raise UserError(f"unknown prompt variant {self.variant!r}; use paper, cot or a template file")
        if (self.variant == TEMPLATE) != (self.template is not None):
            raise UserError("a template prompt needs its text, and only a template prompt has one")

    @property
    def is_default(self) -> bool:
        return self.variant == PAPER and self.system is None and not self.shots

    @property
    def label(self) -> str:
        """The user message's variant as log lines name it: ``paper``, ``cot``, ``template:NAME``."""
        return f"{TEMPLATE}:{self.template_name}" if self.variant == TEMPLATE else self.variant

    @cached_property  # (every trial's log fields carry it: hashed once)
    def sha256(self) -> str:
        """The spec's hash (hex): the same hash, the same messages for every board."""
        body = {
            "version": SPEC_VERSION,
            "variant": self.variant,
            "template": self.template,
            "system": self.system,
            "shots": [[s.board_id, s.user, s.assistant] for s in self.shots],
        }
        return hashlib.sha256(
            json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        ).hexdigest()

    @property
    def suffix(self) -> str:
        """What a default condition name gains: "" for the paper prompt alone, else ``+cot``,
        ``+template:NAME``, ``+system:HASH8`` (the system text's first 8 hex digits), ``+NshotS`` in that order."""
        if self.is_default:
            return ""
        parts = [] if self.variant == PAPER else [self.label]
        if self.system is not None:
            parts.append(f"system:{hashlib.sha256(self.system.encode('utf-8')).hexdigest()[:8]}")
        if self.shots:
            parts.append(f"{len(self.shots)}shot")
        return "".join(f"+{p}" for p in parts)

    def record_fields(self) -> dict:
        """The fields every log line of a non-default spec carries (none for the default: today's lines)."""
        if self.is_default:
            return {}
        fields = {"prompt_variant": self.label, "prompt_spec_version": SPEC_VERSION, "prompt_spec_sha256": self.sha256}
        if self.system is not None:
            fields["prompt_system_sha256"] = hashlib.sha256(self.system.encode("utf-8")).hexdigest()
        if self.shots:
            fields["prompt_shots"] = len(self.shots)
        return fields

    def identity_fields(self) -> dict:
        """What a condition keeps equal across its attempts (the run log's one-set-of-settings rule): the default
        spec expects the fields absent, so a default run refuses a condition logged with a variant, and back."""
        fields = self.record_fields()
        return {"prompt_variant": fields.get("prompt_variant"), "prompt_spec_sha256": fields.get("prompt_spec_sha256")}

    def opening(self, user_text: str) -> tuple | None:
        """The opening conversation in the OpenAI chat format, or None when it is the one user message."""
        if self.system is None and not self.shots:
            return None
        messages = [{"role": "system", "content": self.system}] if self.system is not None else []
        for shot in self.shots:
            messages.extend(shot.messages())
        messages.append({"role": "user", "content": user_text})
        return tuple(messages)

    def sidecar_record(self) -> dict:
        """The spec as the prompts sidecar keeps it (``from_record`` reads it back)."""
        return {
            "record": SPEC_RECORD,
            "prompt_spec_sha256": self.sha256,
            "prompt_spec_version": SPEC_VERSION,
            "prompt_variant": self.label,
            "variant": self.variant,
            "template": self.template,
            "template_name": self.template_name,
            "system": self.system,
            "shots": [
                {"board_id": s.board_id, "user": s.user, "assistant": s.assistant, "state": s.state} for s in self.shots
            ],
            "shots_seed": self.shots_seed,
            "shots_source": self.shots_source,
            "shots_domain": self.shots_domain,
        }

    @classmethod
    def from_record(cls, rec: dict) -> "PromptSpec":
        """A spec from its sidecar record; a ``UserError`` when the record is not one of this version."""
        if rec.get("prompt_spec_version") != SPEC_VERSION:
            raise UserError(
                f"a prompt spec of version {rec.get('prompt_spec_version')!r}; this fastspe reads {SPEC_VERSION}"
            )
        shots = tuple(
            Shot(str(s["board_id"]), s["user"], s["assistant"], s.get("state", "")) for s in rec.get("shots") or ()
        )
        return cls(
            rec["variant"],
            rec.get("template"),
            rec.get("template_name") or "",
            rec.get("system"),
            shots,
            int(rec.get("shots_seed") or 0),
            rec.get("shots_source") or "",
            rec.get("template_name") or "template",
            rec.get("shots_domain") or "",
        )


PAPER_SPEC = PromptSpec()
