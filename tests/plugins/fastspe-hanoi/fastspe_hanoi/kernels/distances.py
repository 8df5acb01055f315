"""Exact goal distances of every state of n disks under one rule: one breadth-first search from the goal.

A state is its base-3 code (``rules``: digit i the peg of disk i + 1). Moves are reversible (the disk just moved is
the top of its new peg and may go back, and the reverse of an allowed pair of pegs is allowed), so the distances the
search finds from the goal are the distances to it. Beside each distance the search keeps the move that leads one
step closer (the reverse of the move it arrived by): following it from any state is an optimal plan, a certificate.

Compiled with ``fastspe.kernels.njit``: cached in fastspe's kernel cache, which a change to any module of this
package's ``kernels`` folder invalidates.
"""

from __future__ import annotations

import numpy as np

from fastspe.kernels import njit

NO_MOVE = 255  # ``toward`` at the goal


@njit
def powers_of_three(disks):
    """int64 (disks + 1,): 3**0 .. 3**disks, the place value of each disk's digit in a state code."""
    pow3 = np.empty(disks + 1, dtype=np.int64)
    pow3[0] = 1
    for i in range(disks):
        pow3[i + 1] = pow3[i] * 3
    return pow3


@njit
def top_disks(state, disks, pow3, tops):
    """Fill ``tops[p]`` with the smallest disk (0-based) on peg p, ``disks`` where the peg is empty."""
    tops[0] = disks
    tops[1] = disks
    tops[2] = disks
    for i in range(disks - 1, -1, -1):
        tops[(state // pow3[i]) % 3] = i


@njit
def goal_distances(disks, forbidden, source, target, reverse):
    """(dist int32 (3**disks,), toward uint8 (3**disks,)): every state's distance to the goal (all disks on peg 2)
    and the code of a move one step closer (``NO_MOVE`` at the goal). ``forbidden``: bool (6,) per action code."""
    size = 3**disks
    pow3 = powers_of_three(disks)
    dist = np.full(size, -1, dtype=np.int32)
    toward = np.full(size, NO_MOVE, dtype=np.uint8)
    queue = np.empty(size, dtype=np.int64)
    tops = np.empty(3, dtype=np.int64)
    goal = size - 1
    dist[goal] = 0
    queue[0] = goal
    head, tail = 0, 1
    while head < tail:
        state = queue[head]
        head += 1
        top_disks(state, disks, pow3, tops)
        for code in range(6):
            if forbidden[code]:
                continue
            disk = tops[source[code]]
            if disk == disks or tops[target[code]] < disk:
                continue
            nxt = state + (target[code] - source[code]) * pow3[disk]
            if dist[nxt] < 0:
                dist[nxt] = dist[state] + 1
                toward[nxt] = reverse[code]
                queue[tail] = nxt
                tail += 1
    return dist, toward
