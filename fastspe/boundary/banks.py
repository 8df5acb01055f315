"""Bank files in and out: Arrow tables checked once, boards as packed int8 arrays.

A bank file is Parquet (boards as ``fixed_size_list<int8>``, with page CRCs and a content digest) or
JSONL (one board per line, as ``fastspe bank build --out x.jsonl`` writes it). Banks written before
fastspe 0.2 (boards as plain integer lists, no digest) still read.

``check_bank_table`` is the cheap check that every reader and ``score``/``run`` rely on: schema
(columns, types, nulls, ranges) and meaning (each layout valid and connected, each goal the layout's,
each initial board a permutation of the tiles with -1 exactly on the blocks, ``h`` equal to h(initial),
``depth == len(certificate)``, ``depth == h`` for h-walk boards and ``h <= depth`` of the same parity for
search-certified ones, ``retreat == depth - h``, board ids unique). The full certificate replay stays in
``fastspe bank verify``. All checks are vectorized over the boards; the meaning checks are in
``bank_meaning``, the JSONL reader in ``bank_jsonl``.

The optional columns ``retreat`` and ``certificate_kind`` come with search-certified boards (banks with a
retreat cell have them on every row); a bank without them is all h-walk boards (retreat 0).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..domains.sliding.layout import MAX_SIDE, MIN_SIDE, Layout
from ..domains.registry import domain_name_of
from ..domains.sliding.pack import blocks_mask, board_matrix, layout_groups, list_lengths
from ..domains.sokoban.columns import BANK_COLUMNS as SOKOBAN_BANK_COLUMNS
from ..kernels.bank_check import ascii_only
from .sokoban_banks import check_sokoban_bank_table
from .bank_rows import BankLayouts, RowErrors
from .errors import InputError
from .bank_jsonl import jsonl_line_finder, read_jsonl_bank
from .bank_meaning import check_boards, check_depths, check_unique_ids, string_buffers
from .files import atomic_path
from .parquet import parquet_row_groups, read_parquet, write_parquet

BANK_COLUMNS = ["board_id", "cohort", "k", "blocks", "rows", "cols", "depth", "h", "initial", "goal",
                "certificate", "proposal_index", "seed"]
OPTIONAL_COLUMNS = ["retreat", "certificate_kind"]
INT_COLUMNS = ("k", "rows", "cols", "depth", "h", "proposal_index", "seed", "retreat")
STRING_COLUMNS = ("board_id", "cohort", "certificate", "certificate_kind")
BOARD_COLUMNS = ("initial", "goal")
LIST_COLUMNS = ("blocks",) + BOARD_COLUMNS
BANK_SUFFIXES = (".parquet", ".jsonl")
_MAX_CELLS = MAX_SIDE * MAX_SIDE
_JSON_SCHEMA = pa.schema([(c, pa.string()) for c in ("board_id", "cohort", "certificate", "certificate_kind")]
                         + [(c, pa.int64()) for c in INT_COLUMNS]
                         + [(c, pa.list_(pa.int64())) for c in LIST_COLUMNS])


# -- reading ---------------------------------------------------------------------------------------

def bank_format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in BANK_SUFFIXES:
        raise InputError(f"{path}: a bank file is .parquet or .jsonl (got {suffix or 'no extension'!r}); "
                         "make one with `fastspe bank build --out NAME.parquet`")
    return suffix[1:]


def read_bank_table(path, meaning: bool = True, then=None):
    """Read and check a bank file; the table has ``BANK_COLUMNS`` (+ optional ones) in canonical types.

    ``meaning=False`` checks the schema only (columns, types, nulls, value ranges) and leaves the boards'
    meaning to the caller: ``fastspe bank verify`` reports every failing board instead of the first.
    With ``then``, returns ``then(table)``, run (for Parquet) while the content digest is still computed.
    """
    fmt = bank_format(path)
    if not Path(path).is_file():
        raise InputError(f"{path}: no such file")
    then = then or (lambda table: table)
    if fmt == "parquet":  # checked while the content digest is computed
        return read_parquet(path, "bank", then=lambda table: then(check_bank_table(table, str(path), "row",
                                                                                  meaning=meaning, fresh=True)))
    table = read_jsonl_bank(path, _JSON_SCHEMA)
    return then(check_bank_table(table, str(path), "line", line_of=jsonl_line_finder(path), meaning=meaning))


# -- checking --------------------------------------------------------------------------------------

def check_bank_table(table: pa.Table, source: str = "bank", unit: str = "row", line_of=None,
                     meaning: bool = True, fresh: bool = False) -> pa.Table:
    """Check a bank table (schema and meaning) and return it in canonical types.

    Canonical: strings as ``string``; integer columns ``int64``; ``blocks`` ``list<int8>``; boards
    ``fixed_size_list<int8>[cells]`` when every board has the same size, else ``list<int8>``.
    Raises ``InputError`` naming ``source``, the row (``unit`` N, 1-based) and the board id. ``fresh``: the
    table is a reader's own, so a column of one chunk is used as it is (else it is copied into a buffer of
    its exact size, as the content digest of a table about to be written wants it).
    """
    if domain_name_of(table) == "sokoban":
        return check_sokoban_bank_table(table, source, unit, line_of, meaning)
    missing = [c for c in BANK_COLUMNS if c not in table.column_names]
    if missing:
        raise InputError(f"{source}: not a bank: its rows lack columns {missing}; make one with `fastspe bank build`")
    if table.num_rows == 0:
        raise InputError(f"{source}: the bank has no boards")
    at = RowErrors(table, source, unit, line_of)
    # optional columns that no row fills (a JSONL reader's explicit schema adds them) are left out
    names = BANK_COLUMNS + [c for c in OPTIONAL_COLUMNS
                            if c in table.column_names and table.column(c).null_count < table.num_rows]
    table = table.select(names)
    for name in names:  # an optional column, once present, is filled on every row
        column = table.column(name)
        if column.null_count:
            at.first(column.is_null().to_numpy(zero_copy_only=False), lambda i, n=name: f"{n} is missing (null)")
    cols = {name: _canonical(table.column(name), name, at, fresh) for name in names}
    if not meaning:
        return pa.table({name: cols[name] for name in names})
    ints = {c: cols[c].to_numpy(zero_copy_only=False) for c in INT_COLUMNS if c in cols}

    rows, ncols = ints["rows"], ints["cols"]
    for side, values in (("rows", rows), ("cols", ncols)):
        at.first((values < MIN_SIDE) | (values > MAX_SIDE),
                 lambda i, s=side, v=values: f"{s} is {v[i]}, must be {MIN_SIDE}..{MAX_SIDE}")
    cells = rows * ncols
    blocks_len = list_lengths(cols["blocks"])
    at.first(blocks_len != ints["k"], lambda i: f"k is {ints['k'][i]} but blocks lists {blocks_len[i]} cells")
    for name in BOARD_COLUMNS:
        length = list_lengths(cols[name])
        at.first(length != cells, lambda i, nm=name, ln=length: f"{nm} has {ln[i]} cells, a {rows[i]}x{ncols[i]} "
                                                                  f"board has {cells[i]}")
    layouts = _bank_layouts(rows, ncols, cols["blocks"], at)
    width = int(cells.max())
    initial = board_matrix(cols["initial"], width)
    goal = board_matrix(cols["goal"], width)
    h_true = check_boards(initial, goal, layouts, at)
    check_depths(cols, ints, h_true, at)
    ids = cols["board_id"]
    at.first(pc.equal(pc.binary_length(ids), 0).to_numpy(zero_copy_only=False), lambda i: "board_id is empty")
    check_unique_ids(ids, at)

    out = {name: cols[name] for name in names}
    same_size = bool((cells == width).all())
    for name in BOARD_COLUMNS:
        out[name] = _board_array(initial if name == "initial" else goal, cells, same_size)
    return pa.table(out)


def _canonical(column, name: str, at: RowErrors, fresh: bool = False) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        column = column.chunk(0) if fresh and column.num_chunks == 1 else column.combine_chunks()
    kind = column.type
    if name in STRING_COLUMNS:
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)):
            raise at.column_error(name, f"must be text, the file stores {kind}")
        column = column.cast(pa.string())
        try:  # Arrow's JSON reader does not check that strings are UTF-8 (ASCII is: one compiled pass)
            column.validate(full=not _ascii_text(column))
        except pa.ArrowInvalid:
            row = next(i for i in range(len(column)) if not _valid(column.slice(i, 1)))  # errors only: a loop
            raise at.error(row, f"{name} is not UTF-8 text") from None
        return column
    if name in INT_COLUMNS:
        return _as_int64(column, name, at)
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)):
        raise at.column_error(name, f"must be a list of integers, the file stores {kind}")
    if column.flatten().null_count:
        # a null inside a board: name its row
        owners = np.repeat(np.arange(len(column)), list_lengths(column))
        at.first(np.isin(np.arange(len(column)), owners[column.flatten().is_null().to_numpy(zero_copy_only=False)]),
                 lambda i: f"{name} holds a null cell")
    flat = column.flatten()
    if pa.types.is_integer(flat.type):
        values = flat.to_numpy(zero_copy_only=False)  # int8 banks: no copy
    else:
        values = _as_int64(flat, name, at, owners_of=column).to_numpy()
    if len(values) and (values.min() < -1 or values.max() >= _MAX_CELLS):  # two reductions, no temporaries
        bad = (values < -1) | (values >= _MAX_CELLS)
        owners = np.repeat(np.arange(len(column)), list_lengths(column))
        row = int(owners[np.flatnonzero(bad)[0]])
        raise at.error(row, f"{name} holds {values[np.flatnonzero(bad)[0]]}, cells hold -1..{_MAX_CELLS - 1}")
    if pa.types.is_fixed_size_list(column.type) and pa.types.is_int8(flat.type) and column.offset == 0:
        return column
    if pa.types.is_list(column.type) and pa.types.is_int8(flat.type) and column.offset == 0 and \
            (not len(column) or column.offsets[0].as_py() == 0):  # the same list<int8>, without copying it
        return pa.ListArray.from_arrays(column.offsets, flat)
    offsets = np.concatenate([[0], np.cumsum(list_lengths(column))]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values.astype(np.int8, copy=False)))


def _ascii_text(strings: pa.Array) -> bool:
    """Every byte of a string array's values below 128 (so valid UTF-8)."""
    data, offsets = string_buffers(strings)
    if len(offsets) < 2:
        return True
    return bool(0 <= offsets[0] <= offsets[-1] <= len(data) and ascii_only(data, offsets[0], offsets[-1]))


def _valid(array: pa.Array) -> bool:
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _as_int64(column: pa.Array, name: str, at: RowErrors, owners_of=None) -> pa.Array:
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


def _bank_layouts(rows, cols, blocks: pa.Array, at: RowErrors) -> BankLayouts:
    """Each distinct (rows, cols, blocks) as a validated ``Layout``; the index of each board's."""
    first, index = layout_groups(rows, cols, blocks_mask(blocks))
    layouts = []
    for j, i in enumerate(first):
        cell_list = blocks[int(i)].as_py()
        try:
            lay = Layout(int(rows[i]), int(cols[i]), tuple(cell_list))
        except (ValueError, TypeError) as exc:
            raise at.error(int(i), f"layout {int(rows[i])}x{int(cols[i])} with blocks {cell_list}: {exc}") from None
        if sorted(cell_list) != cell_list:
            raise at.error(int(i), f"blocks {cell_list} are not in ascending order")
        layouts.append(lay)
    return BankLayouts(tuple(layouts), np.asarray(index, dtype=np.int64).ravel())


# -- boards as arrays ------------------------------------------------------------------------------

def _board_array(boards: np.ndarray, cells: np.ndarray, same_size: bool) -> pa.Array:
    if same_size:
        return pa.FixedSizeListArray.from_arrays(pa.array(boards.ravel()), boards.shape[1])
    keep = np.arange(boards.shape[1])[None, :] < cells[:, None]
    offsets = np.concatenate([[0], np.cumsum(cells)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(boards[keep]))


# -- tables and frames -----------------------------------------------------------------------------

def bank_frame(table: pa.Table):
    """A checked bank table as a DataFrame.

    Boards stay Arrow-backed (``pd.ArrowDtype``: one buffer, no Python list per board). ``blocks`` is an
    object column of plain lists, one list object per distinct layout shared by its rows, so that
    ``bank["blocks"].map(tuple)`` and friends work as on any DataFrame.
    """
    import pandas as pd

    if domain_name_of(table) == "sokoban":  # text and counts only
        return table.to_pandas()
    boards = {table.schema.field(name).type: pd.ArrowDtype(table.schema.field(name).type) for name in BOARD_COLUMNS}
    frame = table.drop_columns(["blocks"]).to_pandas(types_mapper=boards.get)
    blocks = table.column("blocks").combine_chunks()
    values = blocks.flatten().to_numpy(zero_copy_only=False)
    if ((values < 0) | (values >= _MAX_CELLS)).any():  # unchecked banks only (verify): no shared lists
        frame.insert(BANK_COLUMNS.index("blocks"), "blocks", pd.Series(blocks.to_pylist(), dtype=object))
        return frame
    mask = blocks_mask(blocks)
    if len(mask) and (mask == mask[0]).all():  # one layout (most banks): no sort, one list for every row
        column = np.empty(len(mask), dtype=object)
        column.fill(blocks[0].as_py())
    else:
        uniq, first, index = np.unique(mask, return_index=True, return_inverse=True)
        shared = np.empty(len(uniq), dtype=object)
        shared[:] = [blocks[int(i)].as_py() for i in first]
        column = shared[np.asarray(index).ravel()]
    frame.insert(BANK_COLUMNS.index("blocks"), "blocks", column)
    return frame


def table_from_frame(bank) -> pa.Table:
    """A bank DataFrame (from ``build_bank``, ``read_bank`` or made by hand) as an Arrow table."""
    sokoban = domain_name_of(bank) == "sokoban"
    cols = [c for c in (SOKOBAN_BANK_COLUMNS if sokoban else BANK_COLUMNS + OPTIONAL_COLUMNS) if c in bank.columns]
    try:
        return pa.Table.from_pandas(bank[cols], preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise InputError(f"bank rows: cannot be read as a bank ({str(exc)[:200]})") from None


def write_bank_table(table: pa.Table, path) -> None:
    """Write a checked bank table (Parquet with digest, or JSONL), atomically."""
    fmt = bank_format(path)
    if fmt == "parquet":
        write_parquet(table, path, "bank")
        return
    with atomic_path(path) as tmp:
        bank_frame(table).to_json(tmp, orient="records", lines=True, force_ascii=False)


def write_bank_tables(tables: Iterable[pa.Table], path) -> int:
    """Write the concatenation of bank tables, each checked as it comes (a bank split in pieces, with board
    ids unique across them, as ``bank.build.bank_pieces`` yields it), atomically; returns the row count.

    The bytes are those of ``write_bank_table`` of the whole bank, but only one Parquet row group (or one
    piece of JSON lines) waits in memory.
    """
    fmt, rows = bank_format(path), 0
    with contextlib.ExitStack() as stack:
        if fmt == "parquet":
            add = stack.enter_context(parquet_row_groups(path, "bank"))
        else:
            sink = stack.enter_context(open(stack.enter_context(atomic_path(path)), "w", encoding="utf-8"))

            def add(table: pa.Table) -> None:
                bank_frame(table).to_json(sink, orient="records", lines=True, force_ascii=False)
        for table in tables:
            table = check_bank_table(table, "bank rows")
            rows += table.num_rows
            add(table)
    return rows
