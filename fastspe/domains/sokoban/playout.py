"""Moves played out on a Sokoban level for a model (``Domain.playout``): the level after the legal prefix, in the
canonical XSB the prompt draws (``Level.text``), or the first illegal move and why.

The rule is ``Level.step``, the one the viewer's replay takes too; a state is (the player's cell, the boxes' cells).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ..contract import Playout
from ..playout import play_out
from .domain import SokobanDomain
from .level import DIRECTIONS, parse_level

__all__ = ["playout"]


def playout(row: Mapping, plan: str) -> Playout:
    """``plan`` (U/D/L/R, ``?`` for a token that is no move) played from the bank row's ``level``."""
    level = parse_level(str(row["level"]))
    goals = frozenset(level.goals)

    def step(state: tuple[int, frozenset[int]], symbol: str):
        direction = DIRECTIONS.find(symbol)
        if direction < 0:
            return None, "invalid_action"
        player, boxes, _, error = level.step(*state, direction)
        return (None, error) if error else ((player, boxes), "")

    return play_out(
        (level.player, frozenset(level.boxes)),
        plan,
        step,
        lambda state: replace(level, player=state[0], boxes=tuple(sorted(state[1]))).text,
        lambda state: state[1] <= goals,
        SokobanDomain.error_reasons,
    )  # (as many goals as boxes)
