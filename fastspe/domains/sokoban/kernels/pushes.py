"""Pushes of Sokoban plans: what a plan costs on a bank whose d* counts pushes (``objective`` ``pushes``).

The replay kernel (``replay``) says whether a plan is legal and complete; this one counts the pushes of each plan's
legal prefix (up to its first illegal or invalid action), with the same level tables (``domains.sokoban.pack``):
a move onto a box's cell pushes it one cell further. Its plain-Python twin is the independent verifier's replay
(``verify.replay``), compared in ``tests/test_sokoban_pushscore.py``.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit

__all__ = ["count_pushes"]


@njit
def count_pushes(level_index, codes, offsets, moves, player, boxes, nboxes):
    """int64 (n,): pushes of plan i (``codes[offsets[i]:offsets[i + 1]]``, 0..3 = U, D, L, R) on level
    ``level_index[i]``, counted over its legal prefix. The tables are ``replay.replay_levels``'s."""
    n = level_index.shape[0]
    out = np.zeros(n, dtype=np.int64)
    occupied = np.zeros(moves.shape[1], dtype=np.bool_)
    for p in range(n):
        li = level_index[p]
        for j in range(nboxes[li]):
            occupied[boxes[li, j]] = True
        at = np.int64(player[li])
        pushes = 0
        for i in range(offsets[p], offsets[p + 1]):
            code = codes[i]
            if code > 3:
                break
            to = moves[li, at, code]
            if to < 0:
                break
            if occupied[to]:
                beyond = moves[li, to, code]
                if beyond < 0 or occupied[beyond]:
                    break
                occupied[to] = False
                occupied[beyond] = True
                pushes += 1
            at = np.int64(to)
        out[p] = pushes
        occupied[:] = False
    return out
