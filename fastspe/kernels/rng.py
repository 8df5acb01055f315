"""Counter-based random numbers keyed by (seed, stream, index).

Item ``index`` of stream ``stream`` always sees the same numbers, whichever thread computes it,
so parallel kernels are bit-identical at any thread count. The mixer is SplitMix64's finalizer;
a draw is ``mix64(key + counter * GAMMA)``, so no state is shared between items.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit
def mix64(z):
    """SplitMix64 finalizer of a uint64 (wrapping arithmetic)."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit
def stream_key(seed, stream, index):
    """The uint64 key of item ``index`` in ``stream`` under ``seed`` (all non-negative ints)."""
    k = mix64(np.uint64(seed) + GAMMA)
    k = mix64(k ^ (np.uint64(stream) * GAMMA + _M1))
    return mix64(k ^ (np.uint64(index) * _M2 + GAMMA))


@njit
def random_u64(key, counter):
    """The ``counter``-th uint64 of the sequence keyed by ``key``."""
    return mix64(key + (np.uint64(counter) + np.uint64(1)) * GAMMA)


@njit
def random_below(key, counter, n):
    """An integer in [0, n) for 1 <= n < 2**32 (multiply-shift; bias below n / 2**32)."""
    x = random_u64(key, counter) >> _S32
    return np.int64((x * np.uint64(n)) >> _S32)
