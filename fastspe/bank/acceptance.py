"""What the two acceptance loops share (h-walk cells in ``build``, search cells in ``search``).

Both accept boards in proposal order, distinct within a cell and from boards that earlier cells of the
same layout and depth took: sorted board keys, the first new ones of each chunk, and the next chunk's size
from the acceptance rate so far. The quota error and the proposal cap live here too, so that neither loop
imports the other.
"""

from __future__ import annotations

import numpy as np

from ..errors import UserError

# Where a cell needs more than this many proposals per board asked for, its quota is not reachable.
PROPOSALS_PER_BOARD = 1000
MIN_PROPOSAL_CAP = 200_000


class QuotaError(UserError):
    """A design cell has fewer distinct certified boards within the proposal cap than it asks for."""


def proposal_cap(count: int) -> int:
    return max(MIN_PROPOSAL_CAP, PROPOSALS_PER_BOARD * count)


def board_keys(boards: np.ndarray) -> np.ndarray:
    """One sortable key per row of int8 ``boards``: a uint64 of 4-bit cells where boards have at
    most 16 cells (the 4 x 4 case, exact since blocked cells are fixed per layout), else the raw bytes."""
    if boards.shape[1] <= 16:
        shifts = np.arange(boards.shape[1], dtype=np.uint64) * np.uint64(4)
        return np.bitwise_or.reduce((boards.astype(np.uint64) & np.uint64(15)) << shifts, axis=1)
    return np.ascontiguousarray(boards).view(np.dtype((np.void, boards.shape[1]))).ravel()


def first_new(keys: np.ndarray, accepted: np.ndarray) -> np.ndarray:
    """Sorted indices of the first occurrence of each key that is not in sorted ``accepted``."""
    uniq, first = np.unique(keys, return_index=True)
    pos = np.searchsorted(accepted, uniq)
    seen = np.zeros(len(uniq), dtype=bool)
    inside = pos < len(accepted)
    seen[inside] = accepted[pos[inside]] == uniq[inside]
    return np.sort(first[~seen])


def insert_sorted(accepted: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Sorted ``accepted`` with ``keys`` added, still sorted."""
    keys = np.sort(keys)
    return np.insert(accepted, np.searchsorted(accepted, keys), keys)


def next_chunk(count: int, have: int, start: int, first: int, most: int) -> int:
    """Proposals for the next kernel call: those still needed for ``count`` boards, estimated from the
    acceptance so far (``have`` boards in ``start`` proposals) with headroom, at least ``first``, at most
    ``4 * start + first`` (a chunk never more than about quadruples) and ``most`` (memory)."""
    rate = max(have, 1) / start
    return int(min(max(2 * (count - have) / rate, first), 4 * start + first, most))
