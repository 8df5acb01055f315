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


def target(met: bool, what: str) -> None:
    """Assert a speed target, unless ``FASTSPE_BENCH_GATE=ratios``: the CI pass gates on ratio drops against
    the saved table (``python -m benchmarks.compare``), not on absolute targets a loaded runner may miss."""
    import os

    if os.environ.get("FASTSPE_BENCH_GATE") != "ratios":
        assert met, f"speed target missed: {what}"
