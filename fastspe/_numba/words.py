"""An unaligned little-endian load of eight bytes from a byte array, so that a kernel compares a run of bytes a
word at a time.

Numba has no unaligned load (viewing a ``uint8`` array as ``uint64`` needs an aligned start and a whole number
of words), so ``load_word`` emits LLVM's ``load`` with alignment 1: x86-64 and ARMv8 read such words at full
speed.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def load_word(typingctx, arr, idx):
    """``arr[idx:idx + 8]`` (a C-contiguous uint8 array; the caller keeps ``idx + 8 <= len(arr)``) as one
    little-endian uint64."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.uint8 and arr.ndim == 1 and arr.layout == "C"
            and isinstance(idx, types.Integer)):
        return None
    sig = types.uint64(arr, idx)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [index])
        word_ptr = builder.bitcast(ptr, context.get_value_type(types.uint64).as_pointer())
        return builder.load(word_ptr, align=1)

    return sig, codegen


__all__ = ["load_word"]
