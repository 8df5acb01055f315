"""Offline baseline planners: plans for every (board, trial) of one layout.

Directions are uint8 0=U, 1=D, 2=L, 3=R (the blank's move). Trial t of board i draws its random
numbers from ``stream_key(seed, planner, index[i] * TRIAL_SLOTS + t)``, so a plan depends only on
the board's key, the trial and the seed: not on the order of work, on the other boards, or on
how many trials are asked for.
The kernel is serial on purpose: the paper bank's 6,000 baseline plans take about a millisecond,
while ``parallel=True`` would double its compile time, which a fresh ``fastspe demo`` pays.

Planners (the ``planner`` argument):

- ``ORACLE`` (0): the certificate itself;
- ``GREEDY`` (1): from the initial board, move the blank with a uniformly random choice among
  the moves that lower h(s) (every legal move changes h by exactly one); stop when none does;
- ``DETOUR`` (2): the certificate with ``1 + below(max(1, depth // 4))`` back-and-forth pairs
  (a legal move and its inverse) inserted at uniformly random points; still legal and complete;
- ``NOISY`` (3): the certificate with each move replaced, with probability 1/20, by one of the
  three other directions chosen uniformly;
- ``RANDOM`` (4): ``depth`` uniformly random directions.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit
from ....kernels import TRIAL_SLOTS
from ....kernels.rng import random_below, stream_key

ORACLE, GREEDY, DETOUR, NOISY, RANDOM = 0, 1, 2, 3, 4
NOISE_ONE_IN = 20
INVERSE = np.array([1, 0, 3, 2], dtype=np.uint8)


@njit
def detour_pairs(depth, key):
    """Number of back-and-forth pairs the detour planner inserts (counter 0 of ``key``)."""
    return 1 + random_below(key, 0, max(1, depth // 4))


@njit
def _oracle(cert, depth, out):
    for i in range(depth):
        out[i] = cert[i]
    return depth


@njit
def _greedy(board, moves, dist, goal_cell, key, scratch, out):
    """Descend h with random tie-breaks until no move lowers it; ``scratch`` is a board copy."""
    # element loops, not ``scratch[:] = board``: slice assignment costs seconds of compile time
    blank = 0
    for c in range(board.shape[0]):
        scratch[c] = board[c]
        if board[c] == 0:
            blank = c
    better = np.empty(4, dtype=np.int64)
    n = 0
    while n < out.shape[0]:
        count = 0
        for d in range(4):
            t = moves[blank, d]
            if t >= 0:
                g = goal_cell[scratch[t]]
                # the tile on t slides onto the blank's cell: it gets closer to its goal cell
                if dist[g, blank] < dist[g, t]:
                    better[count] = d
                    count += 1
        if count == 0:
            break
        d = better[random_below(key, n, count)]
        t = moves[blank, d]
        scratch[blank] = scratch[t]
        scratch[t] = 0
        blank = t
        out[n] = d
        n += 1
    return n


@njit
def _detour(board, cert, depth, moves, key, counts, out):
    """Insert back-and-forth pairs into the certificate; ``counts`` is int64 scratch (>= depth+1)."""
    pairs = detour_pairs(depth, key)
    for i in range(depth + 1):
        counts[i] = 0
    for p in range(pairs):
        counts[random_below(key, 1 + p, depth + 1)] += 1
    blank = 0
    for c in range(board.shape[0]):
        if board[c] == 0:
            blank = c
    legal = np.empty(4, dtype=np.int64)
    counter = 1 + pairs
    n = 0
    for i in range(depth + 1):
        for _ in range(counts[i]):
            count = 0
            for d in range(4):
                if moves[blank, d] >= 0:
                    legal[count] = d
                    count += 1
            d = legal[random_below(key, counter, count)]
            counter += 1
            out[n] = d
            out[n + 1] = INVERSE[d]
            n += 2
        if i < depth:
            out[n] = cert[i]
            n += 1
            t = moves[blank, cert[i]]
            if t >= 0:  # always, for a valid certificate; never index with a negative cell
                blank = t
    return n


@njit
def _noisy(cert, depth, key, out):
    for i in range(depth):
        d = cert[i]
        if random_below(key, 2 * i, NOISE_ONE_IN) == 0:
            # one of the three other directions
            d = (d + 1 + random_below(key, 2 * i + 1, 3)) % 4
        out[i] = d
    return depth


@njit
def _random(depth, key, out):
    for i in range(depth):
        out[i] = random_below(key, i, 4)
    return depth


@njit
def plan_baselines(planner, boards, certs, depths, index, trials, seed, moves, dist, goal_cell, width):
    """Plans of one planner for ``trials`` trials of each board of one layout.

    Parameters
    ----------
    planner : int, one of ORACLE, GREEDY, DETOUR, NOISY, RANDOM (also the RNG stream)
    boards : int8 (n, cells), initial boards
    certs : uint8 (n, >= max depth), certificate directions, row i valid up to depths[i]
    depths : int64 (n,), certified shortest plan lengths
    index : int64 (n,), the board's key for the RNG, in 0..2**32-1
    trials, seed : int, 1 <= trials <= TRIAL_SLOTS
    moves, dist, goal_cell : the layout's tables (see ``kernels.graph``)
    width : int, plan capacity; at least the longest plan (max depth, the greedy's h(s), or
        ``depth + 2 * detour pairs``), and never below the max depth

    Returns
    -------
    plans : uint8 (n * trials, width), row ``i * trials + t`` for board i, trial t
    lengths : int64 (n * trials,), the number of valid directions in each row
    """
    n = boards.shape[0]
    cells = boards.shape[1]
    plans = np.zeros((n * trials, width), dtype=np.uint8)
    lengths = np.zeros(n * trials, dtype=np.int64)
    scratch = np.empty(cells, dtype=np.int8)
    counts = np.empty(width + 1, dtype=np.int64)
    for j in range(n * trials):
        i = j // trials
        t = j - i * trials
        key = stream_key(seed, planner, index[i] * TRIAL_SLOTS + t)
        depth = depths[i]
        if planner == ORACLE:
            lengths[j] = _oracle(certs[i], depth, plans[j])
        elif planner == GREEDY:
            lengths[j] = _greedy(boards[i], moves, dist, goal_cell, key, scratch, plans[j])
        elif planner == DETOUR:
            lengths[j] = _detour(boards[i], certs[i], depth, moves, key, counts, plans[j])
        elif planner == NOISY:
            lengths[j] = _noisy(certs[i], depth, key, plans[j])
        else:
            lengths[j] = _random(depth, key, plans[j])
    return plans, lengths
