"""Free-cell graph kernels: all-pairs BFS distances and the distance-sum heuristic h(s).

Conventions shared by every kernel:

- a board is an int8 row of ``cells = rows * cols`` values, 0 the blank, -1 a blocked cell;
- ``moves`` is int16 ``(cells, 4)``: for the blank on cell c, ``moves[c, d]`` is the cell it
  would enter with direction d (0=U, 1=D, 2=L, 3=R), ``-1`` off the board, ``-2`` a blocked cell;
- ``dist`` is int16 ``(cells, cells)``: free-cell graph distances, ``-1`` where unreachable;
- ``goal_cell`` is int16 ``(tiles + 1,)``: the goal cell of tile t at index t (index 0 unused).
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit, prange


@njit
def bfs_distances(moves, blocked):
    """All-pairs shortest-path distances over free cells.

    Parameters
    ----------
    moves : int16 (cells, 4)
    blocked : bool (cells,)

    Returns
    -------
    int16 (cells, cells), -1 where unreachable or blocked.
    """
    n = moves.shape[0]
    dist = np.full((n, n), -1, dtype=np.int16)
    queue = np.empty(n, dtype=np.int64)
    for src in range(n):
        if blocked[src]:
            continue
        dist[src, src] = 0
        head = 0
        tail = 0
        queue[tail] = src
        tail += 1
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(4):
                t = moves[c, d]
                if t >= 0 and dist[src, t] < 0:
                    dist[src, t] = dist[src, c] + 1
                    queue[tail] = t
                    tail += 1
    return dist


@njit
def board_h(board, goal_cell, dist):
    """h(s): sum over numbered tiles of the graph distance from their cell to their goal cell."""
    h = 0
    for c in range(board.shape[0]):
        v = board[c]
        if v > 0:
            h += dist[goal_cell[v], c]
    return h


@njit(parallel=True)
def boards_h(boards, goal_cell, dist):
    """h(s) of each row of int8 ``boards`` (n, cells); returns int32 (n,)."""
    n = boards.shape[0]
    out = np.empty(n, dtype=np.int32)
    for i in prange(n):
        out[i] = board_h(boards[i], goal_cell, dist)
    return out
