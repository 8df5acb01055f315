"""Batched Sokoban plan replay: run every plan on its level in parallel and record what happened.

The outputs are those of the sliding puzzle's ``replay_plans`` (``domains.contract.Domain.replay``) (status, error_kind, first_error, final_h, min_h, revisits,
goal_midway), with Sokoban's two kinds of illegal move: ``WALL`` (the player walks into a wall or off the room) and
``BOX_BLOCKED`` (a push into a wall or another box). Codes 0..3 move the player U, D, L, R; anything else is a token
that is not a move (``INVALID_ACTION``). Replay stops at the first illegal action and never skips or repairs it.

Each level is given by its tables (``domains.sokoban.pack``): ``moves`` the cell one step from each cell in each
direction (-1 a wall or off the grid), ``push_distance`` each cell's pushes to the nearest goal (h's term; 0 only on
a goal), and the start: the player's cell and the sorted box cells.

Revisits are counted exactly over (player, box set) states. A state is one word: the player's cell + 1 in bits
0..10 (cells are below ``MAX_CELLS`` = 1024) and, above them, the number of the box set within the plan -- the
index of its first occurrence among the box sets the plan has made so far, found in a second per-plan table that
stores each box set's cells and compares them whole (box sets change only on pushes, so this costs a probe per
push). No key is 0 (the player's field is at least 1), so 0 marks an empty slot of the per-plan open-addressing
table of keys, which stores the full key: the hash only picks the slot, and a collision costs a probe, never a
wrong answer.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit, prange
from ....kernels.replay_outputs import CHUNK, chunk_of, longest_plan, new_outputs, status_of, store
from ....kernels.visited import GOLDEN, seen_again, start_table, table_bits
from ...codes import COMPLETE, ILLEGAL, INVALID_ACTION, LEGAL_NONCOMPLETION, NO_ERROR  # noqa: F401 - the statuses the module held before it moved

WALL, BOX_BLOCKED = 1, 2  # Sokoban's own kinds of illegal move (``codes``: 0, 3 and 4 are shared)
ERROR_NAMES = ("", "wall", "box_blocked", "invalid_action", "format")
MAX_CELLS = 1024  # cells of a level's grid that the 11-bit player field of the state key can name
MAX_BOXES = 16

_FIELD = 11


@njit
def _box_set(boxes, nb, sets, set_slots, n_sets, smask):
    """The number of the box set ``boxes[:nb]`` (sorted) within the plan: an earlier one's if it was made before,
    else ``n_sets`` (stored in ``sets`` row ``n_sets``). Returns (number, n_sets after)."""
    h = np.uint64(nb)
    for j in range(nb):
        h = (h ^ np.uint64(boxes[j])) * np.uint64(0x100000001B3)
    slot = np.int64((h * GOLDEN) >> np.uint64(40)) & smask
    while set_slots[slot] != 0:
        k = set_slots[slot] - 1
        same = True
        for j in range(nb):
            if sets[k, j] != boxes[j]:
                same = False
                break
        if same:
            return k, n_sets
        slot = (slot + 1) & smask
    set_slots[slot] = n_sets + 1
    for j in range(nb):
        sets[n_sets, j] = boxes[j]
    return n_sets, n_sets + 1


@njit
def _move_box(boxes, nb, src, dst):
    """Move the box on ``src`` to ``dst`` and keep ``boxes[:nb]`` sorted."""
    j = 0
    while boxes[j] != src:
        j += 1
    boxes[j] = dst
    while j > 0 and boxes[j - 1] > boxes[j]:
        boxes[j - 1], boxes[j] = boxes[j], boxes[j - 1]
        j -= 1
    while j + 1 < nb and boxes[j + 1] < boxes[j]:
        boxes[j + 1], boxes[j] = boxes[j], boxes[j + 1]
        j += 1


@njit
def _replay_one(plan, moves, dist, player, boxes, nb, occupied, table, sets, set_slots):
    """Replay one plan; ``boxes`` (sorted, length >= nb) and ``occupied`` (all False) are scratch, left dirty;
    ``sets`` (at least pushes + 1 rows) and ``set_slots`` (at least ``1 << table_bits(len(plan))``) too."""
    h = 0
    for j in range(nb):
        occupied[boxes[j]] = True
        h += dist[boxes[j]]
    length = plan.shape[0]
    smask = np.int64((1 << table_bits(length)) - 1)
    set_slots[: smask + 1] = 0
    box_set, n_sets = _box_set(boxes, nb, sets, set_slots, 0, smask)
    box_key = np.uint64(box_set) << np.uint64(_FIELD)
    key = box_key | np.uint64(player + 1)
    down, umask = start_table(table, key, length)
    min_h = h
    midway = h == 0 and length > 0
    revisits = 0
    kind = NO_ERROR
    first_error = -1
    zeros = 0
    up = np.uintp(player)
    for i in range(length):
        code = plan[i]
        if code > 3:
            kind = INVALID_ACTION
            first_error = i
            break
        t = moves[up, np.uintp(code)]
        if t < 0:
            kind = WALL
            first_error = i
            break
        # unsigned indices spare numba's negative-index wraparound on every access
        ut = np.uintp(t)
        if occupied[ut]:
            beyond = moves[ut, np.uintp(code)]
            if beyond < 0 or occupied[np.uintp(beyond)]:
                kind = BOX_BLOCKED
                first_error = i
                break
            ub = np.uintp(beyond)
            occupied[ut] = False
            occupied[ub] = True
            h += dist[ub] - dist[ut]
            _move_box(boxes, nb, t, beyond)
            box_set, n_sets = _box_set(boxes, nb, sets, set_slots, n_sets, smask)
            box_key = np.uint64(box_set) << np.uint64(_FIELD)
        up = ut
        key = box_key | np.uint64(t + 1)
        min_h = min(min_h, h)
        zeros += h == 0  # counted, not branched on: see midway below
        revisits += seen_again(table, key, down, umask)
    # the goal before the last action: a visit to it that is not the final state of a legal plan
    if kind == NO_ERROR and h == 0 and length > 0:
        zeros -= 1
    midway = midway or zeros > 0
    for j in range(nb):
        occupied[boxes[j]] = False
    return status_of(kind, h), kind, first_error, h, min_h, revisits, midway


@njit(parallel=True)
def replay_levels(level_index, codes, offsets, moves, push_distance, player, boxes, nboxes):
    """Replay plan i on level ``level_index[i]``.

    Parameters
    ----------
    level_index : int64 (n,), the level of each plan
    codes : uint8 (total,), every plan's action codes back to back (0..3 = U, D, L, R; else invalid)
    offsets : int64 (n + 1,), plan i is ``codes[offsets[i]:offsets[i + 1]]``
    moves : int16 (m, cells, 4), the cell one step from each cell in each direction, -1 a wall or off the grid
    push_distance : int16 (m, cells), pushes from each cell to the nearest goal (0 exactly on a goal)
    player : int16 (m,), the player's start cell
    boxes : int16 (m, MAX_BOXES), the sorted start box cells, padded after ``nboxes``
    nboxes : int8 (m,), the number of boxes (1..MAX_BOXES)

    Returns
    -------
    status : int8 (n,), COMPLETE / LEGAL_NONCOMPLETION / ILLEGAL
    error_kind : int8 (n,), NO_ERROR / WALL / BOX_BLOCKED / INVALID_ACTION
    first_error : int64 (n,), index of the first illegal action, -1 if none
    final_h : int32 (n,), h of the last state reached (before the illegal action, if any)
    min_h : int32 (n,), least h over the legal prefix, the initial state included
    revisits : int64 (n,), legal moves whose resulting (player, box set) state was seen before on the trajectory
    goal_midway : bool (n,), every box was on a goal before the plan's last action
    """
    n = level_index.shape[0]
    cells = moves.shape[1]
    outputs = new_outputs(n)
    for ci in prange((n + CHUNK - 1) // CHUNK):
        lo, hi = chunk_of(ci, n)
        longest = longest_plan(offsets, lo, hi)
        table = np.empty(1 << table_bits(longest), dtype=np.uint64)
        set_slots = np.empty(1 << table_bits(longest), dtype=np.int64)
        sets = np.empty((longest + 1, max(boxes.shape[1], 1)), dtype=np.int16)
        occupied = np.zeros(cells, dtype=np.bool_)
        box = np.empty(MAX_BOXES, dtype=np.int64)
        for p in range(lo, hi):
            li = level_index[p]
            nb = nboxes[li]
            for j in range(nb):
                box[j] = boxes[li, j]
            out = _replay_one(
                codes[offsets[p] : offsets[p + 1]],
                moves[li],
                push_distance[li],
                np.int64(player[li]),
                box,
                nb,
                occupied,
                table,
                sets,
                set_slots,
            )
            store(outputs, p, out)
    return outputs
