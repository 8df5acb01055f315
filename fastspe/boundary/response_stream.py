"""Responses as a stream of checked Arrow tables, in memory bounded by the batch size.

``response_tables(path)`` reads a responses file or run log (JSONL, CSV, Parquet) with pyarrow's
readers, a batch at a time; ``ResponseChecker`` checks each batch with vectorized Arrow compute and
keeps the state that spans batches (condition codes, the keys seen so far) in a few bytes per output.

This is the fast path. It proves a file clean or gives up: anything it cannot vouch for (a line that
is not JSON, a torn run-log line, a wrong type, a null, a duplicate, an unknown board, a trial out of
range) raises ``NeedsLineReader``, and the caller reads the file again with the precise line reader
(``fastspe.boundary.responses``), which names the file and line at fault, or skips bad lines with
``--skip-invalid``. Both paths accept the same files and give the same rows.
"""

from __future__ import annotations

import codecs
import mmap
import os
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import UserError
from .files import arrow_file, table_format
from .jsonl import read_object_lines
from .responses import KEY, MARKER_EVENTS, MAX_TRIAL, OK, REQUIRED, unreadable_parquet

CHUNK_BYTES = 32 << 20  # JSONL/CSV bytes per batch
PARQUET_ROWS = 1 << 18
# A JSONL file smaller than this is read by pyarrow's JSON reader alone: the compiled scanner gives the same table
# but costs ~10 s of compiling on a fresh kernel cache, while pyarrow reads a few MB in a fraction of a second.
SCANNER_MIN_BYTES = 16 << 20
TRIAL_BITS = 31  # a key is bank row << 31 | trial, per condition
_TEXT = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
_FIELDS = pa.schema(
    [
        ("board_id", pa.string()),
        ("condition", pa.string()),
        ("trial", pa.int64()),
        ("response", pa.string()),
        ("status", pa.string()),
        ("event", pa.string()),
    ]
)


class NeedsLineReader(Exception):
    """The fast path cannot vouch for the file; read it with the precise line reader instead."""


# -- batches of a file -----------------------------------------------------------------------------


def response_tables(path, chunk_bytes: int = CHUNK_BYTES) -> Iterator[pa.Table]:
    """Raw Arrow tables of a responses file, a batch at a time (``NeedsLineReader`` on any doubt), their text
    proven UTF-8 (Arrow's JSON reader does not check that; the line reader names the line)."""
    fmt = table_format(path)
    if not Path(path).is_file():
        raise UserError(f"{path}: no such file")
    if fmt == "jsonl":
        return _jsonl_tables(path, chunk_bytes)
    if fmt == "csv":
        return _csv_tables(path, chunk_bytes)
    return _parquet_tables(path)


def _jsonl_tables(path, chunk_bytes: int) -> Iterator[pa.Table]:
    """The tables of a JSONL file's chunks (cut after a chunk's last newline), each read by the compiled scanner
    straight from the mapped file where it proves the chunk clean, else by pyarrow's JSON reader (which reads
    every chunk of a file under ``SCANNER_MIN_BYTES``)."""
    import pyarrow.json as pj

    from .jsonl_records import KnownKeys, scanned_table  # (here: the scanner compiles with numba, which the
    # verdict checker, a reader of this module, must not load)

    options = pj.ParseOptions(explicit_schema=_FIELDS, unexpected_field_behavior="infer")
    keys = KnownKeys(_FIELDS.names)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            return
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            scan = size >= SCANNER_MIN_BYTES
            lo = len(codecs.BOM_UTF8) if mapped[: len(codecs.BOM_UTF8)] == codecs.BOM_UTF8 else 0
            read_to = min(len(codecs.BOM_UTF8), size)  # the chunks end where a reader of 3 + k chunk_bytes would
            while lo < size:
                before, read_to = read_to, min(read_to + chunk_bytes, size)
                cut = mapped.rfind(b"\n", lo, read_to) + 1 if read_to > before else size
                if cut == 0:  # one line longer than a chunk: read on
                    continue
                data = np.frombuffer(mapped, dtype=np.uint8, count=cut - lo, offset=lo)
                table = (
                    scanned_table(data, _FIELDS, keys) if scan else None
                )  # (its strings are printable ASCII: no UTF-8 check)
                del data  # (no view may outlive the mapping)
                if table is None:
                    try:
                        table = _utf8(read_object_lines(mapped[lo:cut], options))
                    except (ValueError, pa.ArrowException) as exc:  # pyarrow's errors, non-UTF-8, a bad line
                        raise NeedsLineReader(str(exc)[:200]) from None
                lo = cut
                yield table


def _csv_tables(path, chunk_bytes: int) -> Iterator[pa.Table]:
    import pyarrow.csv as pcsv

    types = {"board_id": pa.string(), "condition": pa.string(), "response": pa.string(), "trial": pa.int64()}
    try:
        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(block_size=chunk_bytes),
            parse_options=pcsv.ParseOptions(newlines_in_values=True),
            convert_options=pcsv.ConvertOptions(column_types=types),
        )
        for batch in reader:
            table = pa.Table.from_batches([batch])  # (text columns checked UTF-8 by the reader: check_utf8)
            table.column_names  # noqa: B018 - a header that is not UTF-8 fails here, not in a later stage
            yield table
    except (pa.ArrowException, UnicodeDecodeError, ValueError) as exc:
        raise NeedsLineReader(str(exc)[:200]) from None


def _utf8(table: pa.Table) -> pa.Table:
    try:
        table.validate(full=True)
    except pa.ArrowInvalid:
        raise NeedsLineReader("text that is not UTF-8") from None
    return table


def _parquet_tables(path) -> Iterator[pa.Table]:
    import pyarrow.parquet as pq

    try:
        with arrow_file(path) as source:
            handle = pq.ParquetFile(source, page_checksum_verification=True)
            for batch in handle.iter_batches(batch_size=PARQUET_ROWS):
                batch.validate(full=True)  # text that is not UTF-8 is damage too, checksums or not
                yield pa.Table.from_batches([batch])
    except (pa.ArrowException, OSError) as exc:
        raise unreadable_parquet(path, exc) from None


# -- checking --------------------------------------------------------------------------------------


class SortedKeys:
    """A set of uint64 keys as a few sorted runs (merged like a binary counter): O(log n) runs."""

    def __init__(self):
        self.runs: list[np.ndarray] = []

    def contains(self, keys: np.ndarray) -> np.ndarray:
        found = np.zeros(len(keys), dtype=bool)
        for run in self.runs:
            pos = np.minimum(np.searchsorted(run, keys), len(run) - 1)
            found |= run[pos] == keys
        return found

    def add(self, keys: np.ndarray) -> None:
        """Add sorted ``keys`` that are new and distinct (``check_new`` says so)."""
        if len(keys):
            self.runs.append(keys)
        while len(self.runs) > 1 and len(self.runs[-2]) <= 2 * len(self.runs[-1]):
            last = self.runs.pop()
            merged = np.concatenate([self.runs[-1], last])
            merged.sort(kind="stable")  # two sorted runs: timsort merges them in linear time
            self.runs[-1] = merged

    def check_new(self, keys: np.ndarray) -> np.ndarray | None:
        """``keys`` sorted, or None if one repeats within them or is already in the set."""
        ordered = np.sort(keys)
        if (ordered[1:] == ordered[:-1]).any() or self.contains(ordered).any():
            return None
        return ordered


class ResponseChecker:
    """Checks raw response tables batch after batch against one bank.

    Parameters
    ----------
    bank_ids : pyarrow string array, the bank's board ids in bank order
    """

    def __init__(self, bank_ids: pa.Array):
        from .string_rows import StringRows  # (here: numba, which the verdict checker must not load)

        self.bank_ids = bank_ids
        self.bank_rows = StringRows(bank_ids)
        self.conditions: dict[str, int] = {}
        self.done: dict[int, SortedKeys] = {}
        self.failed: dict[int, SortedKeys] = {}

    def check(self, table: pa.Table) -> pa.Table:
        """The completed outputs of ``table`` (from ``response_tables``: its text proven UTF-8) with a ``row``
        column (bank row, int64); raises ``NeedsLineReader`` on anything the line reader would refuse or must
        explain."""
        for name in REQUIRED:
            if name not in table.column_names:
                if table.num_rows == 0:
                    return self._empty()
                raise NeedsLineReader(f"no column {name}")
        if "event" in table.column_names and table.column("event").null_count < table.num_rows:
            if not _is_text(table.column("event").type):
                raise NeedsLineReader("event is not text")
            marker = pc.fill_null(pc.is_in(table.column("event"), pa.array(MARKER_EVENTS)), False)
            markers, table = table.filter(marker), table.filter(pc.invert(marker))
            # a marker's own fields ("line") are no column of the line reader's records; Arrow cannot tell a
            # field that only markers fill from one that records hold as null, so leave that to the line reader
            for name in table.column_names if table.num_rows else ():  # (a batch of markers only scores nothing)
                if (
                    name != "event"
                    and table.column(name).null_count == table.num_rows
                    and markers.column(name).null_count < len(markers)
                ):
                    raise NeedsLineReader(f"a column ({name}) that only marker records fill")
        for name in ("board_id", "condition", "response"):
            kind = table.column(name).type
            if not (_is_text(kind) or (name == "response" and pa.types.is_null(kind))):
                raise NeedsLineReader(f"{name} is {kind}")
        if not pa.types.is_integer(table.column("trial").type):
            raise NeedsLineReader("trial is not an integer column")
        if pc.any(pc.equal(pc.utf8_length(table.column("condition")), 0)).as_py():
            raise NeedsLineReader("empty condition")  # no verdict can name it: the line reader names the line
        ok = self._completed(table)
        if ok is not None:
            self._remember_failed(table.filter(pc.invert(ok)))
            table = table.filter(ok)
        for name in REQUIRED:
            if table.column(name).null_count:
                raise NeedsLineReader(f"null {name}")
        trial = table.column("trial").to_numpy()
        if len(trial) and (trial.min() < 0 or trial.max() > MAX_TRIAL):
            raise NeedsLineReader("trial out of range")
        rows = self._rows(table.column("board_id"))
        if rows is None:
            raise NeedsLineReader("unknown board_id")
        codes = self._codes(table.column("condition"))
        keys = (rows.astype(np.uint64) << np.uint64(TRIAL_BITS)) | trial.astype(np.uint64)
        for code in np.unique(codes):
            mine = keys[codes == code]
            seen = self.done.setdefault(int(code), SortedKeys())
            ordered = seen.check_new(mine)
            if ordered is None:
                raise NeedsLineReader("duplicate output")
            seen.add(ordered)
        return table.append_column("row", pa.array(rows))

    def lost_outputs(self) -> int:
        """Outputs with failed attempts only (not scored)."""
        lost = 0
        for code, failed in self.failed.items():
            done = self.done.get(code, SortedKeys())
            for run in failed.runs:
                lost += int((~done.contains(run)).sum())
        return lost

    def _empty(self) -> pa.Table:
        return pa.table(
            {
                "board_id": pa.array([], pa.string()),
                "condition": pa.array([], pa.string()),
                "trial": pa.array([], pa.int64()),
                "response": pa.array([], pa.string()),
                "row": pa.array([], pa.int64()),
            }
        )

    @staticmethod
    def _completed(table: pa.Table):
        if "status" not in table.column_names or table.column("status").null_count == table.num_rows:
            return None
        status = table.column("status")
        if not _is_text(status.type):
            raise NeedsLineReader("status is not text")
        ok = pc.fill_null(pc.equal(status, OK), True)  # no status: a plain responses row, an output
        return None if pc.all(ok).as_py() else ok

    def _remember_failed(self, failed: pa.Table) -> None:
        if failed.num_rows == 0:
            return
        for name in ("board_id", "condition", "trial"):
            if failed.column(name).null_count:
                raise NeedsLineReader(f"a failed attempt without {name}")
        trial = failed.column("trial").to_numpy()
        if trial.min() < 0 or trial.max() > MAX_TRIAL:
            raise NeedsLineReader("trial out of range")
        rows = self.bank_rows.rows(failed.column("board_id"))
        # a failed attempt on an unknown board cannot be lost from the bank's outputs; the line reader counts
        # it anyway, so leave that rare case to it
        if (rows < 0).any():
            raise NeedsLineReader("failed attempt on an unknown board")
        keys = (rows.astype(np.uint64) << np.uint64(TRIAL_BITS)) | trial.astype(np.uint64)
        codes = self._codes(failed.column("condition"))
        for code in np.unique(codes):
            mine = self.failed.setdefault(int(code), SortedKeys())
            fresh = np.unique(keys[codes == code])  # retries of one trial repeat its key
            mine.add(fresh[~mine.contains(fresh)])

    def _rows(self, board_ids) -> np.ndarray | None:
        rows = self.bank_rows.rows(board_ids)
        return None if (rows < 0).any() else rows

    def _codes(self, conditions) -> np.ndarray:
        for value in pc.unique(conditions).to_pylist():
            self.conditions.setdefault(value, len(self.conditions))
        known = pa.array(list(self.conditions), pa.string())
        return pc.index_in(conditions, value_set=known).to_numpy().astype(np.int64)


def warm_scanner(path) -> None:
    """Compile (or load from the cache) the JSONL scanner that reads responses files of ``SCANNER_MIN_BYTES`` and
    more, by scanning the JSONL file ``path`` (``fastspe cache warm``: a small file never reaches the scanner)."""
    from .jsonl_records import KnownKeys, scanned_table

    scanned_table(np.fromfile(path, dtype=np.uint8), _FIELDS, KnownKeys(_FIELDS.names))


def _is_text(kind: pa.DataType) -> bool:
    return any(test(kind) for test in _TEXT)


__all__ = ["KEY", "NeedsLineReader", "ResponseChecker", "SortedKeys", "response_tables", "warm_scanner"]
