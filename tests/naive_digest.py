"""The content digest as fastspe 0.2 computed it (``fastspe.content_blake2b``, format 1): each column's IPC stream put
together in a buffer, then hashed. ``fastspe.boundary.parquet`` hashes the same bytes without building the
streams; this twin is what it must agree with on every table, quirks included: Arrow's IPC writer keeps an
offset-0 buffer whole when it is within 64 bytes of the size needed, so those slack bytes are hashed too."""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.compute as pc

DIGEST_ROWS = 1 << 16


def naive_table_digest(table: pa.Table, slice_rows: int = DIGEST_ROWS, batches=None, algorithm="blake2b") -> str:
    """fastspe 0.2's ``ContentDigest`` fed ``table`` (or ``batches``, tables of one schema) one at a time,
    as it ran (serially here): the pending rows concatenated, full slices hashed, the rest kept. Format 2
    hashes the same bytes by ``algorithm="sha256"``."""

    def new():
        return hashlib.blake2b(digest_size=32) if algorithm == "blake2b" else hashlib.sha256()

    outer, pending, pending_rows, rows = new(), [], 0, 0
    for part in [table] if batches is None else batches:
        pending.append(part)
        pending_rows += part.num_rows
        rows += part.num_rows
        if pending_rows >= slice_rows:
            whole = pa.concat_tables(pending)
            full = (whole.num_rows // slice_rows) * slice_rows
            for start in range(0, full, slice_rows):
                outer.update(_slice_digest(whole.slice(start, slice_rows), new()))
            rest = whole.slice(full)
            pending, pending_rows = ([rest] if rest.num_rows else []), rest.num_rows
    if pending_rows or not rows:
        outer.update(_slice_digest(pa.concat_tables(pending) if pending else pa.table({}), new()))
    outer.update(str(rows).encode())
    return outer.hexdigest()


def _slice_digest(table: pa.Table, h) -> bytes:
    for name, column in zip(table.column_names, table.columns):
        h.update(f"\x00{name}\x00".encode())
        _hash_array(h, column.chunk(0) if column.num_chunks == 1 else column.combine_chunks())
    return h.digest()


def _hash_array(h, column: pa.Array) -> None:
    if column.null_count:
        h.update(_ipc_bytes(pc.is_valid(column)))
        column = _zero_nulls(column)
    kind = column.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        size = f"[{kind.list_size}]" if pa.types.is_fixed_size_list(kind) else ""
        h.update(f"list{size}\x00".encode())
        h.update(_ipc_bytes(pc.list_value_length(column).cast(pa.int64())))
        _hash_array(h, column.flatten())
    else:
        h.update(f"{kind}\x00".encode())
        h.update(_ipc_bytes(column))


def _zero_nulls(column: pa.Array) -> pa.Array:
    try:
        zero = pa.scalar(
            "" if pa.types.is_string(column.type) or pa.types.is_large_string(column.type) else 0, type=column.type
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return column
    return pc.fill_null(column, zero)


def _ipc_bytes(array: pa.Array) -> bytes:
    batch = pa.record_batch([array], names=["c"])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()
