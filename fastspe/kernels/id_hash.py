"""Rows of strings in a fixed set of distinct strings (a bank's board ids), from Arrow's string buffers.

``id_table(data, offsets)`` builds an open-addressing hash table of the strings ``data[offsets[i]:offsets[i + 1]]``
once; ``id_rows(table, ..., data, offsets)`` then finds the row of every string of another buffer pair, -1 for a
string not in the set. A hash match is confirmed byte for byte, so the rows are exact whatever the hash does.
This replaces Arrow's ``index_in``, which builds its hash table of the value set again on every call.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit, prange
from .._numba.words import load_word, same_bytes

_MIX = np.uint64(0x9E3779B97F4A7C15)  # (2**64 / golden ratio: a multiplier whose high bits mix all of a word)


@njit(inline="always")
def _mixed(h, word):
    h = (h ^ word) * _MIX
    return h ^ (h >> np.uint64(32))  # (the slot is the hash's low bits: fold the product's high bits into them)


@njit
def _hash(data, lo, hi):
    """A 64-bit hash of ``data[lo:hi]``, a word at a time (the last word overlapping the one before)."""
    n = hi - lo
    h = _mixed(_MIX, np.uint64(n))
    if n < 8:
        word = np.uint64(0)
        for i in range(lo, hi):
            word = (word << np.uint64(8)) | np.uint64(data[i])
        return _mixed(h, word)
    i = lo
    while i + 8 < hi:
        h = _mixed(h, load_word(data, i))
        i += 8
    return _mixed(h, load_word(data, hi - 8))


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
        h = _hash(data, offsets[r], offsets[r + 1])
        s = np.int64(h & np.uint64(mask))
        while slots[s, 0] >= 0:
            s = (s + 1) & mask
        slots[s, 0], slots[s, 1] = r, np.int64(h >> np.uint64(1))
    return slots


@njit
def _row_of(slots, set_data, set_offsets, data, lo, hi):
    """The row in the set of ``data[lo:hi]``, -1 if absent."""
    mask = len(slots) - 1
    h = _hash(data, lo, hi)
    s = np.int64(h & np.uint64(mask))
    key = np.int64(h >> np.uint64(1))
    while slots[s, 0] >= 0:
        r = slots[s, 0]
        if (
            slots[s, 1] == key
            and set_offsets[r + 1] - set_offsets[r] == hi - lo
            and same_bytes(data, lo, hi, set_data, set_offsets[r])
        ):
            return r
        s = (s + 1) & mask
    return -1


@njit(parallel=True)
def id_rows(slots, set_data, set_offsets, data, offsets):
    """The row in the set of each string ``data[offsets[i]:offsets[i + 1]]`` (int64 (n,), -1 if absent)."""
    n = len(offsets) - 1
    rows = np.empty(n, dtype=np.int64)
    for i in prange(n):  # one call per row: numba's parallel passes compile a small body much sooner
        rows[i] = _row_of(slots, set_data, set_offsets, data, offsets[i], offsets[i + 1])
    return rows
