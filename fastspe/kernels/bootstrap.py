"""Stratified whole-board bootstrap of the SPE metrics, parallel over draws.

Inputs are per-(board, condition) sums, so one pass gives every metric for every condition and
every group. Conventions (the domain layer, ``fastspe.stats.intervals``, builds them):

- ``sums`` float64 (boards, conditions, FIELDS): ``n, legal, complete, illegal, optimal,
  economy_sum, excess_sum, depth_sum`` (d* summed over completed outputs) of each board's trials under each condition (zeros where a condition
  has no output for a board). Boards are sorted by stratum.
- strata: ``strata_start`` / ``strata_size`` int64 (strata,): stratum ``s`` is the board range
  ``[start, start + size)``. A draw picks ``size`` boards of each stratum with replacement.
- cells: ``cell_of`` int64 (boards,) maps each board to a cell (a finest group: the boards that
  share every stratum and grouping column). ``group_of_cell`` int64 (cells, groupings) gives the
  group of each cell under each grouping (-1: in no group of that grouping); groups are numbered
  0..groups-1 over all groupings together (pooled, by depth, by k, ...).
- output float64 (draws, groups, conditions, METRICS) in the order of ``METRIC_NAMES``; NaN where
  a metric is undefined in that draw (only that metric).

Randomness: draw ``d`` uses the key ``stream_key(seed, DRAW_STREAM, d)``; the board drawn at
position ``j`` of the board order (``j`` in stratum ``s``) is ``start_s + random_below(key, j,
size_s)``. The same indices serve every condition, and each draw's numbers do not depend on which
thread computes it. Each draw's sums are accumulated in board order (count x board sums), cells
then folded into groups in cell order, so the result is bit-identical at any thread count, any
block size and any split of the conditions.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .rng import random_below, stream_key

FIELD_NAMES = ("n", "legal", "complete", "illegal", "optimal", "economy_sum", "excess_sum", "depth_sum")
METRIC_NAMES = ("C", "I", "R", "Q", "E", "G", "O", "SPE", "Dc")
FIELDS = len(FIELD_NAMES)
METRICS = len(METRIC_NAMES)
DRAW_STREAM = 0xB0075  # the RNG stream of bootstrap draws
DEFAULT_BLOCK = 16  # draws per task: each board's sums are read once per block


@njit
def draw_counts(seed, draw, strata_start, strata_size, counts):
    """Add how often each board is drawn in ``draw`` to ``counts`` int32 (boards,) (zeroed by caller)."""
    key = stream_key(seed, DRAW_STREAM, draw)
    for s in range(strata_start.shape[0]):
        start = strata_start[s]
        size = strata_size[s]
        for j in range(start, start + size):
            counts[start + random_below(key, j, size)] += 1


@njit(parallel=True)
def draw_indices(seed, draws, strata_start, strata_size):
    """The drawn board indices, int64 (draws, boards): position j of draw d holds the board drawn there.

    This is the kernel's own sampling, exposed so that a twin can be fed identical draws.
    """
    boards = 0
    for s in range(strata_start.shape[0]):
        boards = max(boards, strata_start[s] + strata_size[s])
    out = np.empty((draws, boards), dtype=np.int64)
    for d in prange(draws):
        key = stream_key(seed, DRAW_STREAM, d)
        for s in range(strata_start.shape[0]):
            start = strata_start[s]
            size = strata_size[s]
            for j in range(start, start + size):
                out[d, j] = start + random_below(key, j, size)
    return out


@njit
def metrics_from_sums(acc, out):
    """Fill ``out`` float64 (METRICS,) from one group's sums ``acc`` float64 (FIELDS,).

    C, I, O, SPE and R need N > 0; Q needs a legal plan; E, G and Dc (the mean certified depth of
    completed plans, the paper's Section 3.3 selection statistic) need a completion.
    """
    n = acc[0]
    legal = acc[1]
    complete = acc[2]
    if n > 0.0:
        out[0] = complete / n
        out[1] = acc[3] / n
        out[2] = 1.0 - out[1]
        out[6] = acc[4] / n
        out[7] = acc[5] / n
    else:
        out[0] = np.nan
        out[1] = np.nan
        out[2] = np.nan
        out[6] = np.nan
        out[7] = np.nan
    out[3] = out[0] / out[2] if legal > 0.0 else np.nan  # Q = C / R, as the paper writes it
    if complete > 0.0:
        out[4] = acc[5] / complete
        out[5] = acc[6] / complete
        out[8] = acc[7] / complete
    else:
        out[4] = np.nan
        out[5] = np.nan
        out[8] = np.nan


@njit
def _fold(weights, sums, cell_of, group_of_cell, n_groups, cell_acc, group_acc, out):
    """Sums and metrics of ``weights.shape[0]`` draws; ``weights`` int32 (nb, boards).

    ``sums`` is viewed flat as (boards, C * FIELDS); ``cell_acc`` (nb, cells, C * FIELDS) and
    ``group_acc`` (nb, groups, C * FIELDS) are scratch; ``out`` is (nb, groups, C, METRICS).
    """
    nb = weights.shape[0]
    width = sums.shape[1]
    n_cond = width // FIELDS
    cell_acc[:] = 0.0
    group_acc[:] = 0.0
    for b in range(sums.shape[0]):  # board order: each board's row is read once per block
        c = cell_of[b]
        row = sums[b]
        for i in range(nb):
            w = weights[i, b]
            if w != 0:
                wf = np.float64(w)
                acc = cell_acc[i, c]
                for x in range(width):
                    acc[x] += wf * row[x]
    for i in range(nb):
        for c in range(group_of_cell.shape[0]):
            for gi in range(group_of_cell.shape[1]):
                g = group_of_cell[c, gi]
                if g >= 0:
                    for x in range(width):
                        group_acc[i, g, x] += cell_acc[i, c, x]
        for g in range(n_groups):
            for j in range(n_cond):
                metrics_from_sums(group_acc[i, g, j * FIELDS : (j + 1) * FIELDS], out[i, g, j])


@njit(parallel=True)
def bootstrap_metrics_into(
    out, sums, cell_of, group_of_cell, n_groups, strata_start, strata_size, seed, first_draw, block=DEFAULT_BLOCK
):
    """Draws ``first_draw .. first_draw + out.shape[0] - 1`` into ``out`` float64 (draws, groups, conditions,
    METRICS); the rest as ``bootstrap_metrics``. A draw's numbers depend only on its index, so any split
    into ranges gives the same rows as one pass (progress between ranges; ranges on other machines)."""
    n_boards = sums.shape[0]
    n_cond = sums.shape[1]
    n_cells = group_of_cell.shape[0]
    width = n_cond * FIELDS
    flat = sums.reshape((n_boards, width))
    draws = out.shape[0]
    n_blocks = (draws + block - 1) // block
    for blk in prange(n_blocks):
        d0 = blk * block
        nb = min(block, draws - d0)
        weights = np.zeros((nb, n_boards), dtype=np.int32)
        for i in range(nb):
            draw_counts(seed, first_draw + d0 + i, strata_start, strata_size, weights[i])
        cell_acc = np.empty((nb, n_cells, width), dtype=np.float64)
        group_acc = np.empty((nb, n_groups, width), dtype=np.float64)
        _fold(weights, flat, cell_of, group_of_cell, n_groups, cell_acc, group_acc, out[d0 : d0 + nb])


@njit
def bootstrap_metrics(
    sums, cell_of, group_of_cell, n_groups, strata_start, strata_size, seed, draws, block=DEFAULT_BLOCK
):
    """Every metric of every group and condition in each of ``draws`` stratified bootstrap draws.

    Parameters
    ----------
    sums : float64 (boards, conditions, FIELDS), boards sorted by stratum
    cell_of : int64 (boards,)
    group_of_cell : int64 (cells, groupings), -1 for no group
    n_groups : int
    strata_start, strata_size : int64 (strata,), covering 0..boards-1 in order
    seed : int >= 0
    draws : int >= 1
    block : int >= 1, draws handled together by one task (memory ~ block x boards x 4 bytes
        plus block x (cells + groups) x conditions x FIELDS x 8 bytes per task)

    Returns
    -------
    float64 (draws, groups, conditions, METRICS)
    """
    out = np.empty((draws, n_groups, sums.shape[1], METRICS), dtype=np.float64)
    bootstrap_metrics_into(out, sums, cell_of, group_of_cell, n_groups, strata_start, strata_size, seed, 0, block)
    return out


@njit
def point_metrics(sums, cell_of, group_of_cell, n_groups):
    """The draw-free estimate (every board once), float64 (groups, conditions, METRICS)."""
    n_boards, n_cond = sums.shape[0], sums.shape[1]
    width = n_cond * FIELDS
    weights = np.ones((1, n_boards), dtype=np.int32)
    cell_acc = np.empty((1, group_of_cell.shape[0], width), dtype=np.float64)
    group_acc = np.empty((1, n_groups, width), dtype=np.float64)
    out = np.empty((1, n_groups, n_cond, METRICS), dtype=np.float64)
    _fold(weights, sums.reshape((n_boards, width)), cell_of, group_of_cell, n_groups, cell_acc, group_acc, out)
    return out[0]


_SIGN = np.uint64(0x8000000000000000)
_LOW63 = np.uint64(0x7FFFFFFFFFFFFFFF)
_BUCKETS = 2048
_U1 = np.uint64(1)
_S63 = np.uint64(63)


@njit
def _float_keys(x, keys):
    """uint64 keys ordered like the float64 values ``x`` (no NaN): flip the sign bit of positives,
    every bit of negatives."""
    bits = x.view(np.uint64)
    for i in range(x.shape[0]):
        b = bits[i]
        keys[i] = b ^ (((b >> _S63) * _LOW63) | _SIGN)


@njit
def _key_value(key):
    """The float64 whose ``_float_keys`` key is ``key``."""
    out = np.empty(1, dtype=np.uint64)
    out[0] = key ^ (_SIGN if key >> _S63 else ~np.uint64(0))
    return out.view(np.float64)[0]


@njit
def _select_key(work, n, r, hist):
    """The key of rank ``r`` (0-based, ascending) among ``work[:n]``, which it reorders.

    Radix-style selection: histogram the keys over [min, max] in ``_BUCKETS`` buckets, keep the
    bucket holding rank r, repeat; each round narrows the key range 2048-fold, so it ends in a few
    branch-predictable passes (or at once when the remaining keys are all equal).
    """
    while True:
        lo = work[0]
        hi = work[0]
        for i in range(1, n):
            k = work[i]
            if k < lo:
                lo = k
            if k > hi:
                hi = k
        if lo == hi:
            return lo
        span = hi - lo
        shift = np.uint64(0)
        while (span >> shift) >= np.uint64(_BUCKETS):
            shift += _U1
        hist[:] = 0
        for i in range(n):
            hist[np.int64((work[i] - lo) >> shift)] += 1
        below = 0
        b = 0
        while below + hist[b] <= r:
            below += hist[b]
            b += 1
        m = 0
        for i in range(n):  # keep bucket b, in place
            k = work[i]
            if np.int64((k - lo) >> shift) == b:
                work[m] = k
                m += 1
        n = m
        r -= below


@njit
def _percentile(keys, n, q, work, hist):
    """NumPy's default ('linear') percentile ``q`` in [0, 100] of the values behind ``keys[:n]``."""
    v = (n - 1) * (q / 100.0)
    k = min(np.int64(np.floor(v)), n - 1)
    for i in range(n):  # a loop, not work[:n] = keys[:n]: that compiles a shape check and its message's formatting
        work[i] = keys[i]
    key0 = _select_key(work, n, k, hist)
    x0 = _key_value(key0)
    if v >= n - 1:
        return x0
    # the next order statistic: key0 again if it repeats past rank k, else the least larger key
    at_most = 0
    nxt = ~np.uint64(0)
    for i in range(n):
        kk = keys[i]
        if kk <= key0:
            at_most += 1
        elif kk < nxt:
            nxt = kk
    x1 = x0 if at_most > k + 1 else _key_value(nxt)
    t = v - k
    diff = x1 - x0
    if t >= 0.5:  # NumPy's _lerp: the form that is exact at the nearer end
        return x1 - diff * (1.0 - t)
    return x0 + diff * t


_TILE = 8  # columns gathered together: one 64-byte line of a draw's row


@njit(parallel=True)
def nan_percentile_intervals(samples, q_low, q_high):
    """Percentiles of each column of ``samples`` float64 (draws, cells), NaNs left out.

    Returns ``low``, ``high`` float64 (cells,) (NaN where no draw is defined) and ``used`` int64
    (cells,), the number of non-NaN draws. Matches ``np.nanpercentile(..., method="linear")``.
    """
    draws, cells = samples.shape
    low = np.empty(cells, dtype=np.float64)
    high = np.empty(cells, dtype=np.float64)
    used = np.empty(cells, dtype=np.int64)
    for tile in prange((cells + _TILE - 1) // _TILE):
        c0 = tile * _TILE
        width = min(_TILE, cells - c0)
        buf = np.empty((width, draws), dtype=np.float64)
        count = np.zeros(width, dtype=np.int64)
        for d in range(draws):  # row-wise gather: strided column reads would miss cache per draw
            for i in range(width):
                x = samples[d, c0 + i]
                if not np.isnan(x):
                    buf[i, count[i]] = x
                    count[i] += 1
        keys = np.empty(draws, dtype=np.uint64)
        work = np.empty(draws, dtype=np.uint64)
        hist = np.empty(_BUCKETS, dtype=np.int64)
        for i in range(width):
            n = count[i]
            used[c0 + i] = n
            if n == 0:
                low[c0 + i] = np.nan
                high[c0 + i] = np.nan
                continue
            _float_keys(buf[i, :n], keys)
            low[c0 + i] = _percentile(keys, n, q_low, work, hist)
            high[c0 + i] = _percentile(keys, n, q_high, work, hist)
    return low, high, used
