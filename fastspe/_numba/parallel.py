"""Atomic read-modify-write on int64 array words, for kernels whose threads mark one shared bit array.

Numba has no CPU atomics; these emit LLVM's ``atomicrmw`` (monotonic order: each word's updates are
atomic, and the sweeps that use them need nothing more, since every thread's writes are read only
after the parallel region ends). Each returns the word as it was before the update, so exactly one
of several threads setting the same bits sees them unset (and counts the state once).
"""

from __future__ import annotations

import numba
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _rmw(op: str):
    def typer(typingctx, arr, idx, val):
        if not (
            isinstance(arr, types.Array)
            and arr.dtype == types.int64
            and arr.ndim == 1
            and isinstance(idx, types.Integer)
            and isinstance(val, types.Integer)
        ):
            return None
        sig = types.int64(arr, idx, val)

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            index = context.cast(builder, args[1], signature.args[1], types.intp)
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [index])
            value = context.cast(builder, args[2], signature.args[2], types.int64)
            return builder.atomic_rmw(op, ptr, value, "monotonic")

        return sig, codegen

    typer.__name__ = f"atomic_{op}"
    return intrinsic(typer)


atomic_or = _rmw("or")  # atomic_or(words, i, bits): words[i] |= bits; returns the old word
atomic_and = _rmw("and")  # atomic_and(words, i, bits): words[i] &= bits; returns the old word
atomic_add = _rmw("add")  # atomic_add(words, i, n): words[i] += n; returns the old word (a work counter)


def thread_count() -> int:
    """The threads a parallel kernel runs on now (``NUMBA_NUM_THREADS``, ``numba.set_num_threads``)."""
    return int(numba.get_num_threads())


__all__ = ["atomic_add", "atomic_and", "atomic_or", "thread_count"]
