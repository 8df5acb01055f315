"""IDA* with the graph-distance sum alone, serial and bounded: the solver's quick first try.

``search.py``'s IDA* carries the pattern-database lookups, the 4-bit tables and the parallel split, which cost
seconds of compiling on a fresh cache; this kernel is the same search without them (the same conventions, see
``search.py``), so a board that a bounded search with the cheap heuristic solves is answered without compiling
those kernels or building tables. With no tables the two searches are the same: ``ida_star_graph`` returns
``search.ida_star``'s length, plan, node count and status given empty databases (the tests compare them).
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit
from .search import FOUND, MAX_DEPTH, NO_PLAN, OVER_BUDGET, TOO_DEEP

_INF = 1 << 30
_INVERSE = np.array([1, 0, 3, 2], dtype=np.int64)


@njit
def _iteration(tile_at, blank, md0, bound, moves, tile_dist, path, budget, next_dir, mds):
    """Depth-first below the root within ``bound``. Returns (length, next bound, nodes): length >= 0 if a goal is
    found (the plan in ``path[:length]``), -1 if not (next bound: the least f over ``bound``), -2 once more than
    ``budget`` nodes were generated. The board is restored unless a goal is found."""
    depth = 0
    next_dir[0] = 0
    mds[0] = md0
    next_bound = _INF
    nodes = 0
    while True:
        d = next_dir[depth]
        if d == 4:  # all children done: undo the move into this node
            if depth == 0:
                return -1, next_bound, nodes
            back = moves[blank, _INVERSE[path[depth - 1]]]
            tile_at[blank] = tile_at[back]
            tile_at[back] = 0
            blank = back
            depth -= 1
            continue
        next_dir[depth] = d + 1
        if depth > 0 and d == _INVERSE[path[depth - 1]]:
            continue
        target = moves[blank, d]
        if target < 0:
            continue
        nodes += 1
        tile = tile_at[target]
        md = mds[depth] - tile_dist[tile, target] + tile_dist[tile, blank]
        f = depth + 1 + md
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        tile_at[blank] = tile
        tile_at[target] = 0
        blank = target
        path[depth] = d
        depth += 1
        mds[depth] = md
        next_dir[depth] = 0
        if md == 0:
            return depth, next_bound, nodes
        if nodes > budget:
            return -2, next_bound, nodes


@njit
def ida_star_graph(board, moves, tile_dist, max_nodes, path):
    """Optimal plan of one int8 board by IDA* with h = the graph-distance sum (``tile_dist`` int16 (T + 1, cells)),
    giving up after ``max_nodes`` nodes. Returns (length, nodes, h, status) as ``search.ida_star``; the plan is
    ``path[:length]`` (int64 direction codes)."""
    tile_at = board.copy()
    blank = 0
    h0 = 0
    for c in range(board.shape[0]):
        if board[c] == 0:
            blank = c
        elif board[c] > 0:
            h0 += tile_dist[board[c], c]
    if h0 == 0:
        return 0, 0, h0, FOUND
    next_dir = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    mds = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    bound = h0
    total = 0
    while bound < MAX_DEPTH:
        length, next_bound, nodes = _iteration(
            tile_at, blank, h0, bound, moves, tile_dist, path, max_nodes - total, next_dir, mds
        )
        total += nodes
        if length >= 0:
            return length, total, h0, FOUND
        if length == -2 or total > max_nodes:
            return -1, total, h0, OVER_BUDGET
        if next_bound == _INF:
            return -1, total, h0, NO_PLAN
        bound = next_bound
    return -1, total, h0, TOO_DEEP
