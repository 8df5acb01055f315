"""Numba kernels. They take and return contiguous NumPy arrays, never raise on user input, and
do no I/O; the domain modules validate everything before calling them."""

# The largest seed fastspe takes anywhere (bootstrap, bank designs, baseline planners, a model's
# sampling seed): the counter-based RNG (``kernels.rng``) keys on it as an int64, the widest seed every
# kernel argument and provider API holds. Here, not in ``rng``, so option parsing imports no numba.
MAX_SEED = 2**63 - 1
