"""Rows of Arrow strings in a fixed set of distinct strings (a bank's board ids), hashed once.

``StringRows(ids).rows(values)`` gives, for a string array or chunked array, each value's index in ``ids`` and -1
for a value that is not there (or null): what ``pc.index_in(values, value_set=ids)`` gives with nulls as -1, but
the set's hash table is built once (``fastspe.kernels.id_hash``), not again for every batch, and the strings
are read straight from Arrow's buffers.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..kernels.id_hash import id_rows, id_table


def _buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(data, offsets) of a string or large string array, without a copy (offsets sliced to the array)."""
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        array = array.cast(pa.string())
    _, offset_buf, data_buf = array.buffers()[:3]
    n = len(array)
    if n == 0:
        return np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.int64)
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(offset_buf, dtype=width)[array.offset : array.offset + n + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None and data_buf.size else np.zeros(1, np.uint8)
    return data, offsets


class StringRows:
    """The rows of strings in ``ids`` (a string array of distinct values, no nulls)."""

    def __init__(self, ids: pa.Array | pa.ChunkedArray, min_bits: int = 0):
        ids = ids.combine_chunks() if isinstance(ids, pa.ChunkedArray) else ids
        self._data, self._offsets = _buffers(ids)
        self._ids = ids  # (keeps the buffers alive)
        self._slots = id_table(self._data, self._offsets, min_bits)

    def rows(self, values: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """int64 (len(values),), each value's row in ``ids``, -1 where it is absent or null."""
        chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
        parts = [self._chunk_rows(chunk) for chunk in chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def _chunk_rows(self, chunk: pa.Array) -> np.ndarray:
        if len(chunk) == 0:
            return np.zeros(0, dtype=np.int64)
        data, offsets = _buffers(chunk)
        rows = id_rows(self._slots, self._data, self._offsets, data, offsets)
        if chunk.null_count:
            rows[pc.is_null(chunk).to_numpy(zero_copy_only=False)] = -1
        return rows


__all__ = ["StringRows"]
