"""The sliding puzzle's move rule in plain Python (no NumPy, no numba): where each move takes the blank.

U/D/L/R move the blank one cell up/down/left/right, swapping it with the tile there; a move off the board is
``BOUNDARY``, into a blocked cell ``OBSTACLE``. ``Layout.moves`` (the kernels' table) is this table as an array; a
playout reads it as it is, so that a tool call loads no compiled code.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["DIRECTIONS", "STEPS", "BOUNDARY", "OBSTACLE", "blank_targets"]

DIRECTIONS = "UDLR"
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # (row step, col step) of U, D, L, R: the direction is the blank's
BOUNDARY, OBSTACLE = -1, -2


def blank_targets(rows: int, cols: int, blocks: Iterable[int]) -> list[list[int]]:
    """(cells, 4) nested lists: the cell each blank move from each cell lands on, ``BOUNDARY`` off the board,
    ``OBSTACLE`` into a blocked cell."""
    blocked = set(blocks)
    table = []
    for cell in range(rows * cols):
        r, q = divmod(cell, cols)
        row = []
        for dr, dq in STEPS:
            rr, qq = r + dr, q + dq
            row.append(
                BOUNDARY
                if not (0 <= rr < rows and 0 <= qq < cols)
                else OBSTACLE
                if rr * cols + qq in blocked
                else rr * cols + qq
            )
        table.append(row)
    return table
