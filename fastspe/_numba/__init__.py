"""The one place that wraps ``numba.njit`` with fastspe's options.

Every kernel is cached on disk so that each command after the first starts fast, in fastspe's own
cache (``fastspe._numba.cache``: safe when many processes share the folder, see there), not numba's
``cache=True``; set ``FASTSPE_NUMBA_CACHE=0`` to turn it off (read-only installs, debugging).
No ``fastmath``: NaN and inf keep their IEEE meaning, which the metrics rely on.

Numba reads ``NUMBA_NUM_THREADS`` when it is imported and fails deep inside itself (0, negative) or
warns and ignores it (junk); it is checked here first, so a bad value is one clear error.
"""

from __future__ import annotations

import os

from ..errors import UserError

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
        raise UserError(
            f"NUMBA_NUM_THREADS={raw!r}: must be a whole number of threads in 1..{MAX_THREADS}; "
            f"unset it to use every core"
        )


check_thread_variable()

import numba  # noqa: E402  (after the check: numba reads the variable on import)
from numba.core import types  # noqa: E402

from .folder import cache_dir, cache_enabled  # noqa: E402
from .._text import compile_notice  # noqa: E402

CACHE = cache_enabled()
compile_notice.listen()


def _cached(dispatcher, root=None):
    """Install fastspe's cache (in ``root``, default ``cache_dir()``) and the compile lock on one
    dispatcher; numba's own cache stays off."""
    from .cache import kernel_cache, locked_compile

    cache = kernel_cache(dispatcher.py_func, root)
    if cache is not None:
        dispatcher._cache = cache
        dispatcher.compile = locked_compile(dispatcher, cache)
    return dispatcher


def _plain_call_types(dispatcher):
    """Make a kernel called from another kernel compile for its arguments' plain types, never their literal values.

    numba types a constant argument (a byte-class mask, ``write=False``) as ``Literal[int](8)``, and an argument
    whose type inference is still under way first as the literal of its first assignment, and compiles the callee
    once per literal: ``skip`` compiled 6 times, once per mask. Unliteral, each helper compiles once, for int64 /
    bool; the callers convert their constants at the call.
    """
    literal_call_template = dispatcher.get_call_template

    def get_call_template(args, kws):
        return literal_call_template(
            tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()}
        )

    dispatcher.get_call_template = get_call_template
    return dispatcher


def njit(*args, **kwargs):
    """``numba.njit`` with fastspe's defaults (cached, nogil, numpy error model, plain call types, see
    ``_plain_call_types``); as ``@njit`` or ``@njit(option=...)``, without eager signatures (they would compile
    before the cache is on)."""
    cache = bool(kwargs.pop("cache", True)) and CACHE
    kwargs.setdefault("nogil", True)
    kwargs.setdefault("error_model", "numpy")
    if args and not callable(args[0]):
        raise TypeError("fastspe's njit takes no signatures: kernels compile lazily, per call types")

    def decorate(func):
        dispatcher = _plain_call_types(numba.njit(func, cache=False, **kwargs))
        return _cached(dispatcher) if cache else dispatcher

    return decorate(args[0]) if args else decorate


prange = numba.prange

__all__ = ["CACHE", "cache_dir", "check_thread_variable", "njit", "prange"]
