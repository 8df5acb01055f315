"""Large additive pattern databases (7 and 8 tiles of a 4x4 board) in bounded memory: a sweep per depth.

The values are those of ``pdb.py`` (fewest moves of pattern tiles, the blank free, the BFS over
(placement, blank region) states), but the states are numbered compactly and marked with 2 bits:

- a placement is its set of cells (a combination of m of the F free cells, numbered in increasing
  mask order) and the order of the tiles on them (``perm``: each tile's index among the set's cells,
  a permutation of m ranked like ``rank_placement``). All placements of one combination share the
  blank's regions (the connected parts of the other cells, numbered by their lowest cell), so a state
  is ``(block_start[comb] + region) * m! + perm`` and no index is wasted (8 tiles of the open 4x4
  board: 1.43G states, 356 MB of codes, where a bit per (placement, cell) is 1.04 GB);
- a state's code is 0 unseen, 1 or 2 (the layers at even and odd depths, alternating) or 3 done;
  a sweep reads every code word and expands the states of the current layer, marking their unseen
  neighbours with the next layer's code by atomic OR, so both cores sweep one array at once;
- the table is 4 bits per placement at ``rank_placement``'s index: q = (v - md) / 2, md the pattern
  tiles' graph-distance sum (v >= md, and v - md is even since a move changes one tile's distance
  by exactly one on a grid). q >= 15 is kept as 15, a lower bound (md + 30); the nibble 15 also
  means "not reached yet" during the build, so a saturated entry stays 15 whatever later layers find.

The layers and the table do not depend on the thread count (a set of states per depth); only the
order in which threads mark them does.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...._numba import njit, prange
from ...._numba.parallel import atomic_add, atomic_and, atomic_or
from .pdb import placements, rank_placement

LOW_BITS = 0x5555555555555555  # the low bit of each 2-bit code in a word
SATURATED = 15
CHUNK_WORDS = 2048  # code words a thread sweeps before taking the next chunk (65,536 states)


def sweep_index(nbr: np.ndarray, m: int) -> dict:
    """The numbering of (combination, region, perm) states of m tiles on the free cells of ``nbr``.

    Returns int32 ``comb_rank`` (2**F,) (-1 for masks of another size), int8 ``comb_cells`` (C, m)
    (each combination's cells, ascending), int8 ``region_of`` (C, F) (the region of each other cell,
    -1 on the combination), int64 ``region_mask`` (C, F - m + 1), int64 ``block_start`` (C,) and
    int32 ``block_comb`` / int8 ``block_region`` (B,) (the combination and region of each block of m!
    states), int64 ``perm_cells`` (m!,) (each perm's indices, 4 bits per tile), uint8 ``popcount`` (2**F,) and
    ``states`` = B * m!.
    """
    free = nbr.shape[0]
    masks = np.arange(1 << free, dtype=np.int64)
    popcount = np.zeros(1 << free, dtype=np.uint8)
    for b in range(free):
        popcount += ((masks >> b) & 1).astype(np.uint8)
    combs = masks[popcount == m]
    comb_rank = np.full(1 << free, -1, dtype=np.int32)
    comb_rank[combs] = np.arange(len(combs), dtype=np.int32)
    comb_cells = np.zeros((len(combs), m), dtype=np.int8)
    region_of = np.full((len(combs), free), -1, dtype=np.int8)
    region_mask = np.zeros((len(combs), free - m + 1), dtype=np.int64)
    block_start = np.zeros(len(combs), dtype=np.int64)
    block_comb, block_region = [], []
    nbrs = nbr.tolist()
    for k, mask in enumerate(combs.tolist()):
        comb_cells[k] = [c for c in range(free) if mask >> c & 1]
        regions = 0
        block_start[k] = len(block_comb)
        for start in range(free):
            if mask >> start & 1 or region_of[k, start] >= 0:
                continue
            region_of[k, start] = regions
            stack, bits = [start], 1 << start
            while stack:
                c = stack.pop()
                for n in nbrs[c]:
                    if n >= 0 and not mask >> n & 1 and region_of[k, n] < 0:
                        region_of[k, n] = regions
                        bits |= 1 << n
                        stack.append(n)
            region_mask[k, regions] = bits
            block_comb.append(k)
            block_region.append(regions)
            regions += 1
    orders = np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)
    perm_cells = (orders << (4 * np.arange(m, dtype=np.int64))).sum(axis=1)  # lexicographic = rank order
    return dict(
        comb_rank=comb_rank,
        perm_cells=perm_cells,
        comb_cells=comb_cells,
        region_of=region_of,
        region_mask=region_mask,
        block_start=block_start,
        block_comb=np.array(block_comb, dtype=np.int32),
        block_region=np.array(block_region, dtype=np.int8),
        popcount=popcount,
        states=len(block_comb) * math.factorial(m),
    )


@njit
def _perm_rank(cells, m, mask, popcount):
    """Rank of the order of the tiles on their cells: each tile's index among ``mask``'s cells, ranked as
    ``rank_placement`` ranks a placement (of m tiles on m cells)."""
    used = 0
    r = 0
    for i in range(m):
        x = np.int64(popcount[mask & ((1 << cells[i]) - 1)])
        r = r * (m - i) + x - popcount[used & ((1 << x) - 1)]
        used |= 1 << x
    return r


@njit
def _placement_rank(cells, m, free, popcount):
    """``rank_placement`` in O(m) with the popcount table."""
    used = 0
    r = 0
    for i in range(m):
        x = cells[i]
        r = r * (free - i) + x - popcount[used & ((1 << x) - 1)]
        used |= 1 << x
    return r


@njit
def _mark(codes, state, code):
    """Give an unseen state ``code``; True for the one caller that found it unseen."""
    w = state >> 5
    shift = (state & 31) * 2
    if (codes[w] >> shift) & 3 != 0:
        return False
    old = atomic_or(codes, w, code << shift)
    return (old >> shift) & 3 == 0


@njit
def _set_value(table, rank, q):
    """Set an unreached placement's nibble to q < 15; True for the one caller that set it."""
    w = rank >> 4
    shift = (rank & 15) * 4
    if (table[w] >> shift) & 15 != SATURATED:
        return False
    old = atomic_and(table, w, ~((SATURATED ^ q) << shift))
    return (old >> shift) & 15 == SATURATED


@njit
def sweep_seed(codes, table, goal_cells, blank_cell, nbr, dist, comb_rank, region_of, block_start, popcount):
    """Mark the goal state (the pattern on its cells, the blank's region) as layer 0."""
    m = goal_cells.shape[0]
    mask = 0
    for i in range(m):
        mask |= 1 << goal_cells[i]
    c = comb_rank[mask]
    state = (block_start[c] + region_of[c, blank_cell]) * placements(m, m) + _perm_rank(goal_cells, m, mask, popcount)
    _mark(codes, state, 1)
    _set_value(table, rank_placement(goal_cells, m, nbr.shape[0]), 0)


@njit(parallel=True)
def sweep_layer(
    codes,
    table,
    depth,
    threads,
    nbr,
    dist,
    comb_rank,
    comb_cells,
    region_of,
    region_mask,
    block_comb,
    block_region,
    block_start,
    perm_cells,
    popcount,
):
    """Expand every state of the layer at ``depth``: their unseen neighbours become the next layer, the
    placements first reached get (depth + 1 - md) / 2. Returns (states marked, placements filled)."""
    m = comb_cells.shape[1]
    free = nbr.shape[0]
    perms = placements(m, m)
    cur = 1 + (depth & 1)
    nxt = 3 - cur
    words = codes.shape[0]
    chunks = (words + CHUNK_WORDS - 1) // CHUNK_WORDS
    marked = np.zeros(threads, dtype=np.int64)
    filled = np.zeros(threads, dtype=np.int64)
    claimed = np.zeros(1, dtype=np.int64)
    for t in prange(threads):  # chunks claimed one by one: a loaded machine's slow thread does less
        cells = np.empty(m, dtype=np.int64)
        while True:
            chunk = atomic_add(claimed, 0, 1)
            if chunk >= chunks:
                break
            for w in range(chunk * CHUNK_WORDS, min(words, (chunk + 1) * CHUNK_WORDS)):
                word = codes[w]
                if cur == 1:
                    hits = word & ~(word >> 1) & LOW_BITS
                else:
                    hits = (word >> 1) & ~word & LOW_BITS
                if hits == 0:
                    continue
                atomic_or(codes, w, hits | (hits << 1))  # this layer is done
                for k in range(32):
                    if (hits >> (2 * k)) & 1 == 0:
                        continue
                    state = w * 32 + k
                    block = state // perms
                    order = perm_cells[state - block * perms]
                    c = block_comb[block]
                    for i in range(m):
                        cells[i] = comb_cells[c, (order >> (4 * i)) & 15]
                    mask = 0
                    for i in range(m):
                        mask |= 1 << cells[i]
                    region = region_mask[c, block_region[block]]
                    for i in range(m):
                        p = cells[i]
                        for d in range(4):
                            q = nbr[p, d]  # a blank cell beside tile i: the tile slides into it
                            if q < 0 or (region >> q) & 1 == 0:
                                continue
                            moved = mask ^ (1 << p) ^ (1 << q)
                            c2 = comb_rank[moved]
                            cells[i] = q
                            nstate = (block_start[c2] + region_of[c2, p]) * perms + _perm_rank(
                                cells, m, moved, popcount
                            )
                            if _mark(codes, nstate, nxt):
                                marked[t] += 1
                                md = 0
                                for j in range(m):
                                    md += dist[j, cells[j]]
                                value = min((depth + 1 - md) >> 1, SATURATED)
                                if value < SATURATED:
                                    if _set_value(table, _placement_rank(cells, m, free, popcount), value):
                                        filled[t] += 1
                            cells[i] = p
    return marked.sum(), filled.sum()


@njit
def packed_value(pos, m, nfree, base, data):
    """The value of placement ``pos`` in a 4-bit table at ``data[base:]``: a header of each tile's graph
    distance from each free cell (m, nfree bytes), then the nibbles by ``rank_placement``, low nibble first."""
    md = 0
    for i in range(m):
        md += data[base + i * nfree + pos[i]]
    rank = rank_placement(pos, m, nfree)
    nibble = (data[base + m * nfree + (rank >> 1)] >> ((rank & 1) * 4)) & 15
    return np.int64(md) + 2 * np.int64(nibble)
