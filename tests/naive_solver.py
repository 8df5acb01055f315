"""A plain-Python exact solver for small layouts, standing in for ``fastspe.domains.sliding.planners.solver.solve_boards`` in
tests: one BFS from the goal (over every reachable board on 3 x 3, within ``RADIUS_4X4`` moves on
larger boards), then a descent along the distances gives an optimal plan. Boards beyond the BFS
radius are refused, so a 4 x 4 test keeps its depths at or below the radius."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

_STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


@dataclass(frozen=True)
class NaiveSolved:
    lengths: np.ndarray
    moves: list
    nodes: np.ndarray
    h: np.ndarray


def _move(board: tuple, rows: int, cols: int, blocks, letter: str):
    blank = board.index(0)
    r, q = divmod(blank, cols)
    dr, dq = _STEPS[letter]
    rr, qq = r + dr, q + dq
    t = rr * cols + qq
    if not (0 <= rr < rows and 0 <= qq < cols) or t in blocks:
        return None
    b = list(board)
    b[blank], b[t] = b[t], 0
    return tuple(b)


def goal_of(rows: int, cols: int, blocks) -> tuple:
    free = [c for c in range(rows * cols) if c not in blocks]
    goal = [-1] * (rows * cols)
    for tile, c in enumerate(free[:-1], start=1):
        goal[c] = tile
    goal[free[-1]] = 0
    return tuple(goal)


RADIUS_4X4 = 14  # about 60k boards on 4 x 4, a second of plain Python


@lru_cache(maxsize=8)
def distances_to_goal(rows: int, cols: int, blocks: tuple) -> dict:
    """Board tuple -> its distance to the goal, for every board reachable from the goal (3 x 3 and
    smaller) or within ``RADIUS_4X4`` moves of it (larger boards)."""
    radius = None if rows * cols <= 9 else RADIUS_4X4
    goal = goal_of(rows, cols, blocks)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        b = queue.popleft()
        if dist[b] == radius:
            continue
        for letter in _STEPS:
            n = _move(b, rows, cols, blocks, letter)
            if n is not None and n not in dist:
                dist[n] = dist[b] + 1
                queue.append(n)
    return dist


def optimal_plan(board: tuple, rows: int, cols: int, blocks: tuple) -> str:
    dist = distances_to_goal(rows, cols, blocks)
    plan = []
    while dist[board]:
        for letter in _STEPS:
            n = _move(board, rows, cols, blocks, letter)
            if n is not None and dist.get(n) == dist[board] - 1:
                plan.append(letter)
                board = n
                break
    return "".join(plan)


def solve_boards(boards, rows, cols, blocks, *, max_nodes=None, progress=None) -> NaiveSolved:
    """The ``fastspe.domains.sliding.planners.solver.solve_boards`` API on small layouts."""
    blocks = tuple(blocks)
    dist = distances_to_goal(rows, cols, blocks)
    boards = [tuple(int(v) for v in b) for b in np.asarray(boards)]
    assert all(b in dist for b in boards), "a board beyond the naive solver's radius"
    plans = [optimal_plan(b, rows, cols, blocks) for b in boards]
    lengths = np.array([len(p) for p in plans], dtype=np.int64)
    return NaiveSolved(
        lengths, plans, np.full(len(plans), len(dist), dtype=np.int64), np.zeros(len(plans), dtype=np.int64)
    )


def apply_plan(board: tuple, plan: str, rows: int, cols: int, blocks) -> tuple:
    for letter in plan:
        board = _move(board, rows, cols, blocks, letter)
        assert board is not None, "illegal move"
    return board
