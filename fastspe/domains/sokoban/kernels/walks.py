"""Sokoban level proposals by reverse play: a room (carved, or a fixed template), boxes on goals, then breadth-first
pulls away from them.

Room i of a stream draws everything from the counter-based key (seed, stream, i) (``kernels.rng``), so a
room and its levels are the same whichever thread makes them. A carved room is a rows x cols rectangle (walls
around) whose floor is carved by a random walk with momentum (connected by construction) to a drawn share of
the inside; a template room is given (``domains.sokoban.templates``). The goals are distinct floor cells.

Reverse play is breadth-first: from every solved state (a box on each goal, the player on any other floor
cell) the reverse moves -- the player steps onto floor without a box and may pull the box behind it along --
reach, layer by layer, exactly the states whose fewest moves to a solved state is the layer's number (a
reverse move is a forward move read backwards). Each state also carries the fewest pulls on any path through
the layers to it: the pushes of its fewest-moves plan with the fewest pushes, the plan the solver certifies.

A target is (layer, floor, pushes): a state of that layer (any complete layer when -1) with at least ``floor``
pushes (exactly ``pushes`` when >= 0) and no box on a goal, drawn among those whose boxes' push distances to their
nearest goals add up to at least half the largest such sum among them (so that the pushes, not the walk to the
boxes, make most of the plan). The exact solver then certifies each level (``fastspe.domains.sokoban.bank``).
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
ANY_LAYER = -1  # a target's layer: any complete layer
NO_PUSHES = -1  # a target's pushes: any number (at least its floor)
DEEPEST = 120  # the last layer reverse play reaches for a target of any layer (the bank's deepest d*)


@njit
def _carve(key, nboxes, min_side, max_side, wall):
    """A carved room into wall (bool (CELLS,), row-major over its own cols); returns (rows, cols, draws used),
    rows 0 when the carved floor is too small for the boxes and a player."""
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
        return 0, 0, c
    return rows, cols, c


@njit
def _place_goals(key, c, nboxes, rows, cols, wall, goal):
    """``nboxes`` distinct goals among the floor cells (a partial shuffle, draws from counter ``c`` on)."""
    for i in range(CELLS):
        goal[i] = False
    floor = 0
    for i in range(rows * cols):
        floor += not wall[i]
    cells = np.empty(floor, dtype=np.int64)
    k = 0
    for i in range(rows * cols):
        if not wall[i]:
            cells[k] = i
            k += 1
    for j in range(nboxes):
        pick = j + random_below(key, c, floor - j)
        c += np.uint64(1)
        cells[j], cells[pick] = cells[pick], cells[j]
        goal[cells[j]] = True


@njit
def _room(key, nboxes, min_side, max_side, template, t_rows, t_cols, wall, goal):
    """One room into wall / goal (bool (CELLS,)): the template when t_rows > 0, else carved; returns (rows, cols),
    (0, 0) when the carved floor is too small."""
    if t_rows > 0:
        for i in range(CELLS):
            wall[i] = template[i]
        rows, cols, c = t_rows, t_cols, np.uint64(0)
    else:
        rows, cols, c = _carve(key, nboxes, min_side, max_side, wall)
        if rows == 0:
            for i in range(CELLS):
                goal[i] = False
            return 0, 0
    _place_goals(key, c, nboxes, rows, cols, wall, goal)
    return rows, cols


@njit
def _reverse_play(wall, goal, rows, cols, nboxes, last, cap):
    """Breadth-first reverse play from the solved states through layer ``last`` (or until ``cap`` states are
    stored, or the states run out). Returns (keys, pulls, starts, done, n): the states stored, the fewest pulls of
    each, layer L's states at keys[starts[L]:starts[L + 1]] for the complete layers L <= done."""
    cells = rows * cols
    nbr = neighbours(wall, rows, cols)  # the search's own table of the room, as the solver that certifies sees it
    goal_cells = np.flatnonzero(goal[:cells]).astype(np.int64)
    size = 1
    while size < 2 * cap:
        size *= 2
    slots = np.zeros(size, dtype=np.int32)
    mask = np.int64(size - 1)
    keys = np.empty(cap, dtype=np.int64)
    pulls = np.zeros(cap, dtype=np.int16)
    starts = np.zeros(last + 2, dtype=np.int64)
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
    starts[1] = n
    lo, hi, layer = 0, n, 0
    cur = np.empty(nboxes, dtype=np.int64)
    nxt = np.empty(nboxes, dtype=np.int64)
    full = False
    while layer < last and lo < hi:
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
                        e = slots[pos] - 1
                        if e >= hi:  # another way into the next layer: keep its fewest pulls
                            pulls[e] = min(pulls[e], pulls[i] + pull)
                        continue
                    if n == cap:
                        full = True
                        break
                    keys[n] = nkey
                    pulls[n] = pulls[i] + pull
                    slots[pos] = n + 1
                    n += 1
                if full:
                    break
            if full:
                break
        if full:  # an unfinished layer is not drawn from
            break
        lo, hi, layer = hi, n, layer + 1
        starts[layer + 1] = n
    return keys, pulls, starts, layer, n


@njit
def _wanted(pulls, floor, pushes):
    return pulls >= floor and (pushes < 0 or pulls == pushes)


@njit
def _draw(key, wall, goal, rows, cols, nboxes, targets, cap, players, boxes, layers, npushes):
    """Reverse play, then one state for each target (layer, floor, pushes) of ``targets`` (int64 (nt, 3)) into
    players[k] / boxes[k] / layers[k] / npushes[k] (players -1: no such state in the complete layers)."""
    cells = rows * cols
    last = 0
    for k in range(targets.shape[0]):
        layer = targets[k, 0]
        last = max(last, layer if layer >= 0 else DEEPEST)
    nbr = neighbours(wall, rows, cols)
    goal_cells = np.flatnonzero(goal[:cells]).astype(np.int64)
    near = np.empty(cells, dtype=np.int64)  # pushes from each cell to its nearest goal
    push = push_distances(nbr, goal_cells)
    for c in range(cells):
        near[c] = INF
        for j in range(goal_cells.shape[0]):
            near[c] = min(near[c], push[c, j])
    keys, pulls, starts, done, _ = _reverse_play(wall, goal, rows, cols, nboxes, last, cap)
    for k in range(targets.shape[0]):
        players[k] = -1
        layer, floor, pushes = targets[k, 0], targets[k, 1], targets[k, 2]
        if layer > done:
            continue
        lo = starts[layer] if layer >= 0 else 0
        hi = starts[layer + 1] if layer >= 0 else starts[done + 1]
        best = 0  # among the wanted states, those whose boxes lie farthest from goals
        for i in range(lo, hi):
            if _wanted(pulls[i], floor, pushes):
                best = max(best, _spread(keys[i], goal, near, nboxes))
        floor_h = (best + 1) // 2
        eligible = 0
        for i in range(lo, hi):
            eligible += _wanted(pulls[i], floor, pushes) and _spread(keys[i], goal, near, nboxes) >= floor_h
        if eligible == 0:
            continue
        if layer >= 0:  # (floor 0 draws as before floors existed: a bank of an old design is unchanged)
            counter = np.uint64((1 << 40) + layer + (floor << 20))
        else:
            counter = np.uint64((1 << 41) + pushes)
        r = random_below(key, counter, eligible)
        for i in range(lo, hi):
            if _wanted(pulls[i], floor, pushes) and _spread(keys[i], goal, near, nboxes) >= floor_h:
                if r == 0:
                    players[k] = keys[i] & _MASK7
                    npushes[k] = pulls[i]
                    rest = keys[i] >> 7
                    for j in range(nboxes):
                        boxes[k, j] = rest & _MASK7
                        rest >>= 7
                    layers[k] = layer
                    if layer < 0:
                        for L in range(done + 1):
                            if starts[L] <= i < starts[L + 1]:
                                layers[k] = L
                    break
                r -= 1


@njit
def _spread(key, goal, near, nboxes):
    """How far a state's boxes lie from the goals: the sum of their push distances to the nearest goal, -1 when a
    box is on a goal (such states are never drawn)."""
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
def propose_levels(nboxes, min_side, max_side, template, t_rows, t_cols, targets, cap, seed, stream, start, count):
    """Rooms ``start .. start + count - 1`` of one stream and a level for each target in each, in parallel (see
    the module docstring), reverse play storing at most ``cap`` states a room.

    Parameters
    ----------
    template : bool (CELLS,), the walls of a template room (row-major over t_cols) when t_rows > 0; else rooms
        are carved, min_side..max_side cells a side
    targets : int64 (nt, 3), rows (layer, floor, pushes): layer -1 for any, pushes -1 for any (at least floor)

    Returns walls, goals bool (count, CELLS) (row-major over each room's own cols), rows, cols int64 (count,)
    (rows 0: no room, too small), players int64 (count, nt) (-1: no level for that target), boxes int64
    (count, nt, nboxes) (sorted cells), layers and pushes int64 (count, nt): each level's d* and pushes.
    """
    nt = targets.shape[0]
    walls = np.ones((count, CELLS), dtype=np.bool_)
    goals = np.zeros((count, CELLS), dtype=np.bool_)
    rows = np.zeros(count, dtype=np.int64)
    cols = np.zeros(count, dtype=np.int64)
    players = np.full((count, nt), -1, dtype=np.int64)
    boxes = np.zeros((count, nt, nboxes), dtype=np.int64)
    layers = np.full((count, nt), -1, dtype=np.int64)
    pushes = np.full((count, nt), -1, dtype=np.int64)
    for i in prange(count):
        key = stream_key(seed, stream, start + i)
        rows[i], cols[i] = _room(key, nboxes, min_side, max_side, template, t_rows, t_cols, walls[i], goals[i])
        if rows[i] > 0:
            _draw(
                key,
                walls[i],
                goals[i],
                rows[i],
                cols[i],
                nboxes,
                targets,
                cap,
                players[i],
                boxes[i],
                layers[i],
                pushes[i],
            )
    return walls, goals, rows, cols, players, boxes, layers, pushes
