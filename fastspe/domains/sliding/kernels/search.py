"""IDA* over sliding-puzzle states with h = max(graph-distance sum, additive pattern-database sum).

Conventions (see ``graph.py`` and ``pdb.py``):

- a board is int8 ``(cells,)``: 0 the blank, -1 blocked, tiles 1..T; ``moves`` int16 ``(cells, 4)``
  is the blank's target cell per direction 0=U, 1=D, 2=L, 3=R (negative: illegal);
- ``tile_dist`` int16 ``(T + 1, cells)``: graph distance from a cell to tile t's goal cell (row 0 zeros);
- ``free_idx`` int16 ``(2, cells)``: free-cell index of a cell (row 0) and of its mirror image (row 1);
  ``group_of`` int16 ``(T + 1, 2)`` (a tile's group in each of the two sums, -1: none),
  ``group_tiles`` int16 ``(G, M)``, ``group_size`` int64 ``(G,)``, ``group_side`` int64 ``(G,)`` (which sum,
  and which row of ``free_idx``), ``offsets`` int64 ``(G,)`` and ``data`` uint8 describe the pattern
  tables (``fastspe.domains.sliding.planners.pdb.PatternDatabases``); G = 0 means none. Side 1 groups look the tables up on the
  board mirrored about its diagonal (a symmetry of square layouts with symmetric blocks), a second
  admissible sum;
- a plan is int8 direction codes of the blank.

Both heuristics are admissible (each move changes one tile's distance by one and moves one tile of
at most one group), so their maximum is, and IDA* returns optimal plans. Only the move undoing the
previous one is pruned; there is no visited set, which would break optimality under IDA*'s bounds.
The search is deterministic: directions are tried in the order U, D, L, R, so the plan returned is
the first optimal one in that order, whatever the thread count.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit, prange
from .pdb import rank_placement
from .pdb_sweep import packed_value

MAX_DEPTH = 400  # plans longer than this are refused (TOO_DEEP); 4x4 optima are <= 80
FOUND, OVER_BUDGET, TOO_DEEP, NO_PLAN = 0, 1, 2, 3
_INF = 1 << 30
_INVERSE = np.array([1, 0, 3, 2], dtype=np.int64)
CANCELLED = -3  # bounded_dfs: stopped because an earlier subtree holds a plan


@njit
def _group_value(g, cell_of, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, pos):
    m = group_size[g]
    side = group_side[g]
    for i in range(m):
        pos[i] = free_idx[side, cell_of[group_tiles[g, i]]]
    if offsets[g] < 0:  # a 4-bit table (the 7-8 split), see pdb_sweep.py
        return packed_value(pos, m, nfree, -1 - offsets[g], data)
    return np.int64(data[offsets[g] + rank_placement(pos, m, nfree)])


@njit
def _unpack(board, ntiles):
    """(tile_at copy, cell_of int64 (T + 1,), blank cell) of a board."""
    tile_at = board.copy()
    cell_of = np.zeros(ntiles + 1, dtype=np.int64)
    for c in range(board.shape[0]):
        if board[c] >= 0:
            cell_of[board[c]] = c
    return tile_at, cell_of, cell_of[0]


@njit
def _heuristic(cell_of, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, gv):
    """(graph-distance sum, PDB sum, mirrored PDB sum); ``gv`` receives each group's table value."""
    md = 0
    for t in range(1, cell_of.shape[0]):
        md += tile_dist[t, cell_of[t]]
    ps = 0
    ms = 0
    pos = np.empty(max(1, group_tiles.shape[1]), dtype=np.int64)
    for g in range(group_size.shape[0]):
        gv[g] = _group_value(g, cell_of, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, pos)
        if group_side[g] == 0:
            ps += gv[g]
        else:
            ms += gv[g]
    return md, ps, ms


@njit
def heuristic(board, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree):
    """h(board) = max(graph-distance sum, PDB sum, mirrored PDB sum) (int64)."""
    _, cell_of, _ = _unpack(board, tile_dist.shape[0] - 1)
    gv = np.zeros(group_size.shape[0], dtype=np.int64)
    md, ps, ms = _heuristic(cell_of, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, gv)
    return max(md, ps, ms)


@njit
def bounded_dfs(
    tile_at,
    cell_of,
    blank,
    g0,
    prev_dir,
    bound,
    moves,
    tile_dist,
    free_idx,
    group_of,
    group_tiles,
    group_size,
    group_side,
    offsets,
    data,
    nfree,
    path,
    budget,
    stop,
    me,
):
    """One IDA* iteration: depth-first below a node at depth ``g0`` reached by ``prev_dir`` (-1: root).

    Writes the plan's moves below the node into ``path[g0:]``. Returns (length, next bound, nodes):
    length >= 0 if a goal is found within ``bound``, -1 if not (next bound: the least f over it),
    -2 if more than ``budget`` nodes were generated, CANCELLED once ``stop[0] < me`` (another thread
    found a plan in an earlier subtree; looked at every 4096 nodes). The board is restored unless a
    goal is found.
    """
    gv = np.zeros(group_size.shape[0], dtype=np.int64)
    md0, ps0, ms0 = _heuristic(
        cell_of, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, gv
    )
    pos = np.empty(max(1, group_tiles.shape[1]), dtype=np.int64)
    size = MAX_DEPTH + 1
    next_dir = np.zeros(size, dtype=np.int64)
    mds = np.zeros(size, dtype=np.int64)
    pss = np.zeros((size, 2), dtype=np.int64)
    changed = np.full((size, 2), -1, dtype=np.int64)  # groups whose values the move into this depth changed
    old_value = np.zeros((size, 2), dtype=np.int64)
    new_value = np.zeros(2, dtype=np.int64)
    mds[g0] = md0
    pss[g0, 0] = ps0
    pss[g0, 1] = ms0
    depth = g0
    next_bound = _INF
    nodes = 0
    while True:
        d = next_dir[depth]
        if d == 4:  # all children done: undo the move into this node
            if depth == g0:
                return -1, next_bound, nodes
            back = moves[blank, _INVERSE[path[depth - 1]]]
            tile = tile_at[back]
            tile_at[blank] = tile
            cell_of[tile] = blank
            tile_at[back] = 0
            blank = back
            for k in range(2):
                if changed[depth, k] >= 0:
                    gv[changed[depth, k]] = old_value[depth, k]
            depth -= 1
            continue
        next_dir[depth] = d + 1
        last = path[depth - 1] if depth > g0 else prev_dir
        if last >= 0 and d == _INVERSE[last]:
            continue
        target = moves[blank, d]
        if target < 0:
            continue
        nodes += 1
        if (nodes & 4095) == 0 and stop[0] < me:
            return CANCELLED, next_bound, nodes
        tile = tile_at[target]
        md = mds[depth] - tile_dist[tile, target] + tile_dist[tile, blank]
        f_md = depth + 1 + md
        if f_md > bound and f_md >= next_bound:
            continue  # pruned whatever the tables say, and the next bound cannot drop: skip the lookups
        ps = pss[depth, 0]
        ms = pss[depth, 1]
        cell_of[tile] = blank
        for k in range(2):
            g = group_of[tile, k]
            if g >= 0:
                new_value[k] = _group_value(
                    g, cell_of, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, pos
                )
                if group_side[g] == 0:
                    ps += new_value[k] - gv[g]
                else:
                    ms += new_value[k] - gv[g]
        cell_of[tile] = target
        f = depth + 1 + max(md, ps, ms)
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        tile_at[blank] = tile
        tile_at[target] = 0
        cell_of[tile] = blank
        blank = target
        path[depth] = d
        depth += 1
        for k in range(2):
            g = group_of[tile, k]
            changed[depth, k] = g
            if g >= 0:
                old_value[depth, k] = gv[g]
                gv[g] = new_value[k]
        mds[depth] = md
        pss[depth, 0] = ps
        pss[depth, 1] = ms
        next_dir[depth] = 0
        if md == 0:
            return depth, next_bound, nodes
        if nodes > budget:
            return -2, next_bound, nodes


@njit
def ida_star(
    board,
    moves,
    tile_dist,
    free_idx,
    group_of,
    group_tiles,
    group_size,
    group_side,
    offsets,
    data,
    nfree,
    max_nodes,
    path,
):
    """Optimal plan of one board. Returns (length, nodes, h, status); the plan is ``path[:length]``."""
    tile_at, cell_of, blank = _unpack(board, tile_dist.shape[0] - 1)
    h0 = heuristic(board, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree)
    if h0 == 0:
        return 0, 0, h0, FOUND
    length, total, _, status = _deepen(
        tile_at,
        cell_of,
        blank,
        h0,
        MAX_DEPTH,
        moves,
        tile_dist,
        free_idx,
        group_of,
        group_tiles,
        group_size,
        group_side,
        offsets,
        data,
        nfree,
        max_nodes,
        path,
    )
    return length, total, h0, status


@njit
def _deepen(
    tile_at,
    cell_of,
    blank,
    bound,
    limit,
    moves,
    tile_dist,
    free_idx,
    group_of,
    group_tiles,
    group_size,
    group_side,
    offsets,
    data,
    nfree,
    max_nodes,
    path,
):
    """Serial IDA* iterations from ``bound`` while the bound stays below ``limit``. Returns (length, nodes,
    bound, status); status TOO_DEEP when the bound reached ``limit`` with no plan found."""
    total = 0
    never = np.full(1, _INF, dtype=np.int64)  # no other thread to yield to
    while bound < limit:
        length, next_bound, nodes = bounded_dfs(
            tile_at,
            cell_of,
            blank,
            0,
            -1,
            bound,
            moves,
            tile_dist,
            free_idx,
            group_of,
            group_tiles,
            group_size,
            group_side,
            offsets,
            data,
            nfree,
            path,
            max_nodes - total,
            never,
            0,
        )
        total += nodes
        if length >= 0:
            return length, total, bound, FOUND
        if length == -2 or total > max_nodes:
            return -1, total, bound, OVER_BUDGET
        if next_bound == _INF:
            return -1, total, bound, NO_PLAN
        bound = next_bound
    return -1, total, bound, TOO_DEEP


@njit(parallel=True)
def ida_star_boards(
    boards, moves, tile_dist, free_idx, group_of, group_tiles, group_size, group_side, offsets, data, nfree, max_nodes
):
    """``ida_star`` over int8 boards (n, cells) in parallel, ``max_nodes`` per board.

    Returns lengths, nodes, h, status (int64 (n,)) and plans int8 (n, MAX_DEPTH)."""
    n = boards.shape[0]
    lengths = np.empty(n, dtype=np.int64)
    nodes = np.empty(n, dtype=np.int64)
    hs = np.empty(n, dtype=np.int64)
    status = np.empty(n, dtype=np.int64)
    plans = np.zeros((n, MAX_DEPTH), dtype=np.int8)
    for i in prange(n):
        path = np.zeros(MAX_DEPTH, dtype=np.int64)
        lengths[i], nodes[i], hs[i], status[i] = ida_star(
            boards[i],
            moves,
            tile_dist,
            free_idx,
            group_of,
            group_tiles,
            group_size,
            group_side,
            offsets,
            data,
            nfree,
            max_nodes,
            path,
        )
        for j in range(max(lengths[i], 0)):
            plans[i, j] = path[j]
    return lengths, nodes, hs, status, plans


@njit
def _frontier(board, moves, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, split):
    """All move sequences of length ``split`` from ``board`` without an immediate reversal, in U, D, L, R
    order: int64 prefixes (K, split) and f = g + h at each of their nodes (K, split)."""
    count = 0
    cap = 4 * 3 ** (split - 1)
    prefixes = np.zeros((cap, split), dtype=np.int64)
    fvals = np.zeros((cap, split), dtype=np.int64)
    seq = np.zeros(split, dtype=np.int64)
    for code in range(4**split):
        rest = code
        for j in range(split - 1, -1, -1):
            seq[j] = rest % 4
            rest //= 4
        work = board.copy()
        blank = 0
        for c in range(work.shape[0]):
            if work[c] == 0:
                blank = c
        ok = True
        for j in range(split):
            if j > 0 and seq[j] == _INVERSE[seq[j - 1]]:
                ok = False
                break
            target = moves[blank, seq[j]]
            if target < 0:
                ok = False
                break
            work[blank] = work[target]
            work[target] = 0
            blank = target
            fvals[count, j] = (
                j + 1 + heuristic(work, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree)
            )
        if ok:
            prefixes[count] = seq
            count += 1
    return prefixes[:count].copy(), fvals[:count].copy()


@njit
def _comes_after(seq, last, length):
    """Whether ``seq[:length]`` comes after ``last[:length]`` in U, D, L, R order."""
    for j in range(length):
        if seq[j] != last[j]:
            return seq[j] > last[j]
    return False


@njit
def _shallow_nodes(
    board, split, bound, last, moves, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree
):
    """(nodes, least f over ``bound``) that the serial iteration generates at depths 1..``split``: every path
    without a reversal whose ancestors are within the bound. With ``last`` (a frontier prefix) only the paths
    up to it in U, D, L, R order, where the serial search stops on a plan below ``last``; ``last[0] < 0``: all."""
    nodes = 0
    least = _INF
    seq = np.zeros(split, dtype=np.int64)
    for length in range(1, split + 1):
        for code in range(4**length):
            rest = code
            for j in range(length - 1, -1, -1):
                seq[j] = rest % 4
                rest //= 4
            if last[0] >= 0 and _comes_after(seq, last, length):
                continue
            work = board.copy()
            blank = 0
            for c in range(work.shape[0]):
                if work[c] == 0:
                    blank = c
            f = 0
            for j in range(length):
                target = moves[blank, seq[j]]
                if (j > 0 and seq[j] == _INVERSE[seq[j - 1]]) or target < 0 or f > bound:
                    f = -1  # not a path, or an ancestor over the bound was never expanded
                    break
                work[blank] = work[target]
                work[target] = 0
                blank = target
                f = (
                    j
                    + 1
                    + heuristic(work, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree)
                )
            if f >= 0:
                nodes += 1
                if f > bound:
                    least = min(least, f)
    return nodes, least


@njit(parallel=True)
def _search_subtrees(
    board,
    blank,
    prefixes,
    fvals,
    bound,
    moves,
    tile_dist,
    free_idx,
    group_of,
    group_tiles,
    group_size,
    group_side,
    offsets,
    data,
    nfree,
    budget,
    found,
    bounds,
    counts,
    paths,
    stop,
):
    """One IDA* iteration over the frontier subtrees in parallel (the only parallel region per iteration:
    array reductions stay outside, so a busy machine costs one thread barrier per iteration).

    ``stop[0]``: the lowest subtree known to hold a plan; later subtrees are skipped or cancelled, since the
    serial search would never reach them. Threads may race on it, but it only ever holds indices of subtrees
    with a plan, so no subtree before the first one with a plan is ever cut short."""
    split = prefixes.shape[1]
    for i in prange(prefixes.shape[0]):
        found[i] = -1
        bounds[i] = _INF
        counts[i] = 0
        if stop[0] < i:
            found[i] = CANCELLED
            continue
        cut = -1
        for j in range(split):  # the serial search stops at the first node over the bound
            if fvals[i, j] > bound:
                cut = j
                break
        if cut >= 0:
            bounds[i] = fvals[i, cut]
            continue
        work = board.copy()
        b = blank
        for j in range(split):
            target = moves[b, prefixes[i, j]]
            work[b] = work[target]
            work[target] = 0
            b = target
            paths[i, j] = prefixes[i, j]
        w_at, w_of, w_blank = _unpack(work, tile_dist.shape[0] - 1)
        at_goal = True
        for t in range(1, w_of.shape[0]):
            at_goal = at_goal and tile_dist[t, w_of[t]] == 0
        if at_goal:  # a plan exactly `split` moves long ends on the frontier itself
            found[i] = split
        else:
            found[i], bounds[i], counts[i] = bounded_dfs(
                w_at,
                w_of,
                w_blank,
                split,
                prefixes[i, split - 1],
                bound,
                moves,
                tile_dist,
                free_idx,
                group_of,
                group_tiles,
                group_size,
                group_side,
                offsets,
                data,
                nfree,
                paths[i],
                budget,
                stop,
                i,
            )
        if found[i] >= 0 and i < stop[0]:
            stop[0] = i


@njit
def ida_star_split(
    board,
    moves,
    tile_dist,
    free_idx,
    group_of,
    group_tiles,
    group_size,
    group_side,
    offsets,
    data,
    nfree,
    max_nodes,
    split,
    path,
):
    """``ida_star`` for one hard board, each iteration split over the subtrees at depth ``split``.

    Every subtree is searched with the same bound; a found plan comes from the lowest-numbered
    subtree (U, D, L, R order), which is the plan ``ida_star`` returns. Subtrees after it are cancelled
    and the nodes are counted as ``ida_star`` counts them (the nodes above the frontier too, and in the
    last iteration only those before the plan), so plan and count do not depend on the thread count
    and equal ``ida_star``'s (unless the node budget runs out).
    """
    tile_at, cell_of, blank = _unpack(board, tile_dist.shape[0] - 1)
    h0 = heuristic(board, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree)
    if h0 == 0:
        return 0, 0, h0, FOUND
    # shallow bounds, serially: no subtree at depth `split` can hold a plan shorter than `split`
    length, total, bound, status = _deepen(
        tile_at,
        cell_of,
        blank,
        h0,
        split,
        moves,
        tile_dist,
        free_idx,
        group_of,
        group_tiles,
        group_size,
        group_side,
        offsets,
        data,
        nfree,
        max_nodes,
        path,
    )
    if status != TOO_DEEP:
        return length, total, h0, status
    prefixes, fvals = _frontier(
        board, moves, tile_dist, free_idx, group_tiles, group_size, group_side, offsets, data, nfree, split
    )
    k = prefixes.shape[0]
    found = np.empty(k, dtype=np.int64)
    bounds = np.empty(k, dtype=np.int64)
    counts = np.empty(k, dtype=np.int64)
    paths = np.zeros((k, MAX_DEPTH), dtype=np.int64)
    stop = np.empty(1, dtype=np.int64)
    every_path = np.full(split, -1, dtype=np.int64)
    while True:
        if bound >= MAX_DEPTH:
            return -1, total, h0, TOO_DEEP
        stop[0] = _INF
        _search_subtrees(
            board,
            blank,
            prefixes,
            fvals,
            bound,
            moves,
            tile_dist,
            free_idx,
            group_of,
            group_tiles,
            group_size,
            group_side,
            offsets,
            data,
            nfree,
            max_nodes - total,
            found,
            bounds,
            counts,
            paths,
            stop,
        )
        first = k
        for i in range(k):
            if found[i] >= 0:
                first = i
                break
        shallow, next_bound = _shallow_nodes(
            board,
            split,
            bound,
            prefixes[first] if first < k else every_path,
            moves,
            tile_dist,
            free_idx,
            group_tiles,
            group_size,
            group_side,
            offsets,
            data,
            nfree,
        )
        total += shallow
        over = False
        for i in range(min(first + 1, k)):
            total += counts[i]
            next_bound = min(next_bound, bounds[i])
            over = over or found[i] == -2
        if first < k:
            path[: found[first]] = paths[first, : found[first]]
            return found[first], total, h0, FOUND
        if over or total > max_nodes:
            return -1, total, h0, OVER_BUDGET
        if next_bound == _INF:
            return -1, total, h0, NO_PLAN
        bound = next_bound
