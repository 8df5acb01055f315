"""Exact Sokoban search over pushes, for rooms of up to ``MAX_CELLS`` cells and ``MAX_BOXES`` boxes.

Conventions are those of ``kernels.search`` (cells row-major ``r * cols + c``, direction codes 0 = U, 1 = D,
2 = L, 3 = R), without its 128-cell / 4-box key: a state is the sorted box cells (``nb`` int16) and a player
cell (int16), stored in flat arrays and found through an open-addressing table that compares whole keys, so a
hash collision costs a probe, never a wrong answer. Stored states are capped (``node_limit``): memory is bounded.

One edge is a shortest walk (boxes fixed, by breadth-first search) to the cell behind a box, then the push. Any
plan can have each walk between pushes replaced by a shortest one without changing its pushes, so the plans of
least (moves, pushes) and of least (pushes, moves) are paths of this graph. The state's player is exact (the
cell the pushed box left), so the moves of a push sequence are exact too. Objectives:

- ``MOVES``: cost (moves, pushes), each edge (walk + 1, 1): the fewest moves, then the fewest pushes.
- ``PUSHES``: cost (pushes, moves), each edge (1, walk + 1): the fewest pushes, then the fewest moves.
- ``SOLVABLE``: any plan. The player is normalized to the least cell of its reachable region (states that differ
  only in where the player stands in one region merge), greedy order by the heuristic; exact on "is there a plan".

A* with a consistent heuristic (m, m): m is the minimum-cost assignment of boxes to distinct goals by lone-box
push distances in the empty room (the Hungarian algorithm; a lower bound on pushes left, as a push changes one
box's distances by at most one). For both objectives each edge costs at least (1, 1) lexicographically where m
falls by one, so h(s) <= c(s, s') + h(s') in the lexicographic order and a state's first expansion has its least
cost (costs are compared as pairs, an ordered group, so A*'s proof holds unchanged). The goal test is at expansion.

Pruning, all of it exact (it never cuts a state from which a plan exists):
- a box is never pushed onto a dead square (no goal reachable by pushes in the empty room);
- a state whose boxes cannot be assigned to distinct goals at finite push distance is dropped;
- freeze deadlocks: a new state is dropped when its pushed box is frozen -- blocked on both axes by a wall, by
  dead squares on both sides, or by a box that is itself frozen when this one is taken as a wall -- and a box of
  that frozen group is off its goal. Of the boxes that proof names, none can be the first to move (each is held
  by walls, by a dead square it may not enter, or by another of them), so none ever moves in a plan, and a box off
  a goal stays off it. (A state found in the table skips the checks and the bound: it has them already.)
- the deadlock table (``deadlocks.pair_dead``, flag ``use_table``): a new state is dropped when its pushed box and
  a box within two rows and columns of it, alone in the room, reach goals from no player cell; corral pruning
  (``deadlocks.corral_dead``, ``use_corral``): a state whose box last pushed borders a dead I-corral is not
  expanded. Both are proven by exhaustive searches of a subset of the boxes (see ``deadlocks``) and are off by
  default: on Microban they save a few per cent of the states (up to 15% with corrals) but cost more time than
  that (``benchmarks/bench_sokoban_search.py``).

Deterministic: buckets of (f1, f2) popped in order, newest first within one, boxes in sorted order, directions
U, D, L, R; the walks of the plan are rebuilt by breadth-first search in the same direction order.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit
from .deadlocks import corral_dead, near, pair_dead, rehashed_slots, state_hash
from .search import bucket_push, grown_array  # the open list and array growth, shared with the move-level search
from .search import (
    DEAD_START,
    FOUND,
    INF,
    NO_PLAN,
    NODE_LIMIT,  # noqa: F401 - the statuses, shared with it
    neighbours,
    push_distances,
)

MOVES, PUSHES, SOLVABLE = 0, 1, 2
MAX_CELLS = 1024  # 32 x 32: cells fit int16 with room to spare
MAX_BOXES = 16
PROGRESS_EVERY = 1 << 14  # expansions between writes to the progress array
_OPPOSITE = np.array([1, 0, 3, 2], dtype=np.int64)
_FIRST_STATES = 1 << 12


@njit
def assignment_cost(boxes, nb, push, u, v, way, minv, used, match):
    """The least sum of ``push[box, goal]`` over assignments of the ``nb`` boxes to distinct goals (>= INF: none).

    The Hungarian algorithm (potentials, O(nb^3)); u, v, way, minv, used, match are scratch of nb + 1 entries."""
    n = nb
    for i in range(n + 1):
        u[i] = 0
        v[i] = 0
        match[i] = 0
    for i in range(1, n + 1):
        match[0] = i
        j0 = 0
        for j in range(n + 1):
            minv[j] = INF * (n + 1)
            used[j] = False
        while True:
            used[j0] = True
            i0 = match[j0]
            delta = INF * (n + 1)
            j1 = 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = push[boxes[i0 - 1], j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(n + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while True:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
            if j0 == 0:
                break
    total = 0
    for j in range(1, n + 1):
        total += push[boxes[match[j] - 1], j - 1]
    return total


@njit
def frozen(c, nbr, occ, dead, goal, mark):
    """(frozen, off_goal) of the box on ``c``: whether it can never move in a plan (see the module docstring), and
    whether a box of the frozen group proving it is off a goal. ``mark`` (cells) holds cells taken as walls; it is
    restored on return."""
    mark[c] = True
    off = not goal[c]
    held = True
    for axis in range(2):
        a, b = nbr[c, 2 * axis], nbr[c, 2 * axis + 1]
        blocked = a < 0 or b < 0
        if not blocked:
            blocked = mark[a] or mark[b] or (dead[a] and dead[b])
        if not blocked:
            for x in (a, b):
                if occ[x] and not blocked:
                    f, o = frozen(x, nbr, occ, dead, goal, mark)
                    if f:
                        blocked = True
                        off = off or o
        if not blocked:
            held = False
            break
    mark[c] = False
    return held, off


@njit
def _region(p, nbr, occ, dist, stamp, mark, queue):
    """Breadth-first walk from ``p`` around the boxes: dist[c] for cells with stamp[c] == mark; returns the
    region's least cell."""
    stamp[p] = mark
    dist[p] = 0
    queue[0] = p
    head, tail = 0, 1
    least = p
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(4):
            t = nbr[c, d]
            if t >= 0 and stamp[t] != mark and not occ[t]:
                stamp[t] = mark
                dist[t] = dist[c] + 1
                queue[tail] = t
                tail += 1
                if t < least:
                    least = t
    return least


@njit
def _walk_plan(start_player, boxes0, nb, nbr, cells, pcell, pdir, count):
    """The moves of ``count`` pushes (box on pcell[k] pushed in pdir[k]) from the start, each walk the first
    shortest one in U, D, L, R order: int8 codes."""
    occ = np.zeros(cells, dtype=np.bool_)
    for i in range(nb):
        occ[boxes0[i]] = True
    prev = np.full(cells, -1, dtype=np.int64)
    stamp = np.zeros(cells, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    out = np.empty(16, dtype=np.int8)
    n = 0
    p = start_player
    walk = np.empty(cells, dtype=np.int8)
    for k in range(count):
        d = pdir[k]
        target = nbr[pcell[k], _OPPOSITE[d]]
        stamp[p] = k + 1
        queue[0] = p
        head, tail = 0, 1
        while head < tail and stamp[target] != k + 1:
            c = queue[head]
            head += 1
            for e in range(4):
                t = nbr[c, e]
                if t >= 0 and stamp[t] != k + 1 and not occ[t]:
                    stamp[t] = k + 1
                    prev[t] = c * 4 + e
                    queue[tail] = t
                    tail += 1
        steps = 0
        c = target
        while c != p:
            walk[steps] = prev[c] & 3
            c = prev[c] >> 2
            steps += 1
        while n + steps + 1 > out.shape[0]:
            out = grown_array(out, 2 * out.shape[0])
        for s in range(steps - 1, -1, -1):
            out[n] = walk[s]
            n += 1
        out[n] = d
        n += 1
        occ[pcell[k]] = False
        occ[nbr[pcell[k], d]] = True
        p = pcell[k]
    return out[:n].copy()


@njit
def push_search(
    wall,
    goal,
    boxes0,
    player0,
    rows,
    cols,
    node_limit,
    objective,
    use_heuristic,
    use_freeze,
    progress,
    use_table=False,
    use_corral=False,
):
    """One level's plan for ``objective`` (MOVES, PUSHES or SOLVABLE; see the module docstring); ``use_freeze``,
    ``use_table`` and ``use_corral`` turn each deadlock pruning on (the answer is the same either way; the last two
    are off unless asked for: see the module docstring).

    ``progress`` int64 (4,) is written every ``PROGRESS_EVERY`` expansions: expanded, stored, the least open f1
    (moves or pushes), and 1 once the search is over.

    Returns (status, moves, pushes, plan int8 (moves,), expanded, stored): status FOUND, NO_PLAN (every reachable
    state seen: unsolvable), DEAD_START (the start is dead by the exact pruning) or NODE_LIMIT (``node_limit``
    states stored); moves and pushes are -1 unless FOUND. For SOLVABLE the plan is empty and moves -1 (the walks
    are not tracked) but pushes are a plan's pushes.
    """
    nb = boxes0.shape[0]
    cells = rows * cols
    nbr = neighbours(wall, rows, cols)
    goal_cells = np.flatnonzero(goal).astype(np.int64)
    push = push_distances(nbr, goal_cells)
    dead = np.ones(cells, dtype=np.bool_)
    for c in range(cells):
        for j in range(goal_cells.shape[0]):
            if push[c, j] < INF:
                dead[c] = False
    empty = np.zeros(0, dtype=np.int8)
    u = np.zeros(nb + 1, dtype=np.int64)
    v = np.zeros(nb + 1, dtype=np.int64)
    way = np.zeros(nb + 1, dtype=np.int64)
    minv = np.zeros(nb + 1, dtype=np.int64)
    used = np.zeros(nb + 1, dtype=np.bool_)
    amatch = np.zeros(nb + 1, dtype=np.int64)
    cur = np.sort(boxes0.astype(np.int64))
    nxt = np.empty(nb, dtype=np.int64)
    occ = np.zeros(cells, dtype=np.bool_)
    mark = np.zeros(cells, dtype=np.bool_)
    dist = np.zeros(cells, dtype=np.int64)
    stamp = np.zeros(cells, dtype=np.int64)
    queue = np.empty(cells, dtype=np.int64)
    dist2 = np.zeros(cells, dtype=np.int64)
    stamp2 = np.zeros(cells, dtype=np.int64)
    cstamp = np.zeros(cells, dtype=np.int64)  # the corral checks' scratch (``deadlocks.corral_dead``)
    socc = np.zeros(cells, dtype=np.bool_)
    swork = np.zeros((2, cells), dtype=np.int64)
    cmark = 0
    table = np.full(cells * cells if use_table else 1, -1, dtype=np.int8)  # the deadlock table (pairs)
    floor = np.flatnonzero(~wall[:cells]).astype(np.int64)
    progress[3] = 0

    m0 = assignment_cost(cur, nb, push, u, v, way, minv, used, amatch)
    if m0 == 0:
        progress[3] = 1
        return FOUND, 0, 0, empty, 0, 1
    if m0 >= INF:
        progress[3] = 1
        return DEAD_START, -1, -1, empty, 0, 1
    if use_freeze:
        for i in range(nb):
            occ[cur[i]] = True
        for i in range(nb):
            f, o = frozen(cur[i], nbr, occ, dead, goal, mark)
            if f and o:
                progress[3] = 1
                return DEAD_START, -1, -1, empty, 0, 1
        for i in range(nb):
            occ[cur[i]] = False

    cap = _FIRST_STATES
    sbox = np.empty(cap * nb, dtype=np.int16)
    spl = np.empty(cap, dtype=np.int16)
    g1 = np.empty(cap, dtype=np.int32)
    g2 = np.empty(cap, dtype=np.int32)
    hm = np.empty(cap, dtype=np.int32)
    parent = np.empty(cap, dtype=np.int32)
    pcell = np.empty(cap, dtype=np.int16)
    pdir = np.empty(cap, dtype=np.int8)
    closed = np.zeros(cap, dtype=np.bool_)
    slots = np.zeros(2 * cap, dtype=np.int32)  # state index + 1; 0 empty
    smask = np.int64(2 * cap - 1)
    e_state = np.empty(cap, dtype=np.int32)  # queue entries, linked per bucket (newest first)
    e_next = np.empty(cap, dtype=np.int32)
    f1_cap, f2_cap = 64, 64
    head = np.full((f1_cap, f2_cap), -1, dtype=np.int32)
    row_count = np.zeros(f1_cap, dtype=np.int64)

    p0 = player0
    stamp_no, stamp_no2 = 1, 0
    if objective == SOLVABLE:
        for i in range(nb):
            occ[cur[i]] = True
        p0 = _region(player0, nbr, occ, dist, stamp, stamp_no, queue)
        for i in range(nb):
            occ[cur[i]] = False
    for i in range(nb):
        sbox[i] = cur[i]
    spl[0], g1[0], g2[0], hm[0], parent[0], pcell[0], pdir[0] = p0, 0, 0, m0, -1, -1, -1
    slots[np.int64(state_hash(p0, sbox, 0, nb)) & smask] = 1
    stored = 1
    h0 = m0 if use_heuristic else 0
    f2_0 = 0 if objective == SOLVABLE else h0
    head, row_count, e_state, e_next, n_entries = bucket_push(head, row_count, e_state, e_next, 0, 0, h0, f2_0)
    f1_cap, f2_cap = head.shape[0], head.shape[1]
    c1, c2 = h0, 0
    expanded = 0
    while True:
        while c1 < f1_cap and (row_count[c1] == 0 or c2 >= f2_cap):
            c1 += 1
            c2 = 0
        if c1 >= f1_cap:
            break
        if head[c1, c2] < 0:
            c2 += 1
            continue
        e = head[c1, c2]
        head[c1, c2] = e_next[e]
        row_count[c1] -= 1
        s = e_state[e]
        if closed[s]:
            continue
        closed[s] = True
        if hm[s] == 0:  # a goal, popped with the least cost of all (consistent heuristic)
            count = 0
            q = s
            while parent[q] >= 0:
                count += 1
                q = parent[q]
            cells_k = np.empty(count, dtype=np.int64)
            dirs_k = np.empty(count, dtype=np.int64)
            q = s
            for k in range(count - 1, -1, -1):
                cells_k[k] = pcell[q]
                dirs_k[k] = pdir[q]
                q = parent[q]
            plan = _walk_plan(player0, np.sort(boxes0.astype(np.int64)), nb, nbr, cells, cells_k, dirs_k, count)
            if plan.shape[0] != (g1[s] if objective == MOVES else g2[s]):  # walks are shortest: never
                raise RuntimeError("the rebuilt plan's length is not the search's cost")
            progress[0], progress[1], progress[3] = expanded, stored, 1
            return FOUND, plan.shape[0], count, plan, expanded, stored
        expanded += 1
        if expanded % PROGRESS_EVERY == 0:
            progress[0], progress[1], progress[2] = expanded, stored, c1
        base = s * nb
        for i in range(nb):
            cur[i] = sbox[base + i]
            occ[cur[i]] = True
        stamp_no += 1
        _region(np.int64(spl[s]), nbr, occ, dist, stamp, stamp_no, queue)
        if use_corral and parent[s] >= 0:  # a dead corral beside the box last pushed: not expanded
            gone, cmark = corral_dead(
                nbr[pcell[s], pdir[s]],
                np.int64(spl[s]),
                occ,
                cur,
                nbr,
                goal,
                dead,
                stamp,
                stamp_no,
                cstamp,
                cmark,
                queue,
                socc,
                swork,
            )
            if gone:
                for i in range(nb):
                    occ[cur[i]] = False
                continue
        for i in range(nb):
            b = cur[i]
            for d in range(4):
                behind = nbr[b, _OPPOSITE[d]]
                beyond = nbr[b, d]
                if behind < 0 or beyond < 0 or stamp[behind] != stamp_no or occ[beyond] or dead[beyond]:
                    continue
                walk = dist[behind]
                # the boxes after the push, sorted
                for k in range(nb):
                    nxt[k] = cur[k]
                j = i
                nxt[j] = beyond
                while j > 0 and nxt[j - 1] > nxt[j]:
                    nxt[j - 1], nxt[j] = nxt[j], nxt[j - 1]
                    j -= 1
                while j < nb - 1 and nxt[j + 1] < nxt[j]:
                    nxt[j + 1], nxt[j] = nxt[j], nxt[j + 1]
                    j += 1
                np_ = b
                if objective == SOLVABLE:  # its own stamps: the expansion's region stays valid
                    occ[b] = False
                    occ[beyond] = True
                    stamp_no2 += 1
                    np_ = _region(b, nbr, occ, dist2, stamp2, stamp_no2, queue)
                    occ[beyond] = False
                    occ[b] = True
                if objective == MOVES:
                    n1, n2 = g1[s] + walk + 1, g2[s] + 1
                else:
                    n1, n2 = g1[s] + 1, g2[s] + walk + 1
                # find (np_, nxt): a state seen before skips the deadlock checks and the bound (it has them)
                hsh = state_hash(np_, nxt, 0, nb)
                pos = np.int64(hsh) & smask
                while slots[pos] != 0:
                    o_ = slots[pos] - 1
                    same = spl[o_] == np_
                    if same:
                        ob = o_ * nb
                        for k in range(nb):
                            if sbox[ob + k] != nxt[k]:
                                same = False
                                break
                    if same:
                        break
                    pos = (pos + 1) & smask
                if slots[pos] != 0:
                    o_ = slots[pos] - 1
                    if closed[o_] or objective == SOLVABLE or g1[o_] < n1 or (g1[o_] == n1 and g2[o_] <= n2):
                        continue
                    idx = o_  # a cheaper way to an open state: queue it again
                    m = hm[o_]
                else:
                    if use_freeze or use_table:
                        occ[b] = False
                        occ[beyond] = True
                        gone = False
                        if use_freeze:
                            f, o = frozen(beyond, nbr, occ, dead, goal, mark)
                            gone = f and o
                        for k in range(nb if use_table and not gone else 0):
                            if (
                                nxt[k] != beyond
                                and near(nxt[k], beyond, cols)
                                and pair_dead(beyond, nxt[k], table, floor, nbr, goal, dead)
                            ):
                                gone = True
                                break
                        occ[beyond] = False
                        occ[b] = True
                        if gone:
                            continue
                    m = assignment_cost(nxt, nb, push, u, v, way, minv, used, amatch)
                    if m >= INF:
                        continue
                    if objective == SOLVABLE and m == 0:
                        for k in range(nb):
                            occ[cur[k]] = False
                        progress[0], progress[1], progress[3] = expanded, stored, 1
                        return FOUND, -1, n1, empty, expanded, stored
                    if stored >= node_limit:
                        for k in range(nb):
                            occ[cur[k]] = False
                        progress[0], progress[1], progress[3] = expanded, stored, 1
                        return NODE_LIMIT, -1, -1, empty, expanded, stored
                    if stored == cap:  # grow the state arrays and rehash
                        cap *= 2
                        sbox = grown_array(sbox, cap * nb)
                        spl = grown_array(spl, cap)
                        g1 = grown_array(g1, cap)
                        g2 = grown_array(g2, cap)
                        hm = grown_array(hm, cap)
                        parent = grown_array(parent, cap)
                        pcell = grown_array(pcell, cap)
                        pdir = grown_array(pdir, cap)
                        closed = grown_array(closed, cap)
                        slots, smask, pos = rehashed_slots(spl, sbox, stored, nb, cap, hsh)
                    idx = stored
                    stored += 1
                    slots[pos] = idx + 1
                    for k in range(nb):
                        sbox[idx * nb + k] = nxt[k]
                    spl[idx] = np_
                    closed[idx] = False
                    hm[idx] = m
                g1[idx], g2[idx], parent[idx], pcell[idx], pdir[idx] = n1, n2, s, b, d
                h = m if use_heuristic else 0
                if objective == SOLVABLE:
                    f1, f2 = h, 0
                else:
                    f1, f2 = n1 + h, n2 + h
                head, row_count, e_state, e_next, n_entries = bucket_push(
                    head, row_count, e_state, e_next, n_entries, idx, f1, f2
                )
                f1_cap, f2_cap = head.shape[0], head.shape[1]
                if f1 < c1 or (f1 == c1 and f2 < c2):  # SOLVABLE's greedy order may go back down
                    c1, c2 = f1, f2
        for i in range(nb):
            occ[cur[i]] = False
    progress[0], progress[1], progress[3] = expanded, stored, 1
    return NO_PLAN, -1, -1, empty, expanded, stored
