"""What every domain's bank check uses: errors that name the file, row and board; columns as text and integers;
unique board ids. A domain's own checks (``Domain.check_bank``) are built from these."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..kernels.text_check import id_runs
from .errors import InputError, input_error

__all__ = [
    "FIX",
    "RowErrors",
    "rows_to_check",
    "typed_columns",
    "single_chunk",
    "text_column",
    "int_column",
    "string_buffers",
    "list_lengths",
    "check_ids",
]

FIX = "rebuild it with `fastspe bank build` (and `fastspe bank verify` it)"


class RowErrors:
    """Builds ``InputError``s that name the file, the row or line and the board id."""

    def __init__(self, table: pa.Table, source: str, unit: str, line_of=None):
        self.table, self.source, self.unit, self.line_of = table, source, unit, line_of

    def error(self, row: int, what: str) -> InputError:
        pos = self.line_of(row) if self.line_of else row + 1
        board = None
        if "board_id" in self.table.column_names:
            try:
                board = self.table.column("board_id")[row].as_py()
            except UnicodeDecodeError:  # a board id that is not UTF-8 cannot be named
                board = None
        return input_error(self.source, f"{what}; {FIX}", self.unit, pos, board)

    def column_error(self, name: str, what: str) -> InputError:
        """A whole column of the wrong type: no row is more at fault than another, so none is named."""
        return InputError(f"{self.source}: column {name} {what}; {FIX}")

    def first(self, bad: np.ndarray, what) -> None:
        """Raise for the first True of ``bad``; ``what(i)`` says what is wrong with row i."""
        hits = np.flatnonzero(bad)
        if len(hits):
            i = int(hits[0])
            more = f" ({len(hits)} rows like it)" if len(hits) > 1 else ""
            raise self.error(i, what(i) + more)


def rows_to_check(
    table: pa.Table,
    required,
    source: str,
    unit: str = "row",
    line_of=None,
    *,
    filled=None,
    what: str = "bank",
    make: str = "`fastspe bank build`",
    rows: str = "rows",
) -> RowErrors:
    """How every bank check starts: a table lacking one of the ``required`` columns is not a ``what`` (``make`` one),
    a table of no rows is refused (it has no ``rows``), and so is a null in a ``filled`` column (default: the
    required ones), naming its row. Returns the ``RowErrors`` the rest of the check raises with."""
    missing = [c for c in required if c not in table.column_names]
    if missing:
        raise InputError(f"{source}: not a {what}: its rows lack columns {missing}; make one with {make}")
    if table.num_rows == 0:
        raise InputError(f"{source}: the bank has no {rows}")
    at = RowErrors(table, source, unit, line_of)
    for name in required if filled is None else filled:
        column = table.column(name)
        if column.null_count:
            at.first(column.is_null().to_numpy(zero_copy_only=False), lambda i, n=name: f"{n} is missing (null)")
    return at


def typed_columns(table: pa.Table, names, text, at: RowErrors, fresh: bool = False) -> dict[str, pa.Array]:
    """The columns ``names`` of ``table``, each one array: the ones in ``text`` as UTF-8 ``string``
    (``text_column``), the others as int64 (``int_column``)."""
    return {
        name: text_column(single_chunk(table.column(name), fresh), name, at)
        if name in text
        else int_column(single_chunk(table.column(name), fresh), name, at)
        for name in names
    }


def single_chunk(column, fresh: bool = False) -> pa.Array:
    """A column as one array: a reader's own single chunk as it is (``fresh``), else combined into a buffer of its
    exact size (as the content digest of a table about to be written wants it)."""
    if isinstance(column, pa.ChunkedArray):
        return column.chunk(0) if fresh and column.num_chunks == 1 else column.combine_chunks()
    return column


def text_column(column: pa.Array, name: str, at: RowErrors) -> pa.Array:
    """A column as ``string``, valid UTF-8; any other type is refused."""
    kind = column.type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)):
        raise at.column_error(name, f"must be text, the file stores {kind}")
    column = column.cast(pa.string())
    try:  # Arrow's JSON reader does not check that strings are UTF-8 (ASCII is: one compiled pass)
        column.validate(full=not _ascii_text(column))
    except pa.ArrowInvalid:
        row = next(i for i in range(len(column)) if not _valid(column.slice(i, 1)))  # errors only: a loop
        raise at.error(row, f"{name} is not UTF-8 text") from None
    return column


def _ascii_text(strings: pa.Array) -> bool:
    """Every byte of a string array's values below 128 (so valid UTF-8): numpy's max reads 100 MB in 3 ms, within
    a millisecond of a compiled pass, which would first take a compile."""
    data, offsets = string_buffers(strings)
    if len(offsets) < 2:
        return True
    return bool(0 <= offsets[0] <= offsets[-1] <= len(data) and data[offsets[0] : offsets[-1]].max(initial=0) < 128)


def _valid(array: pa.Array) -> bool:
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def int_column(column: pa.Array, name: str, at: RowErrors, owners_of=None) -> pa.Array:
    """``column`` as int64; floats must be whole (2.5 is refused), anything else is refused."""
    kind = column.type
    if pa.types.is_null(kind):  # an all-empty list column (k = 0 everywhere) infers list<null>
        return pa.array(np.zeros(len(column), dtype=np.int64))
    if pa.types.is_integer(kind):
        if pa.types.is_uint64(kind) and len(column) and pc.max(column).as_py() >= 2**63:
            hit = int(np.flatnonzero(column.to_numpy(zero_copy_only=False) >= np.uint64(2**63))[0])
            row = hit if owners_of is None else int(np.repeat(np.arange(len(owners_of)), list_lengths(owners_of))[hit])
            raise at.error(row, f"{name} holds a value beyond int64")
        return column.cast(pa.int64())
    if pa.types.is_floating(kind):
        values = column.to_numpy(zero_copy_only=False)
        bad = ~np.isfinite(values) | (values != np.floor(values)) | (np.abs(values) >= 2**62)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            if owners_of is not None:
                row = int(np.repeat(np.arange(len(owners_of)), list_lengths(owners_of))[row])
            raise at.error(row, f"{name} holds {values[np.flatnonzero(bad)[0]]}, not an integer")
        return pa.array(values.astype(np.int64))
    raise at.column_error(name, f"must be integers, the file stores {kind}")


def list_lengths(column) -> np.ndarray:
    """int64 (n,): the length of each list of an Arrow list column."""
    if pa.types.is_fixed_size_list(column.type) and not column.null_count:  # every board one size: no pass
        return np.full(len(column), column.type.list_size, dtype=np.int64)
    return pc.list_value_length(column).to_numpy(zero_copy_only=False).astype(np.int64)


def string_buffers(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The bytes (uint8) and the n + 1 offsets into them of a string array, without a copy."""
    if not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        strings = strings.cast(pa.large_string())
    wide = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    buffers = strings.buffers()
    offsets = np.frombuffer(buffers[1], dtype=wide)[strings.offset : strings.offset + len(strings) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, dtype=np.uint8)
    return data, offsets


def check_ids(ids: pa.Array, at: RowErrors) -> None:
    """No board id empty, none twice (the error names the second row and the first)."""
    at.first(pc.equal(pc.binary_length(ids), 0).to_numpy(zero_copy_only=False), lambda i: "board_id is empty")
    if _ids_ordered_apart(ids):
        return
    counts = pc.value_counts(ids)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        hits = np.flatnonzero(pc.is_in(ids, value_set=repeated).to_numpy(zero_copy_only=False))
        first = ids[int(hits[0])].as_py()
        rows = np.flatnonzero(pc.equal(ids, first).to_numpy(zero_copy_only=False))
        raise at.error(
            int(rows[1]),
            f"board_id {first!r} appears more than once (also {at.unit} "
            f"{at.line_of(int(rows[0])) if at.line_of else int(rows[0]) + 1})",
        )


_MAX_RUNS = 4096  # runs of increasing ids beyond which the hash count is the quicker proof


def _ids_ordered_apart(ids: pa.Array) -> bool:
    """True when the ids are distinct by their order alone, as a bank's are (``NAME-000``, ``NAME-001``, ...
    per cell): cut into runs of rows whose ids have one byte length and increase strictly (one compiled
    pass), no two runs of one length overlap. False means not proven (the caller counts the ids), never a
    repeat."""
    if len(ids) < 2:
        return True
    data, offsets = string_buffers(ids)
    starts, status = id_runs(data, offsets, _MAX_RUNS)
    if status:
        return False
    spans: dict[int, list] = {}
    for lo, hi in zip(starts.tolist(), starts[1:].tolist() + [len(ids)]):
        first, last = data[offsets[lo] : offsets[lo + 1]], data[offsets[hi - 1] : offsets[hi]]
        spans.setdefault(len(first), []).append((first.tobytes(), last.tobytes()))
    for runs in spans.values():
        runs.sort()
        if any(runs[i][1] >= runs[i + 1][0] for i in range(len(runs) - 1)):
            return False
    return True
