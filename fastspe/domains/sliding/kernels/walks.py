"""Walk proposals from the goal: certified walks (every step raises h by one) and plain random walks.

After ``depth`` certified steps h(s) = depth, and the reversed walk is a legal plan of length depth
back to the goal, so the shortest plan length d* = h(s) is certified (lower bound = witness). A plain
walk ends anywhere: its d* comes from an exact search (``fastspe.domains.sliding.bank.search``).
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit, prange
from ....kernels.rng import random_below, stream_key


@njit
def h_raise_table(moves, dist, goal_cell):
    """bool (tiles + 1, cells, 4): does the blank on c moving in d raise h(s) by one for tile v?

    Tile v sits on ``t = moves[c, d]`` and slides onto c; h changes by
    ``dist[goal(v), c] - dist[goal(v), t]``. One lookup replaces four in the walk's inner loop.
    """
    tiles = goal_cell.shape[0] - 1
    cells = moves.shape[0]
    out = np.zeros((tiles + 1, cells, 4), dtype=np.bool_)
    for v in range(1, tiles + 1):
        g = goal_cell[v]
        for c in range(cells):
            for d in range(4):
                t = moves[c, d]
                if t >= 0 and dist[g, c] >= 0 and dist[g, c] - dist[g, t] == 1:
                    out[v, c, d] = True
    return out


@njit
def _walk(goal, moves, raises, depth, key, board, path):
    """One proposal into ``board`` (int8) and ``path`` (uint8 directions); False if stuck."""
    blank = 0
    for c in range(goal.shape[0]):  # an element loop: ``board[:] = goal`` costs seconds of compile time
        board[c] = goal[c]
        if goal[c] == 0:
            blank = c
    for step in range(depth):
        mask = 0
        count = 0
        for d in range(4):
            t = moves[blank, d]
            if t >= 0 and raises[board[t], blank, d]:
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
def propose_walks(goal, moves, raises, depth, seed, stream, start, count):
    """Proposals ``start .. start + count - 1`` of one design cell, in parallel.

    Parameters
    ----------
    goal : int8 (cells,)
    moves : int16 (cells, 4), see ``kernels.graph``
    raises : bool (tiles + 1, cells, 4), ``raises[v, c, d]`` when the blank on c moving in
        direction d slides tile v one step farther from its goal cell (``h_raise_table``)
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
        ok[i] = _walk(goal, moves, raises, depth, key, boards[i], paths[i])
    return boards, paths, ok


@njit
def _random_walk(goal, moves, length, key, board):
    """A walk of the blank of ``length`` steps from the goal into ``board`` (int8), never undoing the
    step before (a free cell always has a neighbour: layouts are connected with >= 2 free cells)."""
    blank = 0
    for c in range(goal.shape[0]):
        board[c] = goal[c]
        if goal[c] == 0:
            blank = c
    back = -1  # the cell the blank just left
    for step in range(length):
        count = 0
        for d in range(4):
            t = moves[blank, d]
            if t >= 0 and t != back:
                count += 1
        target = back  # a dead end (count == 0): the only way out is back
        if count > 0:
            r = random_below(key, step, count)
            for d in range(4):
                t = moves[blank, d]
                if t >= 0 and t != back:
                    if r == 0:
                        target = t
                        break
                    r -= 1
        board[blank] = board[target]
        board[target] = 0
        back = blank
        blank = target


@njit(parallel=True)
def propose_random_walks(goal, moves, length, seed, stream, start, count):
    """Proposals ``start .. start + count - 1`` of a search-certified cell: plain random walks, in parallel.

    Proposal i walks ``length`` steps with the key (seed, stream, start + i), never undoing a step.

    Parameters
    ----------
    goal : int8 (cells,)
    moves : int16 (cells, 4), see ``kernels.graph``
    length, seed, stream, start, count : int

    Returns
    -------
    boards : int8 (count, cells), each walk's end state
    """
    cells = goal.shape[0]
    boards = np.empty((count, cells), dtype=np.int8)
    for i in prange(count):
        _random_walk(goal, moves, length, stream_key(seed, stream, start + i), boards[i])
    return boards
