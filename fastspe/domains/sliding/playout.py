"""Moves played out on a sliding-puzzle board for a model (``Domain.playout``): the board after the legal prefix,
written as the Appendix B prompt writes boards, or the first illegal move and why.

The rule is ``rules.blank_targets`` (the table the kernels' ``Layout.moves`` is made of), read in plain Python.
"""

from __future__ import annotations

from typing import Mapping

from ..contract import Playout
from ..playout import play_out
from .domain import SlidingDomain
from .prompt import board_text
from .rules import BOUNDARY, DIRECTIONS, blank_targets

__all__ = ["playout"]


def playout(row: Mapping, plan: str) -> Playout:
    """``plan`` (U/D/L/R, ``?`` for a token that is no move) played from the bank row's ``initial`` board."""
    rows, cols = int(row["rows"]), int(row["cols"])
    targets = blank_targets(rows, cols, (int(b) for b in row["blocks"]))
    goal = tuple(int(v) for v in row["goal"])

    def step(board: tuple[int, ...], symbol: str):
        direction = DIRECTIONS.find(symbol)
        if direction < 0:
            return None, "invalid_action"
        blank = board.index(0)
        target = targets[blank][direction]
        if target < 0:
            return None, "boundary" if target == BOUNDARY else "obstacle"
        cells = list(board)
        cells[blank], cells[target] = cells[target], 0
        return tuple(cells), ""

    return play_out(
        tuple(int(v) for v in row["initial"]),
        plan,
        step,
        lambda board: board_text(board, rows, cols),
        lambda board: board == goal,
        SlidingDomain.error_reasons,
    )
