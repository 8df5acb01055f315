"""Exact move-optimal Sokoban search: A* over (player cell, box set) with an exact visited set.

Conventions (``fastspe.domains.sokoban.level``): cells are row-major ``r * cols + c`` (at most 128, so a
cell fits 7 bits and a state key -- the player and the sorted boxes -- fits an int64); ``wall`` bool
``(cells,)``, ``goal`` bool ``(cells,)`` with as many goals as boxes (1..4), ``boxes`` int64 cells, ``player``
a cell; a plan is int8 direction codes of the player, 0 = U, 1 = D, 2 = L, 3 = R. Every move costs one, a push
included.

The cost is (moves, pushes), compared moves first: the plan found has the fewest moves and, among those,
the fewest pushes (the standard "moves/pushes" pair). The heuristic is (m + w, m), where m is the
minimum-cost matching of boxes to goals by lone-box push distances in the empty room (each push moves one
box one step, so m is a lower bound on the pushes left) and w the player's wall-only walking distance to
the nearest box, less one (before its next push the player must stand beside a box). Both parts change by
at most one per move, and w is 0 on both sides of a push, so the heuristic is consistent: a state's first
expansion has its least cost, and the visited set is exact. ``use_heuristic=False`` turns it off (plain
breadth-first order with the same tie rules), for tests.

Pruning, all of it exact: a box is never pushed onto a square from which no goal can be reached by pushes
even in the empty room, a state whose boxes cannot be matched to distinct goals at finite push cost is
dropped, and so is one whose player cannot reach any box. A real plan moves each box along an empty-room
push path to its own goal, so none of these can cut a plan.

The search is serial and deterministic: states are expanded in (f moves, f pushes) bucket order, newest
first within a bucket, and directions in the order U, D, L, R.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit, prange

FOUND, NO_PLAN, DEAD_START, NODE_LIMIT, OVER_BOUND = 0, 1, 2, 3, 4
MAX_BOXES = 4
MAX_CELLS = 128
INF = 1 << 20  # an unreachable distance; sums of a few stay far inside int64
_BITS = 7
_MASK = np.int64(127)
_DR = np.array([-1, 1, 0, 0], dtype=np.int64)
_DC = np.array([0, 0, -1, 1], dtype=np.int64)
_OPPOSITE = np.array([1, 0, 3, 2], dtype=np.int64)
_FIRST_STATES = 1 << 12


@njit
def neighbours(wall, rows, cols):
    """int64 (cells, 4): the floor cell beside each cell in each direction, -1 for a wall or off the room."""
    cells = rows * cols
    out = np.full((cells, 4), -1, dtype=np.int64)
    for c in range(cells):
        r, q = c // cols, c % cols
        for d in range(4):
            rr, qq = r + _DR[d], q + _DC[d]
            if 0 <= rr < rows and 0 <= qq < cols and not wall[rr * cols + qq]:
                out[c, d] = rr * cols + qq
    return out


@njit
def floor_distances(nbr):
    """int64 (cells, cells): walking distances over the floor, walls only (boxes ignored); INF unreachable."""
    cells = nbr.shape[0]
    dist = np.full((cells, cells), INF, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    for s in range(cells):
        dist[s, s] = 0
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(4):
                t = nbr[c, d]
                if t >= 0 and dist[s, t] == INF:
                    dist[s, t] = dist[s, c] + 1
                    queue[tail] = t
                    tail += 1
    return dist


@njit
def push_distances(nbr, goal_cells):
    """int64 (cells, goals): the fewest pushes that bring a lone box from a cell to each goal in the empty
    room (INF: never). A push from y moves the box to y + d with the player on y - d."""
    cells = nbr.shape[0]
    out = np.full((cells, goal_cells.shape[0]), INF, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    for j in range(goal_cells.shape[0]):
        g = goal_cells[j]
        out[g, j] = 0
        head, tail = 0, 1
        queue[0] = g
        while head < tail:
            x = queue[head]
            head += 1
            for d in range(4):  # the box came to x moving in d: from y = x - d, the player on y - d
                y = nbr[x, _OPPOSITE[d]]
                if y >= 0 and nbr[y, _OPPOSITE[d]] >= 0 and out[y, j] == INF:
                    out[y, j] = out[x, j] + 1
                    queue[tail] = y
                    tail += 1
    return out


@njit
def permutations(n):
    """int64 (n!, n): every permutation of 0..n-1 in lexicographic order (n <= MAX_BOXES)."""
    total = 1
    for i in range(2, n + 1):
        total *= i
    out = np.empty((total, n), dtype=np.int64)
    perm = np.arange(n)
    for k in range(total):
        out[k] = perm
        i = n - 2  # next permutation
        while i >= 0 and perm[i] >= perm[i + 1]:
            i -= 1
        if i < 0:
            break
        j = n - 1
        while perm[j] <= perm[i]:
            j -= 1
        perm[i], perm[j] = perm[j], perm[i]
        perm[i + 1 :] = perm[i + 1 :][::-1].copy()
    return out


@njit
def matching_cost(boxes, nb, push, perms):
    """The least sum of push distances over assignments of the boxes to distinct goals (INF: none)."""
    best = INF
    for k in range(perms.shape[0]):
        s = 0
        for i in range(nb):
            s += push[boxes[i], perms[k, i]]
        if s < best:
            best = s
    return best


@njit
def state_key(player, boxes, nb):
    """The int64 key of a state: the player's cell, then the sorted boxes' cells, 7 bits each."""
    key = np.int64(0)
    for i in range(nb - 1, -1, -1):
        key = (key << _BITS) | boxes[i]
    return (key << _BITS) | player


@njit
def key_slot(key, mask):
    """A key's first slot in a hash table of ``mask + 1`` slots (a power of two)."""
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)
    return np.int64(h) & mask


@njit
def _walk_bound(player, boxes, nb, dist):
    """The player's walking distance to the nearest box, less one (INF when it reaches none)."""
    best = INF
    for i in range(nb):
        d = dist[player, boxes[i]]
        if d < best:
            best = d
    return best - 1 if best < INF else INF


@njit
def search(wall, goal, boxes0, player0, rows, cols, node_limit, bound, use_heuristic):
    """One level's move-optimal plan (see the module docstring).

    Returns (status, length, pushes, plan int8 (length,), expanded, stored): status FOUND, NO_PLAN (every
    reachable state seen: unsolvable), DEAD_START (the start is dead by the exact pruning) or NODE_LIMIT
    (more than ``node_limit`` states stored) or OVER_BOUND (no plan of at most ``bound`` moves); length and
    pushes are -1 unless FOUND.
    """
    nb = boxes0.shape[0]
    nbr = neighbours(wall, rows, cols)
    dist = floor_distances(nbr)
    goal_cells = np.flatnonzero(goal).astype(np.int64)
    push = push_distances(nbr, goal_cells)
    perms = permutations(nb)
    empty = np.zeros(0, dtype=np.int8)
    boxes = np.sort(boxes0.astype(np.int64))
    m0 = matching_cost(boxes, nb, push, perms)
    if m0 == 0:
        return FOUND, 0, 0, empty, 0, 1
    w0 = _walk_bound(player0, boxes, nb, dist)
    if m0 >= INF or w0 >= INF:
        return DEAD_START, -1, -1, empty, 0, 1
    cap = _FIRST_STATES
    keys = np.empty(cap, dtype=np.int64)
    g_moves = np.empty(cap, dtype=np.int32)
    g_pushes = np.empty(cap, dtype=np.int32)
    parent = np.empty(cap, dtype=np.int32)
    pdir = np.empty(cap, dtype=np.int8)  # the move into the state, + 4 for a push
    match = np.empty(cap, dtype=np.int32)
    closed = np.zeros(cap, dtype=np.bool_)
    slots = np.zeros(2 * cap, dtype=np.int32)  # state index + 1; 0 empty
    smask = np.int64(2 * cap - 1)
    e_state = np.empty(cap, dtype=np.int32)  # queue entries, linked per bucket (newest first)
    e_next = np.empty(cap, dtype=np.int32)
    n_entries = 0
    fm_cap, fp_cap = 64, 64
    head = np.full((fm_cap, fp_cap), -1, dtype=np.int32)
    row_count = np.zeros(fm_cap, dtype=np.int64)
    key0 = state_key(player0, boxes, nb)
    keys[0], g_moves[0], g_pushes[0], parent[0], pdir[0], match[0] = key0, 0, 0, -1, -1, m0
    slots[key_slot(key0, smask)] = 1
    stored = 1
    hm0 = m0 + w0 if use_heuristic else 1
    hp0 = m0 if use_heuristic else 1
    head, row_count, e_state, e_next, n_entries = bucket_push(head, row_count, e_state, e_next, 0, 0, hm0, hp0)
    fm_cap, fp_cap = head.shape[0], head.shape[1]
    cur_m, cur_p = hm0, hp0
    expanded = 0
    cur = np.empty(MAX_BOXES, dtype=np.int64)
    nxt = np.empty(MAX_BOXES, dtype=np.int64)
    while True:
        # pop the newest entry of the least (f moves, f pushes) bucket
        while cur_m < fm_cap and (row_count[cur_m] == 0 or cur_p >= fp_cap):
            cur_m += 1
            cur_p = 0
        if cur_m >= fm_cap:
            return NO_PLAN, -1, -1, empty, expanded, stored
        if cur_m > bound:  # every open state's f, a lower bound on its plans, is over the bound
            return OVER_BOUND, -1, -1, empty, expanded, stored
        if head[cur_m, cur_p] < 0:
            cur_p += 1
            continue
        e = head[cur_m, cur_p]
        head[cur_m, cur_p] = e_next[e]
        row_count[cur_m] -= 1
        s = e_state[e]
        if closed[s]:
            continue
        closed[s] = True
        expanded += 1
        key = keys[s]
        p = key & _MASK
        rest = key >> _BITS
        for i in range(nb):
            cur[i] = rest & _MASK
            rest >>= _BITS
        gm, gp, ms = g_moves[s] + 1, g_pushes[s], match[s]
        back = _OPPOSITE[pdir[s]] if 0 <= pdir[s] < 4 else -1  # undoing a walk leads back to the expanded parent
        for d in range(4):
            t = nbr[p, d]
            if t < 0 or d == back:
                continue
            on = -1
            for i in range(nb):
                if cur[i] == t:
                    on = i
            pushed = 0
            m = ms
            if on >= 0:  # a push: the cell beyond must be floor without a box
                beyond = nbr[t, d]
                if beyond < 0:
                    continue
                blocked = False
                for i in range(nb):
                    if cur[i] == beyond:
                        blocked = True
                if blocked:
                    continue
                for i in range(nb):
                    nxt[i] = cur[i]
                j = on  # keep the boxes sorted
                nxt[j] = beyond
                while j > 0 and nxt[j - 1] > nxt[j]:
                    nxt[j - 1], nxt[j] = nxt[j], nxt[j - 1]
                    j -= 1
                while j < nb - 1 and nxt[j + 1] < nxt[j]:
                    nxt[j + 1], nxt[j] = nxt[j], nxt[j + 1]
                    j += 1
                m = matching_cost(nxt, nb, push, perms)
                if m >= INF:
                    continue
                pushed = 1
                nkey = state_key(t, nxt, nb)
            else:
                nkey = (key & ~_MASK) | t
            if m == 0:  # a goal: h(s) >= (1, 1) at every non-goal, so no cheaper goal is left
                length = gm
                plan = np.empty(length, dtype=np.int8)
                plan[length - 1] = d
                q = s
                for k in range(length - 2, -1, -1):
                    plan[k] = pdir[q] & 3
                    q = parent[q]
                return FOUND, length, gp + pushed, plan, expanded, stored + 1
            if pushed:
                w = 0
            else:
                w = _walk_bound(t, cur, nb, dist)
                if w >= INF:
                    continue
            ngp = gp + pushed
            pos = key_slot(nkey, smask)
            while slots[pos] != 0 and keys[slots[pos] - 1] != nkey:
                pos = (pos + 1) & smask
            if slots[pos] != 0:
                o = slots[pos] - 1
                if closed[o] or g_moves[o] < gm or (g_moves[o] == gm and g_pushes[o] <= ngp):
                    continue
                idx = o  # a cheaper way to an open state: requeue it
            else:
                if stored >= node_limit:
                    return NODE_LIMIT, -1, -1, empty, expanded, stored
                if stored == cap:  # grow the state arrays and rehash
                    cap *= 2
                    keys = grown_array(keys, cap)
                    g_moves = grown_array(g_moves, cap)
                    g_pushes = grown_array(g_pushes, cap)
                    parent = grown_array(parent, cap)
                    pdir = grown_array(pdir, cap)
                    match = grown_array(match, cap)
                    closed = grown_array(closed, cap)
                    slots = np.zeros(2 * cap, dtype=np.int32)
                    smask = np.int64(2 * cap - 1)
                    for i in range(stored):
                        q = key_slot(keys[i], smask)
                        while slots[q] != 0:
                            q = (q + 1) & smask
                        slots[q] = i + 1
                    pos = key_slot(nkey, smask)
                    while slots[pos] != 0:
                        pos = (pos + 1) & smask
                idx = stored
                stored += 1
                slots[pos] = idx + 1
                keys[idx] = nkey
                closed[idx] = False
                match[idx] = m
            g_moves[idx], g_pushes[idx], parent[idx], pdir[idx] = gm, ngp, s, d + 4 * pushed
            fm = gm + (m + w if use_heuristic else 1)
            fp = ngp + (m if use_heuristic else 1)
            head, row_count, e_state, e_next, n_entries = bucket_push(
                head, row_count, e_state, e_next, n_entries, idx, fm, fp
            )
            fm_cap, fp_cap = head.shape[0], head.shape[1]


@njit
def grown_array(a, size):
    out = np.empty(size, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit
def bucket_push(head, row_count, e_state, e_next, n_entries, idx, f1, f2):
    """Queue state ``idx`` in bucket (``f1``, ``f2``), newest first, growing the buckets and the entry arrays when
    full: the arrays (new ones when grown) and the entry count after it. Both searches' open list."""
    if f1 >= head.shape[0] or f2 >= head.shape[1]:
        head, row_count = grown_buckets(head, row_count, max(head.shape[0], 2 * f1), max(head.shape[1], 2 * f2))
    if n_entries == e_state.shape[0]:
        e_state = grown_array(e_state, 2 * n_entries)
        e_next = grown_array(e_next, 2 * n_entries)
    e_state[n_entries] = idx
    e_next[n_entries] = head[f1, f2]
    head[f1, f2] = n_entries
    row_count[f1] += 1
    return head, row_count, e_state, e_next, n_entries + 1


@njit
def grown_buckets(head, row_count, fm_cap, fp_cap):
    out = np.full((fm_cap, fp_cap), -1, dtype=np.int32)
    out[: head.shape[0], : head.shape[1]] = head
    rows = np.zeros(fm_cap, dtype=np.int64)
    rows[: row_count.shape[0]] = row_count
    return out, rows


@njit(parallel=True)
def search_levels(walls, goals, boxes, nboxes, players, rows, cols, node_limit, bound):
    """``search`` over n levels in parallel (heuristic on), ``node_limit`` states and ``bound`` moves each.

    walls, goals : bool (n, MAX_CELLS), each level's cells row-major from 0 (the rest unused)
    boxes : int64 (n, MAX_BOXES), the first ``nboxes[i]`` used; players, rows, cols : int64 (n,)

    Returns status, lengths, pushes, expanded, stored (int64 (n,)) and plans int8 (n, bound), padded with -1.
    """
    n = walls.shape[0]
    status = np.empty(n, dtype=np.int64)
    lengths = np.empty(n, dtype=np.int64)
    pushes = np.empty(n, dtype=np.int64)
    expanded = np.empty(n, dtype=np.int64)
    stored = np.empty(n, dtype=np.int64)
    plans = np.full((n, max(bound, 0)), -1, dtype=np.int8)
    for i in prange(n):
        cells = rows[i] * cols[i]
        st, ln, pu, plan, ex, so = search(
            walls[i, :cells],
            goals[i, :cells],
            boxes[i, : nboxes[i]],
            players[i],
            rows[i],
            cols[i],
            node_limit,
            bound,
            True,
        )
        status[i], lengths[i], pushes[i], expanded[i], stored[i] = st, ln, pu, ex, so
        for j in range(plan.shape[0]):
            plans[i, j] = plan[j]
    return status, lengths, pushes, expanded, stored, plans
