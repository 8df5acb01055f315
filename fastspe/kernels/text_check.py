"""Checks over the bytes of a text column in one compiled pass (``boundary.bank_rows`` raises for the rows they flag).

- ``move_letters_only``: per string of an Arrow string array, does it hold only U, D, L, R (the symbols of
  ``domains.vocabulary.DIRECTIONS``: a stored plan or certificate);
- ``id_runs``: the rows where a run of strictly increasing ids of one byte length starts.

Each flag is computed for every row (an error counts the rows like the first), and nothing raises.
Plain-Python twins: ``tests/naive_bank_check.py``.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit

_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH = np.uint64(0x8080808080808080)
_LETTERS = tuple(np.uint64(int.from_bytes(bytes([c]) * 8, "little")) for c in b"UDLR")


@njit(inline="always")
def _zero_bytes(y):
    """0x80 in each byte of the word ``y`` that is zero, 0 in the others (exact: no carry between bytes)."""
    return ~(((y & _LOW7) + _LOW7) | y | _LOW7)


@njit(inline="always")
def _clamp(data, lo, hi):
    """``lo``, ``hi`` (>= 0) as the bounds of the slice ``data[lo:hi]``."""
    hi = min(hi, data.size)
    return min(lo, hi), hi


@njit
def _stray_bytes(data, lo, hi):
    """Any byte in ``data[lo:hi]`` other than U, D, L, R: eight bytes a step (a word each byte of which is
    tested against the four letters), the tail a byte at a time."""
    lo, hi = _clamp(data, lo, hi)
    whole = (hi - lo) // 8 * 8
    words = data[lo : lo + whole].view(np.uint64)
    u, d, l, r = _LETTERS
    stray = np.uint64(0)
    for k in range(words.size):
        x = words[np.uintp(k)]  # an unsigned index: no wraparound test per word
        stray |= (_zero_bytes(x ^ u) | _zero_bytes(x ^ d) | _zero_bytes(x ^ l) | _zero_bytes(x ^ r)) ^ _HIGH
    for k in range(lo + whole, hi):
        b = data[k]
        if b != 85 and b != 68 and b != 76 and b != 82:
            return True
    return stray != 0


@njit
def move_letters_only(data, offsets):
    """bool (n,): does ``data[offsets[i]:offsets[i + 1]]`` hold only the bytes of U, D, L, R."""
    n = len(offsets) - 1
    ok = np.ones(n, dtype=np.bool_)
    if n == 0 or not _stray_bytes(data, offsets[0], offsets[n]):  # the usual case: one pass, no per-row work
        return ok
    for i in range(n):
        ok[i] = not _stray_bytes(data, offsets[i], offsets[i + 1])
    return ok


@njit
def _phase_words(data):
    """``data`` as eight arrays of words, the p-th starting at byte p: the word at any byte ``at`` is
    ``words[at % 8][at // 8]`` (zero-copy views; the words that would run past the end are left out)."""
    n = data.size
    return (
        data[0 : n // 8 * 8].view(np.uint64),
        data[1 : 1 + (n - 1) // 8 * 8].view(np.uint64),
        data[2 : 2 + (n - 2) // 8 * 8].view(np.uint64),
        data[3 : 3 + (n - 3) // 8 * 8].view(np.uint64),
        data[4 : 4 + (n - 4) // 8 * 8].view(np.uint64),
        data[5 : 5 + (n - 5) // 8 * 8].view(np.uint64),
        data[6 : 6 + (n - 6) // 8 * 8].view(np.uint64),
        data[7 : 7 + (n - 7) // 8 * 8].view(np.uint64),
    )


@njit
def id_runs(data, offsets, limit):
    """(starts, status): the first row of each run of ids of one byte length, each greater than the one
    before (bytewise); status 1 when two neighbours are equal, 2 when there are more than ``limit`` runs
    (``starts`` is then empty), else 0."""
    n = len(offsets) - 1
    starts = np.zeros(limit, dtype=np.int64)
    if n == 0:
        return starts[:0], 0
    words = _phase_words(data) if data.size >= 8 else _phase_words(np.zeros(16, dtype=np.uint8))
    count = 1
    for i in range(1, n):
        a, b = offsets[i - 1], offsets[i]
        width = b - a
        fresh = width != offsets[i + 1] - b
        if not fresh:
            k = 0
            wa, wb = words[a % 8], words[b % 8]
            while k + 8 <= width and wa[(a + k) // 8] == wb[(b + k) // 8]:  # equal prefixes a word at a time
                k += 8
            while k < width and data[a + k] == data[b + k]:
                k += 1
            if k == width:
                return starts[:0], 1
            fresh = data[b + k] < data[a + k]
        if fresh:
            if count == limit:
                return starts[:0], 2
            starts[count] = i
            count += 1
    return starts[:count], 0
