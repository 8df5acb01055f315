"""Parquet files that prove their content: page CRCs, a digest in the metadata, atomic writes.

Two guards, because they catch different damage:

- Parquet page checksums (CRC-32, written and verified by pyarrow) catch bit flips in the stored pages;
- a SHA-256 digest in the file's metadata catches what a CRC does not: a page whose CRC was recomputed (a
  hand-edited copy that kept the metadata, another writer's pages under fastspe's footer), a flip the CRC of an
  old writer did not cover, and a flip in the footer, which no CRC covers (a column's name, its type, its
  nulls). Format 3 (``fastspe.file_sha256``) hashes the whole file as written, compressed, with the digest's
  own 64 characters read as zeros: the pages as the writer hands them over, then the footer. That is a pass
  over the file (a twentieth of its decoded size for a run's verdicts), made while it is written and while it
  is decoded. Formats 1 and 2 hashed the decoded columns instead (``ContentDigest``: BLAKE2b under
  ``fastspe.content_blake2b``, SHA-256 under ``fastspe.content_sha256``); their files are still verified so.

A file without a digest (written by another tool, or by fastspe before 0.2) is read with a warning.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .files import arrow_file, atomic_path
from .errors import InputError
from .. import __version__
from ..errors import UserError

FILE_KEY = b"fastspe.file_sha256"  # format 3: SHA-256 of the file, this digest's value read as zeros
FILE = "file"  # the algorithm ``stored_digest`` names for it
_PLACEHOLDER = b"0" * 64  # the value written first, and read in the digest's place
DIGEST_KEY = b"fastspe.content_sha256"
# the metadata key of a content digest (formats 1 and 2) names its hash: format 2 SHA-256, format 1 BLAKE2b
DIGEST_KEYS = {DIGEST_KEY: "sha256", b"fastspe.content_blake2b": "blake2b"}
KIND_KEY = b"fastspe.kind"
FORMAT_KEY = b"fastspe.format"
FORMAT_VERSION = b"3"
VERSION_KEY = b"fastspe.version"  # the fastspe that wrote the file (a verdicts file: its scorer's, not the runner's)


DIGEST_ROWS = 1 << 16  # rows per hashed slice: a stream hashes the same slices as a whole table


def stored_digest(meta: dict) -> tuple[str, str] | None:
    """(hash name, hex digest) stored in a file's key-value metadata, or None; the name is ``FILE`` for a
    digest of the file's bytes (format 3), else the hash of a content digest."""
    if FILE_KEY in meta:
        return FILE, meta[FILE_KEY].decode(errors="replace")
    for key, algorithm in DIGEST_KEYS.items():
        if key in meta:
            return algorithm, meta[key].decode(errors="replace")
    return None


def _new_hash(algorithm: str):
    return hashlib.blake2b(digest_size=32) if algorithm == "blake2b" else hashlib.new(algorithm)


class ContentDigest:
    """A hash (SHA-256, or format 1's BLAKE2b) of the decoded columns of a table fed in any batches: names,
    types, validity, values.

    The rows are hashed in slices of ``DIGEST_ROWS``, whatever the batches they came in, so a table hashes
    the same whether it is written at once or streamed, and before it is written and after it is read
    back (chunking, schema metadata and the bytes behind null slots do not count).
    """

    def __init__(self, algorithm: str = "sha256"):
        self.algorithm = algorithm
        self._outer = _new_hash(algorithm)
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self.rows = 0

    def update(self, data: pa.Table | pa.RecordBatch) -> None:
        table = pa.Table.from_batches([data]) if isinstance(data, pa.RecordBatch) else data
        self._pending.append(table)
        self._pending_rows += table.num_rows
        self.rows += table.num_rows
        if self._pending_rows >= DIGEST_ROWS:
            whole = pa.concat_tables(self._pending)
            full = (whole.num_rows // DIGEST_ROWS) * DIGEST_ROWS
            slices = [whole.slice(start, DIGEST_ROWS) for start in range(0, full, DIGEST_ROWS)]
            if len(slices) > 1:  # hashlib and Arrow's IPC writer let go of the GIL: slices hash in parallel
                with ThreadPoolExecutor(min(len(slices), os.cpu_count() or 1)) as pool:
                    digests = list(pool.map(self._slice_digest, slices))
            else:
                digests = [self._slice_digest(t) for t in slices]
            for d in digests:
                self._outer.update(d)
            rest = whole.slice(full)  # an empty slice still holds the whole table's buffers: drop it
            self._pending, self._pending_rows = ([rest] if rest.num_rows else []), rest.num_rows

    def hexdigest(self) -> str:
        if self._pending_rows or not self.rows:
            self._outer.update(self._slice_digest(pa.concat_tables(self._pending) if self._pending else pa.table({})))
            self._pending, self._pending_rows = [], 0
        self._outer.update(str(self.rows).encode())
        return self._outer.hexdigest()

    def _slice_digest(self, table: pa.Table) -> bytes:
        h = _new_hash(self.algorithm)
        for name, column in zip(table.column_names, table.columns):
            h.update(f"\x00{name}\x00".encode())
            _hash_array(h, column.chunk(0) if column.num_chunks == 1 else column.combine_chunks())
        return h.digest()


def table_digest(table: pa.Table, algorithm: str = "sha256") -> str:
    """The ``ContentDigest`` of a whole table."""
    digest = ContentDigest(algorithm)
    digest.update(table)
    return digest.hexdigest()


def _hash_array(h, column: pa.Array) -> None:
    """Feed one array to ``h``: lists as their lengths and flattened values, so that the name of a list's
    child field (``item`` in memory, ``element`` after a Parquet round trip) does not matter."""
    if column.null_count:
        _hash_ipc(h, pc.is_valid(column))
        column = _zero_nulls(column)
    kind = column.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        size = f"[{kind.list_size}]" if pa.types.is_fixed_size_list(kind) else ""
        h.update(f"list{size}\x00".encode())
        _hash_ipc(h, _list_lengths(column))
        _hash_array(h, column.flatten())
    else:
        h.update(f"{kind}\x00".encode())
        _hash_ipc(h, column)


def _list_lengths(column: pa.Array) -> pa.Array:
    """int64 length of each list (null for a null list); for fixed-size lists without nulls, a constant
    array made once per size and length (the same IPC bytes, without a pass over the lists)."""
    if pa.types.is_fixed_size_list(column.type) and not column.null_count:
        return _constant_lengths(column.type.list_size, len(column))
    return pc.list_value_length(column).cast(pa.int64())


@functools.lru_cache(maxsize=8)
def _constant_lengths(size: int, rows: int) -> pa.Array:
    return pa.array(np.full(rows, size, dtype=np.int64))


def _zero_nulls(column: pa.Array) -> pa.Array:
    """Null slots set to the type's zero (their validity is hashed apart)."""
    try:
        zero = pa.scalar(
            "" if pa.types.is_string(column.type) or pa.types.is_large_string(column.type) else 0, type=column.type
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return column  # nested types: their IPC form is already canonical enough for our files
    return pc.fill_null(column, zero)


class _HashSink:
    """A write-only file that feeds what it is given to a hash: Arrow's IPC writer hands it the framing as
    small ``bytes`` and each body buffer as the array's own ``Buffer`` (no copy), so a column is hashed
    without its IPC stream ever being put together in memory."""

    closed = False

    def __init__(self, h):
        self._h = h

    def write(self, data) -> int:
        self._h.update(data)
        return memoryview(data).nbytes

    def flush(self) -> None:
        pass


def _hash_ipc(h, array: pa.Array) -> None:
    """Feed ``h`` the IPC stream of ``array`` as one column ``c``: the bytes a stream written to a buffer
    would hold, framing and padding included (the digest of files written before stays the same)."""
    batch = pa.record_batch([array], names=["c"])
    with pa.ipc.new_stream(pa.PythonFile(_HashSink(h), mode="w"), batch.schema) as writer:
        writer.write_batch(batch)


@contextlib.contextmanager
def parquet_stream(path, kind: str, schema: pa.Schema | None = None) -> Iterator[Callable[[pa.Table], None]]:
    """Yield ``write(table)``; the file appears under ``path`` only when the block ends without error.

    Each table becomes row groups (with page checksums); the first fixes the schema unless ``schema`` is
    given, and later ones are cast to it (a column that was all null in the first batch may gain a type;
    any other change raises ``ValueError``). The file is hashed as it grows (read back after each table, from
    the page cache); at the close the footer is hashed too, with a placeholder where the digest goes, and the
    digest is then written over the placeholder.
    """
    state: dict = {"schema": schema, "writer": None}
    with atomic_path(path) as tmp, _GrowingFileHash(tmp) as digest, contextlib.ExitStack() as stack:

        def write(table: pa.Table) -> None:
            if state["writer"] is None:
                meta = dict(state["schema"].metadata or {}) if state["schema"] is not None else {}
                meta.update(table.schema.metadata or {})
                meta.pop(b"pandas", None)  # pandas' index bookkeeping is not part of fastspe's formats
                base = state["schema"] if state["schema"] is not None else table.schema
                state["schema"] = base.with_metadata(meta) if meta else base.remove_metadata()
                sink = stack.enter_context(arrow_file(tmp, "wb"))
                state["writer"] = pq.ParquetWriter(
                    sink, state["schema"], write_page_checksum=True, compression="zstd", **_encodings(table)
                )
            target = state["schema"]
            if table.schema.names != target.names:
                raise UserError(f"columns {table.schema.names} differ from the first batch's {target.names}")
            table = table.cast(target) if not table.schema.equals(target) else table
            state["writer"].write_table(table)
            digest.catch_up()

        try:
            yield write
            if state["writer"] is None:
                raise UserError(f"{path}: nothing to write")
            digest.catch_up(footer=True)
            state["writer"].add_key_value_metadata(
                {
                    KIND_KEY: kind.encode(),
                    FORMAT_KEY: FORMAT_VERSION,
                    VERSION_KEY: __version__.encode(),
                    FILE_KEY: _PLACEHOLDER,
                }
            )
        finally:
            if state["writer"] is not None:
                state["writer"].close()
        stack.close()  # (pyarrow's file, for a name pyarrow cannot take, closes before the digest is written in)
        digest.seal()


class _GrowingFileHash:
    """SHA-256 of a file that a writer appends to: ``catch_up`` hashes what was added since (with ``footer``, the
    footer starts after it), ``seal`` hashes the rest and writes the digest over the placeholder after
    ``FILE_KEY`` in the footer (the same length: no offset in the footer moves)."""

    def __init__(self, path):
        self._path, self._hash, self._size, self._footer_from = path, hashlib.sha256(), 0, 0

    def __enter__(self):
        self._fd = os.open(self._path, os.O_RDWR)
        return self

    def __exit__(self, *exc) -> None:
        os.close(self._fd)

    def catch_up(self, footer: bool = False, block: int = 8 << 20) -> None:
        end = os.fstat(self._fd).st_size
        while self._size < end:
            data = os.pread(self._fd, min(block, end - self._size), self._size)
            self._hash.update(data)
            self._size += len(data)
        if footer:
            self._footer_from = self._size

    def seal(self) -> None:
        self.catch_up()
        at = _digest_at(os.pread(self._fd, self._size - self._footer_from, self._footer_from), _PLACEHOLDER)
        if at is None:
            raise RuntimeError("the Parquet footer holds no digest placeholder after its key (a pyarrow change?)")
        os.pwrite(self._fd, self._hash.hexdigest().encode(), self._footer_from + at)


def _digest_at(footer: bytes, value: bytes) -> int | None:
    """Where ``value`` (the digest's 64 characters) begins right after ``FILE_KEY`` in ``footer`` (Thrift puts a
    field header and a length between them), or None."""
    key = footer.find(FILE_KEY)
    while key >= 0:
        at = footer.find(value, key + len(FILE_KEY), key + len(FILE_KEY) + 8 + len(value))
        if at >= 0:
            return at
        key = footer.find(FILE_KEY, key + 1)
    return None


def _file_digest(source: pa.NativeFile, stored: str, block: int = 8 << 20) -> str | None:
    """SHA-256 of ``source`` with the ``stored`` digest read as the placeholder, read a block at a time (hashlib
    lets go of the GIL); None where the footer does not hold it where fastspe puts it."""
    size = source.size()
    if size < 12:
        return None
    footer_len = int.from_bytes(source.read_at(4, size - 8), "little")
    start = size - 8 - footer_len
    if start < 0:
        return None
    h = hashlib.sha256()
    for at in range(0, start, block):
        h.update(source.read_at(min(block, start - at), at))
    footer = source.read_at(size - start, start)
    at = _digest_at(footer, stored.encode("ascii", errors="replace"))
    if at is None:
        return None
    h.update(footer[:at] + _PLACEHOLDER + footer[at + len(_PLACEHOLDER) :])
    return h.hexdigest()


def _encodings(first: pa.Table) -> dict:
    """Dictionary pages and statistics where they pay, judged on the first table written, for flat tables (the
    verdicts): a text column of more distinct values than half its rows (trial ids, plans) gets neither, since
    the writer would hash every value into a dictionary it then drops, and min and max of ids filter nothing.
    Nested tables (banks) keep pyarrow's defaults, which pay on their small-valued boards."""
    if any(pa.types.is_nested(field.type) for field in first.schema) or not first.num_rows:
        return {}
    plain = [
        name
        for name, column in zip(first.column_names, first.columns)
        if _is_text(column.type) and pc.count_distinct(column).as_py() > first.num_rows // 2
    ]
    if not plain:
        return {}
    rest = [name for name in first.column_names if name not in plain]
    return {"use_dictionary": rest, "write_statistics": rest}


def _is_text(kind: pa.DataType) -> bool:
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    )


def write_parquet(table: pa.Table, path, kind: str) -> None:
    """Write ``table`` atomically with page checksums and its content digest in the metadata."""
    with parquet_stream(path, kind, table.schema) as write:
        write(table)


# pyarrow's row-group length for a table written at once: a file streamed in groups of exactly this many rows
# holds the same bytes as one written from the whole table (the pages of a column chunk depend on how its
# input is chunked too, so each group is combined into one chunk per column before it is written)
ROW_GROUP_ROWS = 1024 * 1024


@contextlib.contextmanager
def parquet_row_groups(path, kind: str) -> Iterator[Callable[[pa.Table], None]]:
    """Like ``parquet_stream`` (atomic, page checksums, the content digest), but ``add(table)`` only buffers:
    a row group of ``ROW_GROUP_ROWS`` rows is written whenever that many are waiting, the rest at the end,
    so the file is byte for byte ``write_parquet`` of the concatenated tables and at most one row group
    waits in memory. Tables must share one schema."""
    waiting: list[pa.Table] = []
    rows = [0]
    with parquet_stream(path, kind) as write:

        def flush(count: int) -> None:
            group, taken = [], 0
            while taken < count:
                piece = waiting.pop(0)
                if taken + piece.num_rows > count:  # split: the rest waits for the next group
                    waiting.insert(0, piece.slice(count - taken))
                    piece = piece.slice(0, count - taken)
                group.append(piece)
                taken += piece.num_rows
            del piece
            rows[0] -= count
            write(_one_chunk(group))

        def add(table: pa.Table) -> None:
            waiting.append(table)
            rows[0] += table.num_rows
            while rows[0] >= ROW_GROUP_ROWS:
                flush(ROW_GROUP_ROWS)

        yield add
        if rows[0]:
            flush(rows[0])


def _one_chunk(pieces: list[pa.Table]) -> pa.Table:
    """The pieces as one table of one chunk per column, built a column at a time and letting go of each
    column of the pieces once it is copied (so the copy never holds twice the group)."""
    names, schema = pieces[0].column_names, pieces[0].schema
    columns = [[chunk for p in pieces for chunk in p.column(i).chunks] for i in range(len(names))]
    pieces.clear()
    out = []
    for i in range(len(names)):
        parts, columns[i] = columns[i], None
        out.append(pa.concat_arrays(parts) if len(parts) > 1 else parts[0])
        del parts
    return pa.Table.from_arrays(out, schema=schema)


def read_parquet(path, kind: str, columns: list[str] | None = None, then: Callable[[pa.Table], object] | None = None):
    """Read a fastspe Parquet file, verifying page checksums and its digest.

    Raises ``InputError`` naming the file when it is not Parquet, is damaged, or its content does not
    match its digest; warns when the file carries no digest. The digest is computed in a thread while the
    file is decoded (format 3) or while ``then(table)`` runs (formats 1, 2: a digest of the decoded table);
    a digest that does not match is the error raised, whatever ``then`` did.
    """
    with contextlib.ExitStack() as stack, ThreadPoolExecutor(1) as pool:  # (the thread ends before the file closes)
        digest = None
        try:
            source = stack.enter_context(_input_file(path))
            handle = pq.ParquetFile(source, page_checksum_verification=True)
            meta = handle.metadata.metadata or {}
            stored = stored_digest(meta)
            if stored is not None and stored[0] == FILE:
                digest = pool.submit(_file_digest, source, stored[1])
            table = handle.read()
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:  # a flipped byte in a column name
            raise InputError(
                f"{path}: not a readable Parquet file ({_short(exc)}); it is damaged or not Parquet"
            ) from None
        if stored is None:
            warnings.warn(
                f"{path}: no fastspe content checksum (written by another tool or an older fastspe); "
                "its content cannot be proven unchanged",
                stacklevel=2,
            )
        elif digest is None:
            digest = pool.submit(table_digest, table, stored[0])
        # pandas' index bookkeeping is not part of fastspe's formats, and a damaged copy breaks ``to_pandas``
        schema_meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != b"pandas"}
        out = table.replace_schema_metadata(schema_meta or None)
        if columns is not None:
            out = out.select([c for c in columns if c in out.column_names])
        failed = None
        if then is not None:
            try:
                out = then(out)
            except Exception as exc:  # the digest's verdict comes first: a damaged file says so
                failed = exc
        if digest is not None and stored[1] != _result(digest):
            kind_read = meta.get(KIND_KEY, b"?").decode(errors="replace")
            raise InputError(
                f"{path}: content does not match the checksum written with it: the file was changed or "
                f"damaged after fastspe wrote it; re-create it (a {kind_read} file)"
            ) from None
    if failed is not None:
        raise failed
    return out


@contextlib.contextmanager
def _input_file(path) -> Iterator[pa.NativeFile]:
    """``path`` opened once, for pyarrow's reader and the digest's reads alike (one file, even if another
    replaces the name meanwhile)."""
    with arrow_file(path) as source:
        native = (
            pa.OSFile(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else pa.PythonFile(source, mode="r")
        )
        try:
            yield native
        finally:
            native.close()


def _result(digest) -> str | None:
    """The digest, or None where the file could not be read for it (then it matches nothing)."""
    try:
        return digest.result()
    except (OSError, pa.ArrowException):
        return None


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
