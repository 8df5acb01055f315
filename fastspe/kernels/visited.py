"""The exact visited set of one replayed plan, for every domain's replay kernel: a per-plan open-addressing table of
one-word state keys, 0 marking an empty slot (a domain's key must never be 0).

The table stores the full key, so the hash only picks the slot: a collision costs a probe, never a wrong answer.
It is sized for the plan (``table_bits``: at most a quarter full, at least 16 slots), cleared once per plan, and
probed inline (``seen_again``), so a domain's kernel pays no call per move. Revisits = states visited - distinct
states, the start included: add ``seen_again`` for each state after a move.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the key times this, its top bits pick the slot


@njit(inline="always")
def table_bits(length):
    """log2 of the table size for a plan of ``length`` moves (load factor <= 1/4, at least 16)."""
    need = 4 * (length + 1)
    b = 4
    while (1 << b) < need:
        b += 1
    return b


@njit(inline="always")
def start_table(table, key, length):
    """Clear the first slots of ``table`` (uint64, at least ``1 << table_bits(length)``) for a plan of ``length``
    moves and put the start state's ``key`` in; returns (shift, mask) for ``seen_again``."""
    tbits = table_bits(length)
    mask = (1 << tbits) - 1
    down = np.uint64(64 - tbits)
    table[: mask + 1] = 0
    table[np.int64((key * GOLDEN) >> down)] = key
    return down, np.uint64(mask)


@njit(inline="always")
def seen_again(table, key, down, mask):
    """Put ``key`` in the table; 1 when it was there already, else 0 (a count, not a branch: whether a state is
    new is a coin toss for the branch predictor)."""
    slot = (key * GOLDEN) >> down
    k = table[slot]
    while k != key and k != 0:  # rare with the table at most a quarter full
        slot = (slot + np.uint64(1)) & mask
        k = table[slot]
    table[slot] = key
    return np.int64(k == key)
