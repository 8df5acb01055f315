"""Parquet files that prove their content: page CRCs, a content digest in the metadata, atomic writes.

Two guards, because they catch different damage:

- Parquet page checksums (CRC-32, written and verified by pyarrow) catch bit flips in the stored pages;
- ``fastspe.content_blake2b`` in the schema metadata is a digest of the decoded table, so a file whose
  pages still decode to other values (a flip inside a value that the CRC of an old writer did not
  cover, a hand-edited copy that kept the metadata) is refused too.

A file without the digest (written by another tool, or by fastspe before 0.2) is read with a warning.
"""

from __future__ import annotations

import hashlib
import warnings

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..io import atomic_path
from .errors import InputError

DIGEST_KEY = b"fastspe.content_blake2b"
KIND_KEY = b"fastspe.kind"
FORMAT_KEY = b"fastspe.format"
FORMAT_VERSION = b"1"


def table_digest(table: pa.Table) -> str:
    """BLAKE2b over the decoded columns of ``table``: names, types, validity and values.

    Independent of chunking, schema metadata and the bytes behind null slots, so a table hashes the
    same before it is written and after it is read back.
    """
    h = hashlib.blake2b(digest_size=32)
    h.update(str(table.num_rows).encode())
    for name, column in zip(table.column_names, table.columns):
        h.update(f"\x00{name}\x00".encode())
        _hash_array(h, column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column)
    return h.hexdigest()


def _hash_array(h, column: pa.Array) -> None:
    """Feed one array to ``h``: lists as their lengths and flattened values, so that the name of a list's
    child field (``item`` in memory, ``element`` after a Parquet round trip) does not matter."""
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
    """Null slots set to the type's zero (their validity is hashed apart)."""
    try:
        zero = pa.scalar("" if pa.types.is_string(column.type) or pa.types.is_large_string(column.type) else 0,
                         type=column.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return column  # nested types: their IPC form is already canonical enough for our files
    return pc.fill_null(column, zero)


def _ipc_bytes(array: pa.Array) -> bytes:
    batch = pa.record_batch([array], names=["c"])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def write_parquet(table: pa.Table, path, kind: str) -> None:
    """Write ``table`` atomically with page checksums and its content digest in the metadata."""
    meta = dict(table.schema.metadata or {})
    meta.pop(b"pandas", None)  # pandas' own index bookkeeping: not part of fastspe's formats
    meta.update({KIND_KEY: kind.encode(), FORMAT_KEY: FORMAT_VERSION, DIGEST_KEY: table_digest(table).encode()})
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, write_page_checksum=True, compression="zstd")


def read_parquet(path, kind: str, columns: list[str] | None = None) -> pa.Table:
    """Read a fastspe Parquet file, verifying page checksums and the content digest.

    Raises ``InputError`` naming the file when it is not Parquet, is damaged, or its content does not
    match its digest; warns when the file carries no digest.
    """
    try:
        table = pq.read_table(path, page_checksum_verification=True)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: not a readable Parquet file ({_short(exc)}); it is damaged or not Parquet") from None
    meta = table.schema.metadata or {}
    stored = meta.get(DIGEST_KEY)
    if stored is None:
        warnings.warn(f"{path}: no fastspe content checksum (written by another tool or an older fastspe); "
                      "its content cannot be proven unchanged", stacklevel=2)
    elif stored.decode() != table_digest(table):
        raise InputError(f"{path}: content does not match the checksum written with it: the file was changed or "
                         f"damaged after fastspe wrote it; re-create it (a {meta.get(KIND_KEY, b'?').decode()} file)")
    if columns is not None:
        table = table.select([c for c in columns if c in table.column_names])
    return table


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
