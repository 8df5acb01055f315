"""Rows of strings in a fixed set of distinct strings (a bank's board ids), from Arrow's string buffers.

``id_table(data, offsets)`` builds an open-addressing hash table of the strings ``data[offsets[i]:offsets[i + 1]]``
once; ``id_rows(table, ..., data, offsets)`` then finds the row of every string of another buffer pair, -1 for a
string not in the set. A hash match is confirmed byte for byte, so the rows are exact whatever the hash does.
This replaces Arrow's ``index_in``, which builds its hash table of the value set again on every call.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange

_FNV_OFFSET, _FNV_PRIME = np.uint64(14695981039346656037), np.uint64(1099511628211)


@njit
def _fnv1a(data, lo, hi):
    h = _FNV_OFFSET
    for i in range(lo, hi):
        h = (h ^ np.uint64(data[i])) * _FNV_PRIME
    return h


@njit
def id_table(data, offsets, min_bits=0):
    """The slots: int64 (size, 2), a power of two at least twice the strings (and 2**min_bits) of (row, hash bits),
    row -1 where empty (a row and its hash side by side: one cache line per probe). The strings must be distinct."""
    n = len(offsets) - 1
    bits = max(min_bits, 1)
    while (1 << bits) < 2 * n:
        bits += 1
    mask = (1 << bits) - 1
    slots = np.full((1 << bits, 2), -1, dtype=np.int64)
    for r in range(n):
        h = _fnv1a(data, offsets[r], offsets[r + 1])
        s = np.int64(h & np.uint64(mask))
        while slots[s, 0] >= 0:
            s = (s + 1) & mask
        slots[s, 0], slots[s, 1] = r, np.int64(h >> np.uint64(1))
    return slots


@njit
def _same(a, a_lo, a_hi, b, b_lo, b_hi):
    if a_hi - a_lo != b_hi - b_lo:
        return False
    for i in range(a_hi - a_lo):
        if a[a_lo + i] != b[b_lo + i]:
            return False
    return True


@njit(parallel=True)
def id_rows(slots, set_data, set_offsets, data, offsets):
    """The row in the set of each string ``data[offsets[i]:offsets[i + 1]]`` (int64 (n,), -1 if absent)."""
    n = len(offsets) - 1
    mask = len(slots) - 1
    rows = np.empty(n, dtype=np.int64)
    for i in prange(n):
        lo, hi = offsets[i], offsets[i + 1]
        h = _fnv1a(data, lo, hi)
        s = np.int64(h & np.uint64(mask))
        key = np.int64(h >> np.uint64(1))
        found = -1
        while slots[s, 0] >= 0:
            r = slots[s, 0]
            if slots[s, 1] == key and _same(set_data, set_offsets[r], set_offsets[r + 1], data, lo, hi):
                found = r
                break
            s = (s + 1) & mask
        rows[i] = found
    return rows
