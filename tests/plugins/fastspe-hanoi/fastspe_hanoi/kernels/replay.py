"""Batched Hanoi plan replay: every plan on its bank row in parallel, as ``fastspe.domains.contract.Domain.replay``
documents it (status, error_kind, first_error, final_h, min_h, revisits, goal_midway).

h is the exact goal distance of the row's (disks, rule) (``distances.goal_distances``), looked up per state. Action
codes 0..5 are AB, AC, BA, BC, CA, CB; anything above is a token that is not an action. The checks of one action, in
the order of ``rules``: invalid_action, forbidden_move (A<->C under adjacent), empty_peg, larger_on_smaller. Replay
stops at the first illegal action and never skips or repairs it.

Revisits are exact: a state is below 3**10, so each work item keeps one stamp per state, the index of the last
plan that visited it (no clearing between plans).
"""

from __future__ import annotations

import numpy as np

from fastspe.domains.codes import INVALID_ACTION, NO_ERROR
from fastspe.kernels import njit, prange
from fastspe.kernels.replay_outputs import CHUNK, chunk_of, new_outputs, status_of, store

from . import EMPTY_PEG, FORBIDDEN_MOVE, LARGER_ON_SMALLER
from .distances import powers_of_three, top_disks


@njit
def _replay_one(plan, plan_id, start, disks, adjacent, dist, source, target, pow3, tops, stamp):
    state = start
    h = dist[state]
    min_h = h
    length = plan.shape[0]
    midway = h == 0 and length > 0
    revisits = 0
    kind = NO_ERROR
    first_error = -1
    stamp[state] = plan_id
    for i in range(length):
        code = plan[i]
        disk = 0
        if code > 5:
            kind = INVALID_ACTION
        elif adjacent and (code == 1 or code == 4):  # AC, CA
            kind = FORBIDDEN_MOVE
        else:
            top_disks(state, disks, pow3, tops)
            disk = tops[source[code]]
            if disk == disks:
                kind = EMPTY_PEG
            elif tops[target[code]] < disk:
                kind = LARGER_ON_SMALLER
        if kind != NO_ERROR:
            first_error = i
            break
        state += (target[code] - source[code]) * pow3[disk]
        h = dist[state]
        min_h = min(min_h, h)
        if h == 0 and i + 1 < length:  # the goal before the plan's last action
            midway = True
        if stamp[state] == plan_id:
            revisits += 1
        stamp[state] = plan_id
    return status_of(kind, h), kind, first_error, h, min_h, revisits, midway


@njit(parallel=True)
def replay_plans(rows, codes, offsets, start, layout_of_row, disks_of_layout, adjacent_of_layout, dist, source, target):
    """Replay plan i (``codes[offsets[i]:offsets[i + 1]]``) on bank row ``rows[i]``.

    start : int64 (m,), each row's start state code; layout_of_row : int64 (m,); disks_of_layout : int64 (t,);
    adjacent_of_layout : bool (t,); dist : int32 (t, 3**max disks), each layout's goal distances (-1 past 3**disks);
    source, target : int64 (6,), the pegs of each action code. Returns the seven arrays of ``Domain.replay``.
    """
    n = rows.shape[0]
    outputs = new_outputs(n)
    states = dist.shape[1]
    pow3 = powers_of_three(disks_of_layout.max() if disks_of_layout.shape[0] else 0)  # read only: shared by all items
    for ci in prange((n + CHUNK - 1) // CHUNK):
        lo, hi = chunk_of(ci, n)
        stamp = np.full(states, -1, dtype=np.int64)
        tops = np.empty(3, dtype=np.int64)
        for p in range(lo, hi):
            row = rows[p]
            lay = layout_of_row[row]
            out = _replay_one(
                codes[offsets[p] : offsets[p + 1]],
                p,
                start[row],
                disks_of_layout[lay],
                adjacent_of_layout[lay],
                dist[lay],
                source,
                target,
                pow3,
                tops,
                stamp,
            )
            store(outputs, p, out)
    return outputs
