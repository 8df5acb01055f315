"""A sliding-puzzle bank table checked once: schema and meaning, boards as packed int8 arrays.

Columns (``BANK_COLUMNS``): ``board_id, cohort, k, blocks, rows, cols, depth, h, initial, goal, certificate,
proposal_index, seed``; boards row-major (0 blank, -1 blocked), ``fixed_size_list<int8>`` in Parquet. The optional
columns ``retreat`` and ``certificate_kind`` come with search-certified boards (banks with a retreat cell have them on
every row); a bank without them is all h-walk boards (retreat 0). Banks written before fastspe 0.2 (boards as plain
integer lists, no digest) still read, and so do JSONL banks (one board per line).

``check_sliding_bank`` is the cheap check that every reader and ``score``/``run`` rely on: schema (columns, types,
nulls, ranges) and meaning (each layout valid and connected, each goal the layout's, each initial board a permutation
of the tiles with -1 exactly on the blocks, ``h`` equal to h(initial), ``depth == len(certificate)``, ``depth == h``
for h-walk boards and ``h <= depth`` of the same parity for search-certified ones, ``retreat == depth - h``, board ids
unique). The full certificate replay stays in ``fastspe bank verify``. All checks are vectorized over the boards; the
meaning checks are in ``bank.meaning``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ....boundary.bank_rows import (
    RowErrors,
    check_ids,
    int_column,
    list_lengths,
    rows_to_check,
    single_chunk,
    text_column,
)
from ..layout import MAX_SIDE, MIN_SIDE, Layout
from ..pack import blocks_mask, board_matrix, layout_groups
from .meaning import BankLayouts, check_boards, check_depths

__all__ = ["BANK_COLUMNS", "OPTIONAL_COLUMNS", "JSONL_SCHEMA", "check_sliding_bank", "sliding_bank_frame"]

BANK_COLUMNS = [
    "board_id",
    "cohort",
    "k",
    "blocks",
    "rows",
    "cols",
    "depth",
    "h",
    "initial",
    "goal",
    "certificate",
    "proposal_index",
    "seed",
]
OPTIONAL_COLUMNS = ["retreat", "certificate_kind"]
INT_COLUMNS = ("k", "rows", "cols", "depth", "h", "proposal_index", "seed", "retreat")
STRING_COLUMNS = ("board_id", "cohort", "certificate", "certificate_kind")
BOARD_COLUMNS = ("initial", "goal")
LIST_COLUMNS = ("blocks",) + BOARD_COLUMNS
_MAX_CELLS = MAX_SIDE * MAX_SIDE
JSONL_SCHEMA = pa.schema(
    [(c, pa.string()) for c in ("board_id", "cohort", "certificate", "certificate_kind")]
    + [(c, pa.int64()) for c in INT_COLUMNS]
    + [(c, pa.list_(pa.int64())) for c in LIST_COLUMNS]
)


def check_sliding_bank(
    table: pa.Table, source: str = "bank", unit: str = "row", line_of=None, meaning: bool = True, fresh: bool = False
) -> pa.Table:
    """Check a bank table (schema and meaning) and return it in canonical types.

    Canonical: strings as ``string``; integer columns ``int64``; ``blocks`` ``list<int8>``; boards
    ``fixed_size_list<int8>[cells]`` when every board has the same size, else ``list<int8>``.
    Raises ``InputError`` naming ``source``, the row (``unit`` N, 1-based) and the board id. ``fresh``: the
    table is a reader's own, so a column of one chunk is used as it is (else it is copied into a buffer of
    its exact size, as the content digest of a table about to be written wants it).
    """
    # optional columns that no row fills (a JSONL reader's explicit schema adds them) are left out; one that is
    # present is filled on every row
    names = BANK_COLUMNS + [
        c for c in OPTIONAL_COLUMNS if c in table.column_names and table.column(c).null_count < table.num_rows
    ]
    at = rows_to_check(table, BANK_COLUMNS, source, unit, line_of, filled=names, rows="boards")
    table = table.select(names)
    cols = {name: _canonical(table.column(name), name, at, fresh) for name in names}
    if not meaning:
        return pa.table({name: cols[name] for name in names})
    ints = {c: cols[c].to_numpy(zero_copy_only=False) for c in INT_COLUMNS if c in cols}

    rows, ncols = ints["rows"], ints["cols"]
    for side, values in (("rows", rows), ("cols", ncols)):
        at.first(
            (values < MIN_SIDE) | (values > MAX_SIDE),
            lambda i, s=side, v=values: f"{s} is {v[i]}, must be {MIN_SIDE}..{MAX_SIDE}",
        )
    cells = rows * ncols
    blocks_len = list_lengths(cols["blocks"])
    at.first(blocks_len != ints["k"], lambda i: f"k is {ints['k'][i]} but blocks lists {blocks_len[i]} cells")
    for name in BOARD_COLUMNS:
        length = list_lengths(cols[name])
        at.first(
            length != cells,
            lambda i, nm=name, ln=length: f"{nm} has {ln[i]} cells, a {rows[i]}x{ncols[i]} board has {cells[i]}",
        )
    layouts = _bank_layouts(rows, ncols, cols["blocks"], at)
    width = int(cells.max())
    initial = board_matrix(cols["initial"], width)
    goal = board_matrix(cols["goal"], width)
    h_true = check_boards(initial, goal, layouts, at)
    check_depths(cols, ints, h_true, at)
    ids = cols["board_id"]
    check_ids(ids, at)

    out = {name: cols[name] for name in names}
    same_size = bool((cells == width).all())
    for name in BOARD_COLUMNS:
        out[name] = _board_array(initial if name == "initial" else goal, cells, same_size)
    return pa.table(out)


def _canonical(column, name: str, at: RowErrors, fresh: bool = False) -> pa.Array:
    column = single_chunk(column, fresh)
    kind = column.type
    if name in STRING_COLUMNS:
        return text_column(column, name, at)
    if name in INT_COLUMNS:
        return int_column(column, name, at)
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)):
        raise at.column_error(name, f"must be a list of integers, the file stores {kind}")
    if column.flatten().null_count:
        # a null inside a board: name its row
        owners = np.repeat(np.arange(len(column)), list_lengths(column))
        at.first(
            np.isin(np.arange(len(column)), owners[column.flatten().is_null().to_numpy(zero_copy_only=False)]),
            lambda i: f"{name} holds a null cell",
        )
    flat = column.flatten()
    if pa.types.is_integer(flat.type):
        values = flat.to_numpy(zero_copy_only=False)  # int8 banks: no copy
    else:
        values = int_column(flat, name, at, owners_of=column).to_numpy()
    if len(values) and (values.min() < -1 or values.max() >= _MAX_CELLS):  # two reductions, no temporaries
        bad = (values < -1) | (values >= _MAX_CELLS)
        owners = np.repeat(np.arange(len(column)), list_lengths(column))
        row = int(owners[np.flatnonzero(bad)[0]])
        raise at.error(row, f"{name} holds {values[np.flatnonzero(bad)[0]]}, cells hold -1..{_MAX_CELLS - 1}")
    if pa.types.is_fixed_size_list(column.type) and pa.types.is_int8(flat.type) and column.offset == 0:
        return column
    if (
        pa.types.is_list(column.type)
        and pa.types.is_int8(flat.type)
        and column.offset == 0
        and (not len(column) or column.offsets[0].as_py() == 0)
    ):  # the same list<int8>, without copying it
        return pa.ListArray.from_arrays(column.offsets, flat)
    offsets = np.concatenate([[0], np.cumsum(list_lengths(column))]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values.astype(np.int8, copy=False)))


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


def sliding_bank_frame(table: pa.Table):
    """A checked bank table as a DataFrame.

    Boards stay Arrow-backed (``pd.ArrowDtype``: one buffer, no Python list per board). ``blocks`` is an
    object column of plain lists, one list object per distinct layout shared by its rows, so that
    ``bank["blocks"].map(tuple)`` and friends work as on any DataFrame.
    """
    import pandas as pd

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
