"""Additive disjoint pattern databases: ranking of tile placements and the BFS that fills a table.

A pattern is a group of ``m`` tiles. Its table holds, for every placement of those tiles on the
``F`` free cells, the fewest moves OF PATTERN TILES needed to bring them to their goal cells, the
other tiles being indistinguishable and the blank anywhere (the minimum over blank cells). Moves of
other tiles cost nothing, so the tables of disjoint groups add up to an admissible heuristic: each
real move moves one tile, counted by at most one group.

Conventions:

- cells are numbered by free-cell index 0..F-1 (row-major over the free cells);
- ``nbr`` is int16 ``(F, 4)``: free-cell neighbour in each direction, -1 if none;
- a placement ``pos`` (int64 ``(m,)``, distinct free indices, tile i of the group on ``pos[i]``) has
  the lexicographic rank of the partial permutation: ``rank = sum_i c_i * prod_{j>i} (F - j)``
  where ``c_i`` is ``pos[i]`` less the number of earlier positions below it; ranks run over
  ``0..F!/(F-m)! - 1``.

The BFS runs over (placement, blank region): all blank cells reachable without moving a pattern
tile are one state (0-cost moves), named by the lowest free index of the region, so every step of
the BFS is a pattern-tile move and plain layer-by-layer BFS is exact.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit

UNSEEN = 255


@njit
def placements(free: int, m: int) -> int:
    """F! / (F - m)!: the number of placements of m distinct tiles on F cells."""
    out = 1
    for i in range(m):
        out *= free - i
    return out


@njit
def rank_placement(pos, m: int, free: int) -> int:
    """Lexicographic rank of the partial permutation ``pos[:m]`` of ``free`` cells."""
    r = 0
    for i in range(m):
        c = pos[i]
        p = pos[i]
        for j in range(i):
            if pos[j] < p:
                c -= 1
        r = r * (free - i) + c
    return r


@njit
def unrank_placement(r: int, m: int, free: int, pos) -> None:
    """Inverse of ``rank_placement``: write the placement of rank ``r`` into ``pos[:m]``."""
    digits = np.empty(m, dtype=np.int64)
    for i in range(m - 1, -1, -1):
        base = free - i
        digits[i] = r % base
        r //= base
    used = np.zeros(free, dtype=np.bool_)
    for i in range(m):
        k = digits[i]
        for c in range(free):
            if not used[c]:
                if k == 0:
                    pos[i] = c
                    used[c] = True
                    break
                k -= 1


@njit
def _region(start: int, occupied: np.uint64, nbr) -> np.uint64:
    """Bit mask of free cells the blank reaches from ``start`` without entering ``occupied`` cells."""
    region = np.uint64(1) << np.uint64(start)
    stack = np.empty(64, dtype=np.int64)
    stack[0] = start
    top = 1
    while top > 0:
        top -= 1
        c = stack[top]
        for d in range(4):
            n = nbr[c, d]
            if n < 0:
                continue
            bit = np.uint64(1) << np.uint64(n)
            if (region & bit) == 0 and (occupied & bit) == 0:
                region |= bit
                stack[top] = n
                top += 1
    return region


@njit
def _lowest(mask: np.uint64) -> int:
    c = 0
    while (mask & (np.uint64(1) << np.uint64(c))) == 0:
        c += 1
    return c


@njit
def pattern_seed(goal_pos, blank_goal: int, nbr, free: int, table, seen):
    """Start a table's BFS at the goal; returns the first layer (int64 states ``rank * F + region``)."""
    m = goal_pos.shape[0]
    occupied = np.uint64(0)
    for i in range(m):
        occupied |= np.uint64(1) << np.uint64(goal_pos[i])
    canon = _lowest(_region(blank_goal, occupied, nbr))
    r = rank_placement(goal_pos, m, free)
    table[r] = 0
    state = r * free + canon
    seen[state >> 3] |= np.uint8(1 << (state & 7))
    layer = np.empty(1, dtype=np.int64)
    layer[0] = state
    return layer


@njit
def pattern_layer(layer, depth: int, m: int, nbr, free: int, table, seen):
    """Expand one BFS layer (states at ``depth``); set table entries first reached at depth + 1.

    Returns the next layer (int64 states) and how many table entries it filled.
    """
    out = np.empty(max(16, 2 * layer.shape[0]), dtype=np.int64)
    n_out = 0
    filled = 0
    pos = np.empty(m, dtype=np.int64)
    for s in range(layer.shape[0]):
        state = layer[s]
        r = state // free
        blank = state - r * free
        unrank_placement(r, m, free, pos)
        occupied = np.uint64(0)
        for i in range(m):
            occupied |= np.uint64(1) << np.uint64(pos[i])
        region = _region(blank, occupied, nbr)
        for i in range(m):
            p = pos[i]
            for d in range(4):
                c = nbr[p, d]  # a blank cell beside tile i: the tile slides into it
                if c < 0 or (region & (np.uint64(1) << np.uint64(c))) == 0:
                    continue
                pos[i] = c
                moved = (occupied & ~(np.uint64(1) << np.uint64(p))) | (np.uint64(1) << np.uint64(c))
                canon = _lowest(_region(p, moved, nbr))
                nr = rank_placement(pos, m, free)
                nstate = nr * free + canon
                byte = nstate >> 3
                bit = np.uint8(1 << (nstate & 7))
                if (seen[byte] & bit) == 0:
                    seen[byte] |= bit
                    if table[nr] == UNSEEN:
                        table[nr] = depth + 1
                        filled += 1
                    if n_out == out.shape[0]:
                        grown = np.empty(2 * out.shape[0], dtype=np.int64)
                        grown[:n_out] = out[:n_out]
                        out = grown
                    out[n_out] = nstate
                    n_out += 1
                pos[i] = p
    return out[:n_out].copy(), filled
