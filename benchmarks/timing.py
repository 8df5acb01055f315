"""Timing helper shared by the benchmarks (for the plain-Python twins timed beside a kernel)."""

from __future__ import annotations

import time


def best_of(fn, repeat: int = 3) -> float:
    """The best wall time of ``repeat`` calls of ``fn()``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best
