"""Worked examples (``--shots N --shots-bank B``): N boards drawn from a separate bank, each as its prompt (a user
message, rendered with the same variant as the boards asked) and its certified optimal plan in the domain's answer
form (``MOVES: ...``, the assistant message).

The draw is a seeded permutation of the shots bank, so the same bank, N and seed give the same examples in the same
order. A shot board is never a board being evaluated: the same board id or the same start state (the domain's
``state_columns``) is refused, so no answer can be copied from an example.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Mapping

from .._text import count
from ..errors import UserError
from .render import plain_value, user_texts
from .spec import PromptSpec, Shot

__all__ = ["MAX_SHOTS", "draw_shots", "with_shots", "refuse_evaluated_shots", "state_key"]

MAX_SHOTS = 64  # worked examples per prompt at most: more is a typo, and a context no model has


def state_key(domain, row: Mapping) -> str:
    """A row's start state as one text (the domain's ``state_columns``), to compare boards of two banks."""
    return json.dumps([plain_value(row[c]) for c in domain.state_columns], default=str)


def draw_shots(shots_bank, n: int, seed: int, spec: PromptSpec) -> tuple[Shot, ...]:
    """``n`` shots drawn (seeded) from ``shots_bank`` (a ``Bank``), their prompts rendered under ``spec``."""
    import numpy as np

    if not 1 <= n <= MAX_SHOTS:
        raise UserError(f"--shots must be between 1 and {MAX_SHOTS}, got {n}")
    if n > len(shots_bank):
        raise UserError(
            f"--shots {n}: the shots bank {shots_bank.source} has only {count(len(shots_bank), shots_bank.domain.unit)}"
        )
    domain = shots_bank.domain
    rows = [int(i) for i in np.random.default_rng(seed).permutation(len(shots_bank))[:n]]
    frame = shots_bank.rows_frame(rows)
    try:
        texts = user_texts(spec, domain, frame)
    except UserError as exc:  # e.g. a template of another domain's fields: say which bank it was rendered for
        raise UserError(f"--shots-bank {shots_bank.source} (a {domain.name} bank): {exc}") from None
    shots = []
    for row, text in zip(frame.to_dict("records"), texts):
        plan = str(row[domain.certificate_column])
        shots.append(Shot(str(row["board_id"]), text, domain.vocabulary.answer(plan, ","), state_key(domain, row)))
    return tuple(shots)


def with_shots(spec: PromptSpec, shots_bank, n: int, seed: int = 0) -> PromptSpec:
    """``spec`` with ``n`` worked examples drawn from ``shots_bank`` (a ``Bank``)."""
    shots = draw_shots(shots_bank, n, seed, spec)
    return dataclasses.replace(
        spec,
        shots=shots,
        shots_seed=int(seed),
        shots_source=str(shots_bank.source),
        shots_domain=shots_bank.domain.name,
    )


def refuse_evaluated_shots(spec: PromptSpec, bank) -> None:
    """A ``UserError`` when a shot of ``spec`` is a board of ``bank`` (a ``Bank``): the same start state (ids say
    nothing here: two banks of one design number their boards alike), or a shot of another domain."""
    if not spec.shots:
        return
    domain = bank.domain
    if spec.shots_domain and spec.shots_domain != domain.name:
        raise UserError(
            f"--shots-bank {spec.shots_source}: a {spec.shots_domain} bank; the boards asked are "
            f"{domain.name} {domain.unit}s"
        )
    states = {s.state: s for s in spec.shots}
    for row in bank.frame[["board_id", *domain.state_columns]].to_dict("records"):
        shot = states.get(state_key(domain, row))
        if shot is not None:
            raise UserError(
                f"--shots-bank {spec.shots_source}: shot {domain.unit} {shot.board_id!r} has the start "
                f"state of {domain.unit} {row['board_id']!r} of the bank being evaluated; worked "
                f"examples must come from other {domain.unit}s (another --shots-bank or --shots-seed)"
            )
