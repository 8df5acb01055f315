"""A bank's row checks in one pass over its bytes (``boundary.bank_meaning`` raises for the rows they flag).

- ``board_faults``: per board, is its goal not its layout's, is -1 not exactly on the blocked cells, are the
  values on it not the goal's values, and h(initial), all in one pass over the two boards;
- ``move_letters_only``: per string of an Arrow string array, does it hold only U, D, L, R;
- ``id_runs``: the rows where a run of strictly increasing ids of one byte length starts;
- ``ascii_only``: is every byte of a buffer below 128 (ASCII text is valid UTF-8).

Each flag is computed for every row (an error counts the rows like the first), and nothing raises: the
caller has range-checked the cells (-1..63). Plain-Python twins: ``tests/naive_bank_check.py``.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit

SPAN = 128  # value + 1 of an int8 cell, masked to 0..127: the width of the distance table's last axis


@njit
def board_faults(initial, goal, layout, goals, steps):
    """``initial``, ``goal``: int8 (n, width); ``layout``: int64 (n,), each board's row of ``goals`` (int8
    (L, width), -1 padded) and ``steps`` (int64 (L, width, SPAN): the distance from a cell to the goal cell
    of value v at ``[.., v + 1]``, 0 for the blank, blocks and values beyond the board). Returns bool (n,)
    ``goal_wrong``, ``blocks_wrong``, ``values_wrong`` (the set of values on the board is not the goal's,
    or a value is outside -1..63) and int64 (n,) ``h`` (meaningful where the three are False)."""
    n, width = initial.shape
    lays = goals.shape[0]
    one = np.uint64(1)
    goal_lo = np.zeros(lays, dtype=np.uint64)  # the set of value + 1 on each goal: bits 0..63, then 64
    goal_hi = np.zeros(lays, dtype=np.uint64)
    for j in range(lays):
        for c in range(width):
            v = np.int64(goals[j, c]) + 1
            if v < 64:
                goal_lo[j] |= one << np.uint64(v)
            else:
                goal_hi[j] |= one << np.uint64(v - 64)
    goal_wrong = np.zeros(n, dtype=np.bool_)
    blocks_wrong = np.zeros(n, dtype=np.bool_)
    values_wrong = np.zeros(n, dtype=np.bool_)
    h = np.zeros(n, dtype=np.int64)
    for i in range(n):
        j = layout[i]
        g_bad, b_bad, v_bad = False, False, False
        lo, hi = np.uint64(0), np.uint64(0)
        total = 0
        for c in range(width):
            want = goals[j, c]
            a = initial[i, c]
            g_bad |= goal[i, c] != want
            b_bad |= (a == -1) != (want == -1)
            raw = np.int64(a) + 1
            v_bad |= (raw < 0) | (raw > 64)  # -128..-2 and 64..127: never on a goal
            v = raw & (SPAN - 1)  # in the tables whatever the value
            if v < 64:
                lo |= one << np.uint64(v)
            else:
                hi |= one << np.uint64(v & 63)
            total += steps[j, c, v]
        goal_wrong[i], blocks_wrong[i] = g_bad, b_bad
        values_wrong[i] = v_bad or lo != goal_lo[j] or hi != goal_hi[j]
        h[i] = total
    return goal_wrong, blocks_wrong, values_wrong, h


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
    words = data[lo:lo + whole].view(np.uint64)
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
def ascii_only(data, lo, hi):
    """Every byte of ``data[lo:hi]`` below 128 (eight bytes a step)."""
    lo, hi = _clamp(data, lo, hi)
    whole = (hi - lo) // 8 * 8
    words = data[lo:lo + whole].view(np.uint64)
    seen = np.uint64(0)
    for k in range(words.size):
        seen |= words[np.uintp(k)]
    for k in range(lo + whole, hi):
        seen |= np.uint64(data[k])
    return (seen & _HIGH) == 0


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
    return (data[0:n // 8 * 8].view(np.uint64), data[1:1 + (n - 1) // 8 * 8].view(np.uint64),
            data[2:2 + (n - 2) // 8 * 8].view(np.uint64), data[3:3 + (n - 3) // 8 * 8].view(np.uint64),
            data[4:4 + (n - 4) // 8 * 8].view(np.uint64), data[5:5 + (n - 5) // 8 * 8].view(np.uint64),
            data[6:6 + (n - 6) // 8 * 8].view(np.uint64), data[7:7 + (n - 7) // 8 * 8].view(np.uint64))


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
