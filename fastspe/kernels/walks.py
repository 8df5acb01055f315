"""Certified-walk proposals: random walks from the goal in which every step raises h by one.

After ``depth`` such steps h(s) = depth, and the reversed walk is a legal plan of length depth
back to the goal, so the shortest plan length d* = h(s) is certified (lower bound = witness).
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .rng import random_below, stream_key


@njit
def _walk(goal, moves, dist, goal_cell, depth, key, board, path):
    """One proposal into ``board`` (int8) and ``path`` (uint8 directions); False if stuck."""
    board[:] = goal
    blank = 0
    for c in range(goal.shape[0]):
        if goal[c] == 0:
            blank = c
    for step in range(depth):
        mask = 0
        count = 0
        for d in range(4):
            t = moves[blank, d]
            if t >= 0:
                g = goal_cell[board[t]]
                # the tile on t slides onto the blank's cell
                if dist[g, blank] - dist[g, t] == 1:
                    mask |= 1 << d
                    count += 1
        if count == 0:
            return False
        r = random_below(key, step, count)
        d = 0
        for dd in range(4):
            if mask & (1 << dd):
                if r == 0:
                    d = dd
                    break
                r -= 1
        t = moves[blank, d]
        board[blank] = board[t]
        board[t] = 0
        blank = t
        path[step] = d
    return True


@njit(parallel=True)
def propose_walks(goal, moves, dist, goal_cell, depth, seed, stream, start, count):
    """Proposals ``start .. start + count - 1`` of one design cell, in parallel.

    Parameters
    ----------
    goal : int8 (cells,)
    moves, dist, goal_cell : see ``kernels.graph``
    depth : int, walk length
    seed, stream, start, count : int; proposal i uses the key (seed, stream, start + i)

    Returns
    -------
    boards : int8 (count, cells), the walk's end state (the bank's initial board)
    paths : uint8 (count, depth), the walk's blank directions (0=U, 1=D, 2=L, 3=R)
    ok : bool (count,), False where the walk got stuck before ``depth``
    """
    cells = goal.shape[0]
    boards = np.empty((count, cells), dtype=np.int8)
    paths = np.zeros((count, depth), dtype=np.uint8)
    ok = np.zeros(count, dtype=np.bool_)
    for i in prange(count):
        key = stream_key(seed, stream, start + i)
        ok[i] = _walk(goal, moves, dist, goal_cell, depth, key, boards[i], paths[i])
    return boards, paths, ok
