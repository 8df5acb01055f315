"""Search-certified bank cells: boards whose optimal plans must retreat from the heuristic (d* > h).

An h-walk certifies d* = h by construction, so it can never produce a board where every optimal plan
has to move some tile away from its goal. A retreat cell (``DesignCell.retreat = r``) asks for boards
with d* = depth and h = depth - r. Proposals are plain random walks of ``depth`` steps from the goal
(``kernels.walks.propose_random_walks``, keyed by (seed, cell stream, proposal index), so a bank is
bit-identical for a seed); those with the wanted h (a vectorized filter) go to the exact solver in
batches, and a board is kept when its d* equals the depth.

Why walks of exactly ``depth`` steps: every board with d* = depth is the end of one (its optimal plan
reversed, which never undoes a step), and no proposal lies deeper than the depth, so the solver never
searches past it. On 3 x 3 (d* 16-20, retreat 2-4) 67-83% of the h-filtered boards are kept, against
10-30% for walks up to twice as long; on 4 x 4 without blocks (d* 20-28) 80-88% at retreat 2, 37-39%
at retreat 8, so the solver runs about 1-3 searches per board kept. Boards are accepted in proposal order,
distinct within the cell and from boards of the same layout and depth taken by earlier cells, so the
result does not depend on batch sizes.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...designs import QuotaError
from .acceptance import KeySet, board_keys, first_new, next_chunk, proposal_cap
from .design import DesignCell
from ..kernels.graph import boards_h
from ..kernels.walks import propose_random_walks

FIRST_CHUNK = 4096
MAX_CHUNK = 1 << 18  # walks per kernel call
# Walks cost little next to a search, and few random walks land on h = depth - retreat for small retreats
# at large depths (d* 40, retreat 2: about 1 in 10,000), so search cells may propose far more than h-walk cells.
SEARCH_CAP_FACTOR = 50
# Boards per solver call: enough to keep its threads busy, few past the quota (each is a full search).
MIN_BATCH, MAX_BATCH = 16, 4096
GUESSED_RATE = 0.6  # share of solved candidates kept, assumed before any is solved (measured: 0.4-1)

Progress = Callable[[int, int], None]


def _oracle():
    """The exact solver, ``fastspe.domains.sliding.planners.solver.solve_boards`` (a function, so tests can swap in another)."""
    from ..planners.solver import solve_boards

    return solve_boards


def build_search_cell(
    cell: DesignCell,
    seed: int,
    stream: int,
    taken: np.ndarray | None = None,
    progress: Progress | None = None,
    cap: int | None = None,
    taken_keys: KeySet | None = None,
):
    """Accept ``cell.count`` distinct boards with d* = ``cell.depth`` and h = depth - ``cell.retreat``.

    ``taken`` holds boards accepted earlier for the same layout and depth, skipped as duplicates (or
    ``taken_keys``, their ``acceptance.board_keys``; not changed here).
    Returns (boards int8 (count, cells), plans list[str] of optimal U/D/L/R certificates, proposal
    indices int64) or raises ``QuotaError`` when ``cap`` walks (default ``SEARCH_CAP_FACTOR`` times
    ``acceptance.proposal_cap``) fall short.
    """
    layout, depth = cell.layout, cell.depth
    want_h = depth - cell.retreat
    cap = SEARCH_CAP_FACTOR * proposal_cap(cell.count) if cap is None else cap
    solve = _oracle()
    prior = np.empty((0, layout.cells), dtype=np.int8) if taken is None else taken
    seen = KeySet(board_keys(prior)) if taken_keys is None else taken_keys.copy()  # taken or solved: solved once
    kept_boards, kept_plans, kept_index = [], [], []
    have, solved, start, chunk = 0, 0, 0, min(FIRST_CHUNK, cap)
    while have < cell.count and start < cap:
        n = min(chunk, cap - start)
        boards = propose_random_walks(layout.goal, layout.moves, depth, seed, stream, start, n)
        hit = np.flatnonzero(boards_h(boards, layout.goal_cell, layout.distances) == want_h)
        keys = board_keys(boards[hit])
        fresh = first_new(keys, seen)  # in proposal order
        pending = hit[fresh]
        seen.add(keys[fresh])
        while len(pending) and have < cell.count:
            rate = (have + GUESSED_RATE) / (solved + 1)  # smoothed: a batch with no board kept grows the next
            size = int(np.clip(np.ceil(1.25 * (cell.count - have) / rate), MIN_BATCH, MAX_BATCH))
            batch, pending = pending[:size], pending[size:]
            result = solve(boards[batch], layout.rows, layout.cols, layout.blocks)
            good = np.flatnonzero(np.asarray(result.lengths) == depth)[: cell.count - have]
            kept_boards.append(boards[batch[good]])
            kept_plans += [result.moves[i] for i in good]
            kept_index.append(start + batch[good])
            solved += len(batch)
            have += len(good)
            if progress is not None:
                progress(len(good), 0)
        start += n
        chunk = next_chunk(cell.count, have, start, FIRST_CHUNK, MAX_CHUNK)
    if have < cell.count:
        raise QuotaError(
            f"cell {cell.name}: found {have} distinct boards with d* = {depth} and h = {want_h} in "
            f"{start:,} random walks ({solved:,} solved), the design asks for {cell.count}; lower the "
            "count or choose another depth, retreat or layout"
        )
    return np.concatenate(kept_boards), kept_plans, np.concatenate(kept_index).astype(np.int64)
