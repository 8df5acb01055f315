"""The Hanoi kernels (goal distances, batched replay), compiled with ``fastspe.kernels.njit``.

The error codes the replay kernel returns live here, not in ``rules``: fastspe's kernel cache is stamped with every
module of this folder, so a constant a compiled kernel holds must be defined in it to invalidate the cache when it
changes.
"""

EMPTY_PEG, LARGER_ON_SMALLER, FORBIDDEN_MOVE = 1, 2, 5  # the domain's own error codes (0, 3 and 4 are shared)
