"""Moves played out from a Hanoi state for a model (``Domain.playout``): the pegs after the legal prefix, drawn as
the prompt draws them (``prompt.pegs_drawing``), or the first illegal move and why.

The rule is ``rules.move``, the one the viewer, the solver and the baselines take; the loop is fastspe's
(``fastspe.domains.playout.play_out``), the one every domain's playout shares.
"""

from __future__ import annotations

from typing import Mapping

from fastspe.domains.contract import Playout
from fastspe.domains.playout import play_out

from .prompt import pegs_drawing
from .rules import ERROR_NAMES, ERROR_REASONS, GOAL_PEG, SYMBOLS, move, pegs_text, read_start

__all__ = ["playout"]


def playout(row: Mapping, plan: str) -> Playout:
    """``plan`` (stored symbols a..f, ``?`` for a token that is no move) played from the bank row's ``start``
    under its ``rule``."""
    rule = str(row["rule"])

    def step(pegs: tuple[int, ...], symbol: str):
        after, _, error = move(pegs, SYMBOLS.find(symbol), rule)  # (a code of -1 is no action: invalid_action)
        return after, ERROR_NAMES[error]

    return play_out(
        read_start(str(row["start"])),
        plan,
        step,
        lambda pegs: pegs_drawing(pegs_text(pegs)),
        lambda pegs: all(p == GOAL_PEG for p in pegs),
        ERROR_REASONS,
    )
