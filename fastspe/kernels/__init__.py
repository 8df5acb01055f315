"""Numba kernels shared by every domain (the bootstrap, answer parsing, JSONL scanning, id hashing, the counter-based
RNG, the exact visited set of a replayed plan). They take and return contiguous NumPy arrays, never raise on user
input, and do no I/O; the modules that call them validate everything first. A domain's own kernels live in its
folder (``fastspe/domains/NAME/kernels``), a plugin's in its package: both compile with ``njit`` and ``prange`` from
here, which cache them in fastspe's kernel cache (``fastspe cache info``)."""

# The largest seed fastspe takes anywhere (bootstrap, bank designs, baseline planners, a model's
# sampling seed): the counter-based RNG (``kernels.rng``) keys on it as an int64, the widest seed every
# kernel argument and provider API holds. Here, not in ``rng``, so option parsing imports no numba.
MAX_SEED = 2**63 - 1
# Trials per board key of a baseline planner's random stream: keys below 2**32 keep a stream's index in 52 bits.
TRIAL_SLOTS = 1 << 20

__all__ = ["MAX_SEED", "TRIAL_SLOTS", "njit", "prange"]


def __getattr__(name: str):
    if name in ("njit", "prange"):  # numba loads on first use: option parsing imports this package
        from .._numba import njit, prange

        return {"njit": njit, "prange": prange}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
