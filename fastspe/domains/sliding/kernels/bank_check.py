"""A sliding-puzzle bank's board checks in one pass over its bytes (``bank.meaning`` raises for the rows they flag).

``board_faults``: per board, is its goal not its layout's, is -1 not exactly on the blocked cells, are the values on
it not the goal's values, and h(initial), all in one pass over the two boards. Nothing raises: the caller has
range-checked the cells (-1..63). Plain-Python twin: ``tests/naive_bank_check.py``.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit

SPAN = 128  # value + 1 of an int8 cell, masked to 0..127: the width of the distance table's last axis


@njit
def board_faults(initial, goal, layout, goals, steps):
    """``initial``, ``goal``: int8 (n, width); ``layout``: int64 (n,), each board's row of ``goals`` (int8
    (L, width), -1 padded) and ``steps`` (int64 (L, width, SPAN): the distance from a cell to the goal cell
    of value v at ``[.., v + 1]``, 0 for the blank, blocks and values beyond the board). Returns bool (n,)
    ``goal_wrong``, ``blocks_wrong``, ``values_wrong`` (the set of values on the board is not the goal's,
    or a value is outside -1..63) and int64 (n,) ``h`` (meaningful where the three are False)."""
    n, width = initial.shape
    lays = goals.shape[0]
    one = np.uint64(1)
    goal_lo = np.zeros(lays, dtype=np.uint64)  # the set of value + 1 on each goal: bits 0..63, then 64
    goal_hi = np.zeros(lays, dtype=np.uint64)
    for j in range(lays):
        for c in range(width):
            v = np.int64(goals[j, c]) + 1
            if v < 64:
                goal_lo[j] |= one << np.uint64(v)
            else:
                goal_hi[j] |= one << np.uint64(v - 64)
    goal_wrong = np.zeros(n, dtype=np.bool_)
    blocks_wrong = np.zeros(n, dtype=np.bool_)
    values_wrong = np.zeros(n, dtype=np.bool_)
    h = np.zeros(n, dtype=np.int64)
    for i in range(n):
        j = layout[i]
        g_bad, b_bad, v_bad = False, False, False
        lo, hi = np.uint64(0), np.uint64(0)
        total = 0
        for c in range(width):
            want = goals[j, c]
            a = initial[i, c]
            g_bad |= goal[i, c] != want
            b_bad |= (a == -1) != (want == -1)
            raw = np.int64(a) + 1
            v_bad |= (raw < 0) | (raw > 64)  # -128..-2 and 64..127: never on a goal
            v = raw & (SPAN - 1)  # in the tables whatever the value
            if v < 64:
                lo |= one << np.uint64(v)
            else:
                hi |= one << np.uint64(v & 63)
            total += steps[j, c, v]
        goal_wrong[i], blocks_wrong[i] = g_bad, b_bad
        values_wrong[i] = v_bad or lo != goal_lo[j] or hi != goal_hi[j]
        h[i] = total
    return goal_wrong, blocks_wrong, values_wrong, h
