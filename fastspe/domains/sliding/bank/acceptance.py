"""What the two acceptance loops share (h-walk cells in ``build``, search cells in ``search``).

Both accept boards in proposal order, distinct within a cell and from boards that earlier cells of the
same layout and depth took: sorted board keys, the first new ones of each chunk, and the next chunk's size
from the acceptance rate so far. The proposal cap lives here too, so that neither loop imports the other.
"""

from __future__ import annotations

import numpy as np


# Where a cell needs more than this many proposals per board asked for, its quota is not reachable.
PROPOSALS_PER_BOARD = 1000
MIN_PROPOSAL_CAP = 200_000


def proposal_cap(count: int) -> int:
    return max(MIN_PROPOSAL_CAP, PROPOSALS_PER_BOARD * count)


def board_keys(boards: np.ndarray) -> np.ndarray:
    """One sortable key per row of int8 ``boards``: a uint64 of 4-bit cells where boards have at
    most 16 cells (the 4 x 4 case, exact since blocked cells are fixed per layout), else the raw bytes."""
    if boards.shape[1] <= 16:
        shifts = np.arange(boards.shape[1], dtype=np.uint64) * np.uint64(4)
        return np.bitwise_or.reduce((boards.astype(np.uint64) & np.uint64(15)) << shifts, axis=1)
    return np.ascontiguousarray(boards).view(np.dtype((np.void, boards.shape[1]))).ravel()


class KeySet:
    """A set of board keys as a few sorted runs, each at least twice the next: adding keys merges only the
    small runs (a key is copied O(log n) times in all), where one sorted array would be copied whole on
    every insert, quadratic in the bank's size."""

    def __init__(self, keys: np.ndarray):
        self.runs = [np.sort(keys)]

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """bool per key: is it in the set."""
        found = np.zeros(len(keys), dtype=bool)
        for run in self.runs:
            pos = np.searchsorted(run, keys)
            inside = pos < len(run)
            found[inside] |= run[pos[inside]] == keys[inside]
        return found

    def add(self, keys: np.ndarray) -> None:
        """Add keys that are not in the set yet."""
        self.runs.append(np.sort(keys))
        while len(self.runs) > 1 and len(self.runs[-2]) <= 2 * len(self.runs[-1]):
            small, big = self.runs.pop(), self.runs.pop()
            self.runs.append(np.insert(big, np.searchsorted(big, small), small))

    def copy(self) -> "KeySet":
        """A set that grows apart from this one (runs are never changed in place, so they are shared)."""
        other = KeySet(self.runs[0][:0])
        other.runs = list(self.runs)
        return other


def first_new(keys: np.ndarray, accepted: KeySet) -> np.ndarray:
    """Sorted indices of the first occurrence of each key that is not in ``accepted``."""
    uniq, first = np.unique(keys, return_index=True)
    return np.sort(first[~accepted.contains(uniq)])


def next_chunk(count: int, have: int, start: int, first: int, most: int) -> int:
    """Proposals for the next kernel call: those still needed for ``count`` boards, estimated from the
    acceptance so far (``have`` boards in ``start`` proposals) with headroom, at least ``first``, at most
    ``4 * start + first`` (a chunk never more than about quadruples) and ``most`` (memory)."""
    rate = max(have, 1) / start
    return int(min(max(2 * (count - have) / rate, first), 4 * start + first, most))
