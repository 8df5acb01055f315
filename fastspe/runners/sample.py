"""A seeded, stratified sample of a bank's boards, for a run that cannot afford the whole bank (``fastspe run
--sample N``).

The cells are the report's strata (cohort, the domain's second stratum, certified depth). Each cell gets its share
of ``n`` in proportion to its size (largest remainders), and at least one board where ``n`` reaches the number of
cells; within a cell the boards are drawn without replacement. The sample keeps the bank's row order, and the same
bank, ``n`` and seed always give the same boards.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..boundary.banks import Bank
from ..errors import UserError

__all__ = ["cell_quotas", "sample_bank"]


def cell_quotas(sizes: np.ndarray, n: int, tie: np.ndarray) -> np.ndarray:
    """Boards drawn from each cell: proportional to ``sizes`` (int64, ``(cells,)``), summing to ``min(n, total)``,
    at least 1 per non-empty cell when ``n`` allows, never more than a cell holds; ``tie`` (float, ``(cells,)``)
    orders cells whose claims are equal."""
    sizes = np.asarray(sizes, dtype=np.int64)
    total = int(sizes.sum())
    n = min(int(n), total)
    share = n * sizes / max(total, 1)
    quota = np.minimum(np.floor(share).astype(np.int64), sizes)
    if n >= np.count_nonzero(sizes):
        quota = np.maximum(quota, (sizes > 0).astype(np.int64))
    # too many (from the floor of one per cell): take back from the cells most above their share
    while quota.sum() > n:
        over = np.where(quota > 1, quota - share, -np.inf)
        quota[np.lexsort((tie, -over))[0]] -= 1
    # too few: give to the cells most below their share that have boards left
    while quota.sum() < n:
        under = np.where(quota < sizes, share - quota, -np.inf)
        quota[np.lexsort((tie, -under))[0]] += 1
    return quota


def sample_bank(bank: Bank, n: int, seed: int = 0) -> Bank:
    """``n`` boards of ``bank`` drawn by cell (see the module docstring), in the bank's order; the whole bank when
    ``n`` is at least its size."""
    if n < 1:
        raise UserError(f"--sample must be at least 1, got {n}")
    if n >= len(bank):
        return bank
    names = ["cohort", bank.domain.stratum, "depth"] if bank.domain.stratum else ["cohort", "depth"]
    keys = bank.table.select(names).to_pandas()
    cell = keys.groupby(names, sort=True).ngroup().to_numpy()
    sizes = np.bincount(cell)
    rng = np.random.default_rng([int(seed), 0x5A3B1E])  # a stream of its own: not the planners' or the bootstrap's
    quota = cell_quotas(sizes, n, rng.random(len(sizes)))
    keep = np.zeros(len(bank), dtype=bool)
    for c in np.flatnonzero(quota):
        rows = np.flatnonzero(cell == c)
        keep[rng.choice(rows, size=int(quota[c]), replace=False)] = True
    return Bank(bank.table.filter(pa.array(keep)), bank.domain, bank.source)
