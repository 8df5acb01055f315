"""The one place that wraps ``numba.njit`` with fastspe's options.

Every kernel is compiled with ``cache=True`` so that each command after the first starts fast;
set ``FASTSPE_NUMBA_CACHE=0`` to turn the on-disk cache off (read-only installs, debugging).
No ``fastmath``: NaN and inf keep their IEEE meaning, which the metrics rely on.

Numba reads ``NUMBA_NUM_THREADS`` when it is imported and fails deep inside itself (0, negative) or
warns and ignores it (junk); it is checked here first, so a bad value is one clear error.
"""

from __future__ import annotations

import os

from .boundary.errors import UserError

MAX_THREADS = 4096


def check_thread_variable(environ=os.environ) -> None:
    """A ValueError unless ``NUMBA_NUM_THREADS`` is unset or a whole number in 1..MAX_THREADS."""
    raw = environ.get("NUMBA_NUM_THREADS")
    if raw is None:
        return
    try:
        ok = 1 <= int(raw.strip()) <= MAX_THREADS
    except ValueError:
        ok = False
    if not ok:
        raise UserError(f"NUMBA_NUM_THREADS={raw!r}: must be a whole number of threads in 1..{MAX_THREADS}; "
                        f"unset it to use every core")


check_thread_variable()

import numba  # noqa: E402  (after the check: numba reads the variable on import)

_OFF = {"0", "false", "no", "off"}
CACHE = os.environ.get("FASTSPE_NUMBA_CACHE", "1").strip().lower() not in _OFF


def cache_dir() -> str:
    """Where compiled kernels are cached: ``NUMBA_CACHE_DIR`` if set, else the user's cache folder
    (``$XDG_CACHE_HOME`` or ``~/.cache``) under ``fastspe/numba/<version>``, never inside the installed
    package, so that uninstalling or upgrading fastspe cannot leave stale compiled code behind it."""
    from . import __version__

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fastspe", "numba", __version__)


if CACHE and not numba.config.CACHE_DIR:  # numba looks this up when it first caches a kernel
    numba.config.CACHE_DIR = cache_dir()


def njit(*args, **kwargs):
    """``numba.njit`` with fastspe's defaults (cache, nogil, numpy error model)."""
    kwargs.setdefault("cache", CACHE)
    kwargs.setdefault("nogil", True)
    kwargs.setdefault("error_model", "numpy")
    return numba.njit(*args, **kwargs)


prange = numba.prange
