"""Unaligned little-endian loads and stores of eight bytes in a byte array, so that a kernel compares or copies a
run of bytes a word at a time.

Numba has no unaligned load (viewing a ``uint8`` array as ``uint64`` needs an aligned start and a whole number
of words), so ``load_word`` and ``store_word`` emit LLVM's ``load`` and ``store`` with alignment 1: x86-64 and
ARMv8 read and write such words at full speed.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from . import njit


@intrinsic
def load_word(typingctx, arr, idx):
    """``arr[idx:idx + 8]`` (a C-contiguous uint8 array; the caller keeps ``idx + 8 <= len(arr)``) as one
    little-endian uint64."""
    if not (
        isinstance(arr, types.Array)
        and arr.dtype == types.uint8
        and arr.ndim == 1
        and arr.layout == "C"
        and isinstance(idx, types.Integer)
    ):
        return None
    sig = types.uint64(arr, idx)

    def codegen(context, builder, signature, args):
        return builder.load(_word_pointer(context, builder, signature, args), align=1)

    return sig, codegen


@intrinsic
def store_word(typingctx, arr, idx, word):
    """Write the uint64 ``word`` over ``arr[idx:idx + 8]`` (a C-contiguous, writable uint8 array; the caller keeps
    ``idx + 8 <= len(arr)``), little-endian."""
    if not (
        isinstance(arr, types.Array)
        and arr.dtype == types.uint8
        and arr.ndim == 1
        and arr.layout == "C"
        and arr.mutable
        and isinstance(idx, types.Integer)
        and word == types.uint64
    ):
        return None
    sig = types.void(arr, idx, word)

    def codegen(context, builder, signature, args):
        builder.store(args[2], _word_pointer(context, builder, signature, args), align=1)
        return context.get_dummy_value()

    return sig, codegen


def _word_pointer(context, builder, signature, args):
    """A uint64 pointer to ``args[0][args[1]]``."""
    ary = context.make_array(signature.args[0])(context, builder, args[0])
    index = context.cast(builder, args[1], signature.args[1], types.intp)
    ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [index])
    return builder.bitcast(ptr, context.get_value_type(types.uint64).as_pointer())


@njit
def same_bytes(a, lo, hi, b, b_lo):
    """Whether ``a[lo:hi]`` and ``b[b_lo:b_lo + hi - lo]`` are the same bytes, compared a word at a time (the last
    word overlapping the one before: nothing outside the two runs is read)."""
    n = hi - lo
    if n < 8:
        for j in range(n):
            if a[lo + j] != b[b_lo + j]:
                return False
        return True
    j = 0
    while j + 8 < n:
        if load_word(a, lo + j) != load_word(b, b_lo + j):
            return False
        j += 8
    return load_word(a, hi - 8) == load_word(b, b_lo + n - 8)


__all__ = ["load_word", "same_bytes", "store_word"]
