"""What a run logs and tells: the trial, the fields of its attempt records, and the run's summary.

The online sender (``sender.py``), the batch mode (``batch.py``) and the baselines (``engine.py``) write the
same record, so its fields are built here once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from .. import __version__
from ..domains.contract import prompt_hash
from .base import public_url
from .generation import GenerationSettings
from .log import ERROR, OK
from .retry import AttemptError

Progress = Callable[..., None]  # progress(done, total, **live_counts)


@dataclass(frozen=True)
class Trial:
    """One request to make: a board, a trial index and the prompt."""

    trial_id: str
    board_id: str
    trial: int
    prompt: str
    row: int  # the board's row in the bank
    prompt_version: str  # the domain's prompt: its version and its template's hash
    prompt_sha256: str
    # The opening conversation in the OpenAI chat format (system, worked examples, then the user's ``prompt``);
    # None: the one user message ``prompt``.
    messages: tuple | None = None
    # The prompt variant's log fields (``PromptSpec.record_fields``); empty for the paper prompt alone.
    variant_fields: dict = field(default_factory=dict)

    @property
    def opening(self) -> list[dict]:
        """The messages a conversation about this trial starts with."""
        return list(self.messages) if self.messages is not None else [{"role": "user", "content": self.prompt}]

    @property
    def opening_text(self) -> str:
        """Every opening message's text joined (system and worked examples too): what token estimates count."""
        return self.prompt if self.messages is None else "\n".join(m["content"] for m in self.messages)


@dataclass
class RunSummary:
    """What a run did. ``requested`` counts trials sent in this run, ``attempts`` their requests."""

    condition: str
    out: str
    planned: int = 0
    already_complete: int = 0
    requested: int = 0
    completed: int = 0
    failed: int = 0
    attempts: int = 0
    failures: dict = field(default_factory=dict)
    spent_usd: float = 0.0
    budget_exhausted: bool = False
    interrupted: bool = False
    skipped_log_lines: int = 0
    fatal_error: str | None = None
    paced: int = 0  # sends that waited for a rate limit to reset (headers, --rpm, --tpm)
    settings: GenerationSettings | None = None  # as sent (with provider defaults such as Anthropic's max_tokens)
    last_errors: dict = field(default_factory=dict)  # the last error text of each failure kind
    tracebacks: list = field(default_factory=list)  # of unexpected exceptions (bugs in fastspe), scrubbed

    @property
    def remaining(self) -> int:
        return self.planned - self.already_complete - self.completed


def trial_id(condition: str, board_id: str, prompt_hash: str, trial: int) -> str:
    """Deterministic id of one trial (32 hex digits), recorded as provenance; not used to resume."""
    key = {"model": condition, "board_id": str(board_id), "prompt_sha256": prompt_hash, "trial": int(trial)}
    return hashlib.sha256(json.dumps(key, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]


def timestamp_now() -> str:
    """The time now, UTC, in ISO 8601 to the millisecond: a record's ``timestamp``."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def trial_fields(trial: Trial, condition: str, provider: str, model: str, base_url: str | None, settings: dict) -> dict:
    """The fields every attempt record of ``trial`` starts with: what was asked, of whom, with which settings,
    by which fastspe and prompt."""
    return {
        "board_id": trial.board_id,
        "condition": condition,
        "trial": trial.trial,
        "trial_id": trial.trial_id,
        "provider": provider,
        "requested_model": model,
        "base_url": public_url(base_url),
        **settings,
        "fastspe_version": __version__,
        "prompt_version": trial.prompt_version,
        "prompt_sha256": trial.prompt_sha256,
        "prompt_text_sha256": prompt_hash(trial.prompt),
        **trial.variant_fields,
    }


def answer_fields(answer, cost: float | None) -> dict:
    """The fields of a completed attempt's record (online or batch)."""
    return dict(
        status=OK,
        response=answer.text,
        error_type=None,
        error=None,
        http_status=answer.http_status,
        returned_model=answer.returned_model,
        request_id=answer.request_id,
        finish_reason=answer.finish_reason,
        raw_finish_reason=answer.raw_finish_reason,
        input_tokens=answer.input_tokens,
        output_tokens=answer.output_tokens,
        reasoning_tokens=answer.reasoning_tokens,
        cost_usd=cost,
    )


def error_fields(error: AttemptError) -> dict:
    """The fields of a failed attempt's record (online or batch)."""
    return dict(
        status=ERROR,
        response=None,
        error_type=error.kind,
        error=error.message,
        http_status=error.http_status,
        returned_model=None,
        request_id=error.request_id,
        finish_reason=None,
        raw_finish_reason=None,
        input_tokens=None,
        output_tokens=None,
        reasoning_tokens=None,
        cost_usd=None,
    )
