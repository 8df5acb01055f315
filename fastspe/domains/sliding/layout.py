"""Layouts (grid size and blocked cells), goals, packed boards and their validation.

A layout is ``rows x cols`` (2..8 each; 4 x 4 is the paper's) with blocked cells given as
zero-based row-major indices. The goal lists the numbered tiles in ascending row-major order over
the free cells, with the blank on the last free cell. Boards are int8 rows: 0 blank, -1 blocked.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

import numpy as np

from ...errors import UserError, UserTypeError
from .kernels.graph import bfs_distances, board_h
from .kernels.replay import INVALID_CODE
from .kernels.walks import h_raise_table
from .rules import DIRECTIONS, blank_targets

MIN_SIDE, MAX_SIDE = 2, 8
DIRECTION_BYTES = np.frombuffer(DIRECTIONS.encode(), dtype=np.uint8)  # direction code -> ASCII letter
CODE_OF_BYTE = np.full(256, INVALID_CODE, dtype=np.uint8)  # ASCII byte -> direction code, INVALID_CODE if none
CODE_OF_BYTE[DIRECTION_BYTES] = np.arange(4, dtype=np.uint8)


def _short_int(value: int) -> str:
    """A whole number for a message, cut short when long (Python refuses to print over 4300 digits)."""
    if abs(value) < 10**15:
        return str(value)
    return f"{'-' if value < 0 else ''}a {len(str(abs(value))) if value.bit_length() < 14000 else 'huge'}-digit number"


def _as_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise UserTypeError(f"{what} must be an integer, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Layout:
    """A grid of ``rows x cols`` cells with fixed blocked cells (validated on creation)."""

    rows: int = 4
    cols: int = 4
    blocks: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        rows = _as_int(self.rows, "rows")
        cols = _as_int(self.cols, "cols")
        for name, side in (("rows", rows), ("cols", cols)):
            if not MIN_SIDE <= side <= MAX_SIDE:
                raise UserError(f"{name} must be between {MIN_SIDE} and {MAX_SIDE}, got {side}")
        if isinstance(self.blocks, (str, bytes)) or not isinstance(self.blocks, Iterable):
            raise UserTypeError(f"blocks must be a list of cell indices, got {self.blocks!r}")
        blocks = [_as_int(b, "each blocked cell") for b in self.blocks]
        cells = rows * cols
        bad = [b for b in blocks if not 0 <= b < cells]
        if bad:
            raise UserError(f"blocked cells {bad} are outside 0..{cells - 1} of a {rows}x{cols} board")
        if len(set(blocks)) != len(blocks):
            raise UserError(f"blocked cells repeat: {sorted(blocks)}")
        if cells - len(blocks) < 2:
            raise UserError(
                f"a layout needs at least 2 free cells, {rows}x{cols} with blocks {sorted(blocks)} has {cells - len(blocks)}"
            )
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "cols", cols)
        object.__setattr__(self, "blocks", tuple(sorted(blocks)))
        free = np.flatnonzero(~self.blocked)
        if (self.distances[free[0], free] < 0).any():
            raise UserError(f"the free cells of {rows}x{cols} with blocks {list(self.blocks)} are not connected")

    # -- geometry ---------------------------------------------------------------------------
    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def k(self) -> int:
        return len(self.blocks)

    @property
    def tiles(self) -> int:
        """Number of numbered tiles (free cells less the blank)."""
        return self.cells - self.k - 1

    @property
    def tag(self) -> str:
        """Readable layout name used in board ids: ``b5.10``, or ``bnone`` with no blocks."""
        return "b" + (".".join(map(str, self.blocks)) if self.blocks else "none")

    @cached_property
    def blocked(self) -> np.ndarray:
        mask = np.zeros(self.cells, dtype=np.bool_)
        mask[list(self.blocks)] = True
        return mask

    @cached_property
    def moves(self) -> np.ndarray:
        """int16 (cells, 4): target cell of each blank move, -1 off the board, -2 into a block."""
        return np.array(blank_targets(self.rows, self.cols, self.blocks), dtype=np.int16).reshape(self.cells, 4)

    @cached_property
    def distances(self) -> np.ndarray:
        """int16 (cells, cells) free-cell graph distances, -1 where unreachable."""
        return bfs_distances(self.moves, self.blocked)

    @cached_property
    def goal(self) -> np.ndarray:
        """int8 (cells,): tiles 1.. in row-major order over free cells, blank last, -1 blocked."""
        board = np.full(self.cells, -1, dtype=np.int8)
        free = np.flatnonzero(~self.blocked)
        board[free[:-1]] = np.arange(1, len(free), dtype=np.int8)
        board[free[-1]] = 0
        return board

    @cached_property
    def goal_cell(self) -> np.ndarray:
        """int16 (tiles + 1,): goal cell of tile t at index t (index 0 holds the blank's)."""
        out = np.empty(self.tiles + 1, dtype=np.int16)
        out[self.goal[self.goal >= 0]] = np.flatnonzero(self.goal >= 0)
        return out

    @cached_property
    def raises(self) -> np.ndarray:
        """bool (tiles + 1, cells, 4): blank moves that raise h by one, per tile (walk kernel)."""
        return h_raise_table(self.moves, self.distances, self.goal_cell)

    # -- boards -----------------------------------------------------------------------------
    def h(self, board) -> int:
        """h(s) of a validated board."""
        return int(board_h(self.validate_board(board), self.goal_cell, self.distances))

    def validate_board(self, board, what: str = "board") -> np.ndarray:
        """Return ``board`` as a packed int8 array, or raise ``ValueError`` saying what is wrong.

        Checks the length, that blocked cells hold -1 and only they do, that the tiles are
        exactly 0..tiles once each, and permutation parity (a necessary condition for being
        solvable on the bipartite grid graph; sufficient on 2-connected free graphs that are not
        a cycle, by Wilson's theorem).
        """
        try:
            values = [_as_int(v, f"{what}: every cell") for v in board]
        except TypeError as exc:
            raise UserError(str(exc)) from None
        if len(values) != self.cells:
            raise UserError(f"{what} has {len(values)} cells, a {self.rows}x{self.cols} board has {self.cells}")
        huge = [v for v in values if abs(v) > 2**31]
        if huge:  # before NumPy, which cannot hold a 20-digit value (smaller ones: the detailed message below)
            shown = ", ".join(_short_int(v) for v in huge[:3]) + (", ..." if len(huge) > 3 else "")
            raise UserError(
                f"{what}: values out of range [{shown}] (tiles are 1..{self.tiles}, 0 the blank, -1 a blocked cell)"
            )
        arr = np.array(values, dtype=np.int64)
        blocked_here = np.flatnonzero(arr == -1)
        if not np.array_equal(blocked_here, np.array(self.blocks, dtype=np.int64)):
            wrong = sorted(set(blocked_here.tolist()) ^ set(self.blocks))
            raise UserError(
                f"{what}: blocked cells (-1) are at {blocked_here.tolist()}, the layout blocks {list(self.blocks)} (cells {wrong} differ)"
            )
        free_vals = arr[~self.blocked]
        expected = np.arange(self.tiles + 1)
        if not np.array_equal(np.sort(free_vals), expected):
            seen, counts = np.unique(free_vals, return_counts=True)
            dup = seen[counts > 1].tolist()
            missing = sorted(set(expected.tolist()) - set(seen.tolist()))
            extra = sorted(set(seen.tolist()) - set(expected.tolist()))
            parts = []
            if 0 in missing:
                parts.append("no blank (0)")
            if dup:
                parts.append(f"repeated values {dup}")
            if [m for m in missing if m]:
                parts.append(f"missing tiles {[m for m in missing if m]}")
            if extra:
                parts.append(f"values out of range {extra} (tiles are 1..{self.tiles})")
            raise UserError(f"{what}: " + "; ".join(parts))
        packed = arr.astype(np.int8)
        if not self.parity_ok(packed):
            raise UserError(f"{what} is unsolvable: its permutation parity cannot reach the goal")
        return packed

    def parity_ok(self, board: np.ndarray) -> bool:
        """Permutation parity matches the blank's distance parity (grid graphs are bipartite)."""
        free = np.flatnonzero(~self.blocked)
        # position of each free cell's content in the goal's order of free cells
        goal_pos = {int(v): i for i, v in enumerate(self.goal[free])}
        perm = [goal_pos[int(v)] for v in board[free]]
        seen = [False] * len(perm)
        transpositions = 0
        for i in range(len(perm)):
            j, length = i, 0
            while not seen[j]:
                seen[j] = True
                j = perm[j]
                length += 1
            transpositions += max(length - 1, 0)
        blank = int(np.flatnonzero(board == 0)[0])
        blank_steps = int(self.distances[blank, int(free[-1])])
        return (transpositions - blank_steps) % 2 == 0


def board_rows(board, cols: int) -> list[list[int]]:
    """A packed board as a list of rows of Python ints."""
    values = [int(v) for v in board]
    return [values[i : i + cols] for i in range(0, len(values), cols)]
