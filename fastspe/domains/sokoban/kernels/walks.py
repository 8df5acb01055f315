"""Sokoban level proposals by reverse play: a carved room, boxes on goals, then breadth-first pulls away from them.

Room i of a stream draws everything from the counter-based key (seed, stream, i) (``kernels.rng``), so a
room and its levels are the same whichever thread makes them. The room is a rows x cols rectangle (walls
around) whose floor is carved by a random walk with momentum (connected by construction) to a drawn share of
the inside; the goals are distinct floor cells.

Reverse play is breadth-first: from every solved state (a box on each goal, the player on any other floor
cell) the reverse moves -- the player steps onto floor without a box and may pull the box behind it along --
reach, layer by layer, exactly the states whose fewest moves to a solved state is the layer's number (a
reverse move is a forward move read backwards). A level of depth D is drawn from layer D, among its states with
no box on a goal whose boxes' push distances to their nearest goals add up to at least half the layer's
largest such sum (so that the pushes, not the walk to the boxes, make most of the plan). The exact solver then certifies each level (``fastspe.domains.sokoban.bank``).
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit, prange
from ....kernels.rng import random_below, stream_key
from .search import INF, key_slot, neighbours, push_distances, state_key

_DR = np.array([-1, 1, 0, 0], dtype=np.int64)
_DC = np.array([0, 0, -1, 1], dtype=np.int64)
CELLS = 100  # 10 x 10, the largest level
_MASK7 = np.int64(127)
_OPPOSITE = np.array([1, 0, 3, 2], dtype=np.int64)


@njit
def _room(key, nboxes, min_side, max_side, wall, goal):
    """One room into wall / goal (bool (CELLS,), row-major over its own cols); returns (rows, cols), (0, 0)
    when the carved floor is too small for the boxes and a player."""
    c = np.uint64(0)  # the draw counter
    rows = min_side + random_below(key, c, max_side - min_side + 1)
    cols = min_side + random_below(key, c + np.uint64(1), max_side - min_side + 1)
    c += np.uint64(2)
    inside = (rows - 2) * (cols - 2)
    share = 45 + random_below(key, c, 36)  # percent of the inside carved: 45..80
    c += np.uint64(1)
    want = max(nboxes + 2, (inside * share) // 100)
    for i in range(CELLS):
        wall[i] = True
        goal[i] = False
    r = 1 + random_below(key, c, rows - 2)
    q = 1 + random_below(key, c + np.uint64(1), cols - 2)
    c += np.uint64(2)
    wall[r * cols + q] = False
    floor = 1
    d = random_below(key, c, 4)
    c += np.uint64(1)
    tries = 0
    while floor < want and tries < 40 * inside:
        tries += 1
        if random_below(key, c, 100) < 35:  # turn
            d = random_below(key, c + np.uint64(1), 4)
        c += np.uint64(2)
        rr, qq = r + _DR[d], q + _DC[d]
        if 1 <= rr < rows - 1 and 1 <= qq < cols - 1:
            r, q = rr, qq
            if wall[r * cols + q]:
                wall[r * cols + q] = False
                floor += 1
    if floor < nboxes + 2:
        return 0, 0
    cells = np.empty(floor, dtype=np.int64)
    k = 0
    for i in range(rows * cols):
        if not wall[i]:
            cells[k] = i
            k += 1
    for j in range(nboxes):  # the goals: a partial shuffle of the floor cells
        pick = j + random_below(key, c, floor - j)
        c += np.uint64(1)
        cells[j], cells[pick] = cells[pick], cells[j]
        goal[cells[j]] = True
    return rows, cols


@njit
def _reverse_pick(key, wall, goal, rows, cols, nboxes, depths, cap, players, boxes):
    """Breadth-first reverse play from the solved states; for each depth D of ``depths`` (ascending) the player
    and boxes of a state drawn from layer D into players[k] / boxes[k] (-1: the search ended first, or stored
    ``cap`` states). Returns the number of states stored."""
    cells = rows * cols
    nbr = neighbours(wall, rows, cols)  # the search's own table of the room, as the solver that certifies sees it
    goal_cells = np.flatnonzero(goal[:cells]).astype(np.int64)
    near = np.empty(cells, dtype=np.int64)  # pushes from each cell to its nearest goal
    push = push_distances(nbr, goal_cells)
    for c in range(cells):
        near[c] = INF
        for j in range(goal_cells.shape[0]):
            near[c] = min(near[c], push[c, j])
    size = 1
    while size < 2 * cap:
        size *= 2
    slots = np.zeros(size, dtype=np.int32)
    mask = np.int64(size - 1)
    keys = np.empty(cap, dtype=np.int64)
    n = 0
    for p in range(cells):  # layer 0: the solved states
        if wall[p] or goal[p]:
            continue
        keys[n] = state_key(p, goal_cells, nboxes)
        n += 1
    for i in range(n):
        pos = key_slot(keys[i], mask)
        while slots[pos] != 0:
            pos = (pos + 1) & mask
        slots[pos] = i + 1
    for k in range(depths.shape[0]):
        players[k] = -1
    lo, hi, layer, want = 0, n, 0, 0
    cur = np.empty(nboxes, dtype=np.int64)
    nxt = np.empty(nboxes, dtype=np.int64)
    full = False
    while lo < hi and want < depths.shape[0]:
        if layer == depths[want]:  # draw from this layer, among its states whose boxes lie farthest from goals
            best = 0
            for i in range(lo, hi):
                best = max(best, _spread(keys[i], goal, near, nboxes))
            floor_h = (best + 1) // 2
            eligible = 0
            for i in range(lo, hi):
                eligible += _spread(keys[i], goal, near, nboxes) >= floor_h
            r = random_below(key, np.uint64((1 << 40) + layer), eligible)
            for i in range(lo, hi):
                if _spread(keys[i], goal, near, nboxes) >= floor_h:
                    if r == 0:
                        players[want] = keys[i] & _MASK7
                        rest = keys[i] >> 7
                        for j in range(nboxes):
                            boxes[want, j] = rest & _MASK7
                            rest >>= 7
                        break
                    r -= 1
            want += 1
            continue
        if full:
            break
        for i in range(lo, hi):
            p = keys[i] & _MASK7
            rest = keys[i] >> 7
            for j in range(nboxes):
                cur[j] = rest & _MASK7
                rest >>= 7
            for d in range(4):
                t = nbr[p, d]
                if t < 0:
                    continue
                free = True
                for j in range(nboxes):
                    if cur[j] == t:
                        free = False
                if not free:
                    continue
                back = nbr[p, _OPPOSITE[d]]
                for pull in range(2):
                    if pull == 0:
                        nkey = (keys[i] & ~_MASK7) | t
                    else:
                        held = -1
                        for j in range(nboxes):
                            if cur[j] == back:
                                held = j
                        if back < 0 or held < 0:
                            continue
                        for j in range(nboxes):
                            nxt[j] = cur[j]
                        nxt[held] = p
                        nxt[:nboxes] = np.sort(nxt[:nboxes])
                        nkey = state_key(t, nxt, nboxes)
                    pos = key_slot(nkey, mask)
                    while slots[pos] != 0 and keys[slots[pos] - 1] != nkey:
                        pos = (pos + 1) & mask
                    if slots[pos] != 0:
                        continue
                    if n == cap:
                        full = True
                        break
                    keys[n] = nkey
                    slots[pos] = n + 1
                    n += 1
                if full:
                    break
            if full:
                break
        if full:  # an unfinished layer is not drawn from
            break
        lo, hi, layer = hi, n, layer + 1
    return n


@njit
def _spread(key, goal, near, nboxes):
    """How far a state's boxes lie from the goals: the sum of their push distances to the nearest goal, -1 when a
    box is on a goal (such states are drawn only when no other is in the layer)."""
    rest = key >> 7
    total = 0
    for j in range(nboxes):
        b = rest & _MASK7
        if goal[b]:
            return -1
        total += near[b]
        rest >>= 7
    return total


@njit(parallel=True)
def propose_levels(nboxes, min_side, max_side, depths, cap, seed, stream, start, count):
    """Rooms ``start .. start + count - 1`` of one stream and a level of each depth in ``depths`` (ascending) in
    each, in parallel (see the module docstring), reverse play storing at most ``cap`` states a room.

    Returns walls, goals bool (count, CELLS) (row-major over each room's own cols), rows, cols int64 (count,)
    (rows 0: no room, too small), players int64 (count, len(depths)) (-1: no level of that depth) and boxes int64
    (count, len(depths), nboxes), sorted cells.
    """
    nd = depths.shape[0]
    walls = np.ones((count, CELLS), dtype=np.bool_)
    goals = np.zeros((count, CELLS), dtype=np.bool_)
    rows = np.zeros(count, dtype=np.int64)
    cols = np.zeros(count, dtype=np.int64)
    players = np.full((count, nd), -1, dtype=np.int64)
    boxes = np.zeros((count, nd, nboxes), dtype=np.int64)
    for i in prange(count):
        key = stream_key(seed, stream, start + i)
        rows[i], cols[i] = _room(key, nboxes, min_side, max_side, walls[i], goals[i])
        if rows[i] > 0:
            _reverse_pick(key, walls[i], goals[i], rows[i], cols[i], nboxes, depths, cap, players[i], boxes[i])
    return walls, goals, rows, cols, players, boxes
