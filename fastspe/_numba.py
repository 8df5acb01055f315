"""The one place that wraps ``numba.njit`` with fastspe's options.

Every kernel is compiled with ``cache=True`` so that each command after the first starts fast;
set ``FASTSPE_NUMBA_CACHE=0`` to turn the on-disk cache off (read-only installs, debugging).
No ``fastmath``: NaN and inf keep their IEEE meaning, which the metrics rely on.
"""

from __future__ import annotations

import os

import numba

_OFF = {"0", "false", "no", "off"}
CACHE = os.environ.get("FASTSPE_NUMBA_CACHE", "1").strip().lower() not in _OFF


def njit(*args, **kwargs):
    """``numba.njit`` with fastspe's defaults (cache, nogil, numpy error model)."""
    kwargs.setdefault("cache", CACHE)
    kwargs.setdefault("nogil", True)
    kwargs.setdefault("error_model", "numpy")
    return numba.njit(*args, **kwargs)


prange = numba.prange
