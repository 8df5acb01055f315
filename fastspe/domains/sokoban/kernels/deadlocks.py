"""Deadlocks proven by searching a subset of the boxes alone: the push search's deadlock table and corral pruning.

Both rest on one relaxation. Take a state and any subset B of its boxes; remove the other boxes. Every plan of the
state is, move for move, a plan of the relaxed state whose goal is "every box of B on a goal": a move that pushes a
removed box becomes a step onto a cell that is now free, and every other move is legal because the relaxed room
has fewer obstacles. So when no push sequence brings the boxes of B alone onto goals (any goals: B is never larger
than the goal count), the state has no plan. ``subset_verdict`` decides that by an exhaustive search over pushes
(the player normalized to the least cell of its region, a box never pushed onto a dead square: no goal is reachable
from one by pushes in the empty room, so a relaxed plan never does it either). Goals need no special case: a
subset whose boxes are all on goals is solved before any push, so a box on its goal is dead only together with a
box off a goal that cannot reach one.

- **Deadlock table** (``pair_dead``): B is two boxes. For each pair of cells the table says whether two boxes there,
  alone in the level's room, can reach goals from *some* player cell (the search starts from every region of the
  room at once); a pair that cannot is dead whatever the player's cell and the other boxes, so the verdict is a
  table entry of the level (cells x cells, filled on first use and kept for the search; each entry proven by its
  exhaustive search, none written by hand). After a push the pushed box is looked up with every other box within
  ``PAIR_WINDOW`` rows and columns (a 5 x 5 window: the patterns of two boxes a deadlock table of that size holds,
  with the level's own walls and goals around them).
- **Corral pruning** (``corral_dead``): when a state is expanded, a free cell beside the box last pushed that the
  player cannot reach lies in a corral (a region of free cells the player cannot enter). B is the boxes bordering
  that corral; the search starts from the player's real cell. As in YASS and Festival, only I-corrals are tested
  (every push of a bordering box the player can make goes into the corral) and the search stops, proving nothing,
  once the player gets into the corral or ``CORRAL_STATES`` states are stored: an unfinished search drops nothing.
  A DEAD verdict is still the exhaustive one (every state the bordering boxes alone can reach was seen, none
  solved), so the state has no plan. The state is not expanded (it was stored: the goal test comes first, and a
  dead state is never a goal). This is the sound "corral deadlock" test, not PI-corral move restriction (which
  limits the pushes generated from live states).

A verdict is a function of the subset, its room and the player's cell only, so the table's lazy filling and the
order of checks change the states a search stores, never its answer.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit
from .search import grown_array

SOLVED, DEAD, UNKNOWN = 1, 0, -1
CORRAL_STATES = 256  # a corral search's cap: past it the corral is not judged (nothing dropped)
PAIR_WINDOW = 2  # the table is consulted for boxes at most this many rows and columns from the pushed one
_OPPOSITE = np.array([1, 0, 3, 2], dtype=np.int64)


@njit
def flood(p, nbr, occ, stamp, mark, queue):
    """Mark p's region (free cells, 4-connected, boxes in ``occ`` blocking) with ``mark``: (its least cell, its
    size; its cells are queue[:size])."""
    stamp[p] = mark
    queue[0] = p
    head, tail, least = 0, 1, p
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(4):
            t = nbr[c, d]
            if t >= 0 and stamp[t] != mark and not occ[t]:
                stamp[t] = mark
                queue[tail] = t
                tail += 1
                least = min(least, t)
    return least, tail


@njit
def state_hash(p, boxes, base, k):
    """The hash of state (player ``p``, boxes ``boxes[base:base + k]``): both push searches' tables use it."""
    h = np.uint64(p) * np.uint64(0x9E3779B97F4A7C15)
    for i in range(k):
        h = (h ^ np.uint64(boxes[base + i])) * np.uint64(0x100000001B3)
    return h ^ (h >> np.uint64(29))


@njit
def rehashed_slots(spl, sbox, stored, k, cap, new_hash):
    """A state table's open-addressing slots for ``cap`` states (2 * cap slots, state index + 1, 0 empty) holding the
    ``stored`` states there are, and the free slot a new state of hash ``new_hash`` takes: both push searches grow
    their tables with it."""
    slots = np.zeros(2 * cap, dtype=np.int32)
    mask = np.int64(2 * cap - 1)
    for r in range(stored):
        q = np.int64(state_hash(spl[r], sbox, r * k, k)) & mask
        while slots[q] != 0:
            q = (q + 1) & mask
        slots[q] = r + 1
    pos = np.int64(new_hash) & mask
    while slots[pos] != 0:
        pos = (pos + 1) & mask
    return slots, mask, pos


@njit
def subset_verdict(boxes, starts, nbr, goal, dead, limit, inside, inside_mark):
    """SOLVED when the boxes ``boxes`` (sorted cells, alone in the room) can all be pushed onto goals with the player
    starting in the region of any cell of ``starts``; DEAD when no reachable state has them so (every state seen);
    UNKNOWN when ``limit`` states were stored first, or when the player's region reaches a cell c with
    ``inside[c] == inside_mark`` (a corral opened; -1: never). See the module docstring."""
    cells = nbr.shape[0]
    work = np.zeros((2, cells), dtype=np.int64)
    occ = np.zeros(cells, dtype=np.bool_)
    return subset_search(
        boxes, starts, nbr, goal, dead, limit, inside, inside_mark, occ, work, 0, np.empty(cells, dtype=np.int64)
    )[0]


@njit
def subset_search(boxes, starts, nbr, goal, dead, limit, inside, inside_mark, occ, work, mark, queue):
    """``subset_verdict`` on the caller's scratch: (verdict, mark). ``occ`` (cells, all False, so on return) and
    ``work`` (2, cells; marks above ``mark`` are used and the last returned), ``queue`` (cells)."""
    k = boxes.shape[0]
    done = True
    for i in range(k):
        done = done and goal[boxes[i]]
    if done:
        return SOLVED, mark
    stamp, stamp2 = work[0], work[1]  # the expanded state's region, its successors' regions
    first = mark
    for i in range(k):
        occ[boxes[i]] = True
    cap = 64
    sbox = np.empty(cap * k, dtype=np.int16)
    spl = np.empty(cap, dtype=np.int16)
    slots = np.zeros(2 * cap, dtype=np.int32)
    mask = np.int64(2 * cap - 1)
    n = 0
    nxt = np.empty(k, dtype=np.int64)
    for j in range(starts.shape[0]):
        s = starts[j]
        if occ[s] or stamp[s] > first:  # a box, or a region already started
            continue
        mark += 1
        p, _ = flood(s, nbr, occ, stamp, mark, queue)
        n, sbox, spl, slots, mask, cap = _insert(p, boxes, k, n, sbox, spl, slots, mask, cap)
    for i in range(k):
        occ[boxes[i]] = False
    head = 0
    while head < n:
        if n >= limit:
            return UNKNOWN, mark
        base = head * k
        for i in range(k):
            nxt[i] = sbox[base + i]
            occ[nxt[i]] = True
        mark += 1
        flood(np.int64(spl[head]), nbr, occ, stamp, mark, queue)
        here = mark
        for i in range(k):
            b = np.int64(sbox[base + i])
            for d in range(4):
                behind, beyond = nbr[b, _OPPOSITE[d]], nbr[b, d]
                if behind < 0 or beyond < 0 or stamp[behind] != here or occ[beyond] or dead[beyond]:
                    continue
                for m in range(k):
                    nxt[m] = sbox[base + m]
                nxt[i] = beyond
                nxt.sort()
                done = True
                for m in range(k):
                    done = done and goal[nxt[m]]
                if done:
                    _clear(occ, sbox, base, k, beyond)
                    return SOLVED, mark
                occ[b] = False
                occ[beyond] = True
                mark += 1
                p, size = flood(b, nbr, occ, stamp2, mark, queue)
                if inside_mark >= 0:  # the corral opened: its search proves nothing
                    for m in range(size):
                        if inside[queue[m]] == inside_mark:
                            _clear(occ, sbox, base, k, beyond)
                            return UNKNOWN, mark
                occ[beyond] = False
                occ[b] = True
                n, sbox, spl, slots, mask, cap = _insert(p, nxt, k, n, sbox, spl, slots, mask, cap)
        for i in range(k):
            occ[sbox[base + i]] = False
        head += 1
    return DEAD, mark


@njit
def _clear(occ, sbox, base, k, beyond):
    for i in range(k):
        occ[sbox[base + i]] = False
    occ[beyond] = False


@njit
def _insert(p, boxes, k, n, sbox, spl, slots, mask, cap):
    """Store state (p, boxes) unless seen: the arrays (grown when full) and the new count."""
    pos = np.int64(state_hash(p, boxes, 0, k)) & mask
    while slots[pos] != 0:
        o = slots[pos] - 1
        same = spl[o] == p
        for i in range(k):
            same = same and sbox[o * k + i] == boxes[i]
        if same:
            return n, sbox, spl, slots, mask, cap
        pos = (pos + 1) & mask
    if n == cap:
        cap *= 2
        sbox = grown_array(sbox, cap * k)
        spl = grown_array(spl, cap)
        slots, mask, pos = rehashed_slots(spl, sbox, n, k, cap, state_hash(p, boxes, 0, k))
    for i in range(k):
        sbox[n * k + i] = boxes[i]
    spl[n] = p
    slots[pos] = n + 1
    return n + 1, sbox, spl, slots, mask, cap


@njit
def pair_dead(a, b, table, floor, nbr, goal, dead):
    """Whether boxes on cells ``a`` and ``b`` alone in the room reach no goals from any player cell (``floor``: the
    room's floor cells): the deadlock table's entry (``table`` int8 (cells * cells,), -1 not yet known), computed
    on first use."""
    lo, hi = min(a, b), max(a, b)
    key = lo * nbr.shape[0] + hi
    if table[key] < 0:
        pair = np.empty(2, dtype=np.int64)
        pair[0], pair[1] = lo, hi
        table[key] = subset_verdict(pair, floor, nbr, goal, dead, 1 << 40, floor[:1], -1) == DEAD
    return table[key] == 1


@njit
def near(a, b, cols):
    """Whether cells a and b lie in one (2 PAIR_WINDOW + 1)-square window: the pairs the search looks up."""
    return abs(a // cols - b // cols) <= PAIR_WINDOW and abs(a % cols - b % cols) <= PAIR_WINDOW


@njit
def corral_dead(
    beyond, player, occ, boxes, nbr, goal, dead, region, own, stamp, mark, queue, socc, swork, limit=CORRAL_STATES
):
    """(dead, mark): whether a corral beside the box on ``beyond`` (the one last pushed) is proven dead: an
    I-corral whose bordering boxes alone can neither reach goals nor let the player in, from the player's cell, by
    a search of at most ``limit`` states (see the module docstring). The player stands on ``player``, its region
    is the cells with ``region == own``; the boxes ``boxes`` (sorted) are marked in ``occ``. ``stamp`` (cells),
    ``queue`` and the search's ``socc`` and ``swork`` (``subset_search``) are scratch: marks above ``mark`` are used
    and the last one returned."""
    first = mark
    start = np.empty(1, dtype=np.int64)
    start[0] = player
    for d in range(4):
        c = nbr[beyond, d]
        if c < 0 or occ[c] or region[c] == own or stamp[c] > first:  # no corral, or one seen already
            continue
        mark += 1
        flood(c, nbr, occ, stamp, mark, queue)  # the corral: c's region, which the player cannot reach
        k = 0
        for i in range(boxes.shape[0]):
            k += _borders(boxes[i], nbr, stamp, mark)
        sub = np.empty(k, dtype=np.int64)
        k = 0
        inward = True  # an I-corral: every push of a bordering box the player can make goes into the corral
        for i in range(boxes.shape[0]):
            x = boxes[i]
            if _borders(x, nbr, stamp, mark):
                sub[k] = x
                k += 1
                for e in range(4):
                    behind, to = nbr[x, _OPPOSITE[e]], nbr[x, e]
                    if behind >= 0 and to >= 0 and region[behind] == own and not occ[to] and not dead[to]:
                        inward = inward and stamp[to] == mark
        if inward:
            verdict, mark = subset_search(sub, start, nbr, goal, dead, limit, stamp, mark, socc, swork, mark, queue)
            if verdict == DEAD:
                return True, mark
    return False, mark


@njit
def _borders(x, nbr, stamp, mark):
    for e in range(4):
        t = nbr[x, e]
        if t >= 0 and stamp[t] == mark:
            return True
    return False
