"""A checked sliding-puzzle bank packed into the arrays its replay kernel reads (no file is touched).

``packed_bank`` is the sliding domain's ``pack`` (``domains.base.Domain``): boards as one int8 matrix, the
distinct layouts' move, distance and goal tables stacked, ids and strata as arrays. The helpers that turn
Arrow board lists and block lists into arrays live here too; the bank reader (``boundary.banks``) uses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...boundary.bank_rows import list_lengths
from .kernels.replay import key_layout
from .layout import Layout

__all__ = ["BankTables", "packed_bank", "board_matrix", "blocks_mask", "layout_groups", "list_lengths"]


@dataclass(frozen=True)
class BankTables:
    """A checked bank packed for the replay kernel (a ``domains.base.Packed``).

    boards : int8 (m, cells), initial boards padded with -1 to the widest layout
    layout_index : int64 (m,), index of each board's layout in the stacked tables
    moves : int16 (layouts, cells, 4); dist : int16 (layouts, cells, cells);
    goal_cell : int16 (layouts, max_tile + 1); bits : field width of the exact state key
    tags : layout tag of each board (object (m,))
    ids : string (m,), the board ids (an Arrow array, for hashed look-ups)
    depth, k : int64 (m,); cohort : object (m,)
    cohort_code : int32 (m,), each board's cohort as an index into ``cohort_names`` (string array);
    layout_names : string array, the tag of each layout (indexed by ``layout_index``)
    """

    boards: np.ndarray
    layout_index: np.ndarray
    moves: np.ndarray
    dist: np.ndarray
    goal_cell: np.ndarray
    bits: int
    tags: np.ndarray
    ids: pa.Array
    depth: np.ndarray
    k: np.ndarray
    cohort: np.ndarray
    cohort_code: np.ndarray
    cohort_names: pa.Array
    layout_names: pa.Array
    domain: ClassVar[str] = "sliding"

    def stratum_values(self) -> np.ndarray:
        """The second stratum of each board: its blocked-cell count k."""
        return self.k

    def rows_of(self, board_ids) -> np.ndarray:
        """Bank rows of ``board_ids`` (any sequence or Arrow array of str), -1 where unknown."""
        ids = board_ids if isinstance(board_ids, (pa.Array, pa.ChunkedArray)) else pa.array(board_ids, pa.string())
        rows = pc.index_in(ids.cast(pa.string()), value_set=self.ids)
        return pc.fill_null(rows, -1).to_numpy().astype(np.int64)


def packed_bank(table: pa.Table) -> BankTables:
    """Pack a bank table that ``boundary.banks.check_bank_table`` has checked."""
    rows, ncols = table.column("rows").to_numpy(), table.column("cols").to_numpy()
    blocks = table.column("blocks").combine_chunks()
    first, index = layout_groups(rows, ncols, blocks_mask(blocks))
    # a checked bank's layouts are valid: no error to report here
    layouts = [Layout(int(rows[i]), int(ncols[i]), tuple(blocks[int(i)].as_py())) for i in first]
    cells = max(lay.cells for lay in layouts)
    max_tile = max(lay.tiles for lay in layouts)
    nl = len(layouts)
    moves = np.full((nl, cells, 4), -1, dtype=np.int16)
    dist = np.full((nl, cells, cells), -1, dtype=np.int16)
    goal_cell = np.zeros((nl, max_tile + 1), dtype=np.int16)
    for i, lay in enumerate(layouts):
        moves[i, : lay.cells] = lay.moves
        dist[i, : lay.cells, : lay.cells] = lay.distances
        goal_cell[i, : lay.tiles + 1] = lay.goal_cell
    tags = np.array([lay.tag for lay in layouts], dtype=object)[index]
    bits, _, _ = key_layout(cells, max_tile)
    cohort = table.column("cohort").combine_chunks().cast(pa.string())
    coded = pc.dictionary_encode(cohort)  # (a checked bank names every board's cohort: no nulls)
    return BankTables(
        board_matrix(table.column("initial"), cells),
        index,
        moves,
        dist,
        goal_cell,
        bits,
        tags,
        table.column("board_id").combine_chunks().cast(pa.string()),
        table.column("depth").to_numpy(),
        table.column("k").to_numpy(),
        cohort.to_numpy(zero_copy_only=False),
        coded.indices.to_numpy().astype(np.int32),
        coded.dictionary,
        pa.array([lay.tag for lay in layouts], pa.string()),
    )


def blocks_mask(blocks: pa.Array) -> np.ndarray:
    """uint64 (n,): bit c set for each blocked cell c of each row of a ``list<int>`` column."""
    flat = blocks.flatten()
    if not len(flat):  # no blocks anywhere (open boards): no pass over the rows
        return np.zeros(len(blocks), dtype=np.uint64)
    lengths = list_lengths(blocks)
    values = flat.to_numpy(zero_copy_only=False).astype(np.int64)
    owners = np.repeat(np.arange(len(lengths)), lengths)
    mask = np.zeros(len(lengths), dtype=np.uint64)
    np.bitwise_or.at(mask, owners, np.left_shift(np.uint64(1), values.astype(np.uint64)))
    return mask


def layout_groups(rows: np.ndarray, cols: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each distinct layout, layout index of each row), layouts ordered by (mask, rows, cols).

    Two 1-D uniques (the block masks, then a small combined key) instead of a row-wise unique over an
    (n, 3) array, which costs a sort of n structured rows and several copies of them.
    """
    if len(mask) and (mask == mask[0]).all() and (rows == rows[0]).all() and (cols == cols[0]).all():
        return np.zeros(1, dtype=np.intp), np.zeros(len(mask), dtype=np.int64)  # one layout: no sort
    _, mask_index = np.unique(mask, return_inverse=True)
    key = mask_index.ravel().astype(np.int64) * 256 + (rows.astype(np.int64) * 16 + cols)  # sides <= 8 < 16
    _, first, index = np.unique(key, return_index=True, return_inverse=True)
    return first, np.asarray(index, dtype=np.int64).ravel()


def board_matrix(column, width: int | None = None) -> np.ndarray:
    """Boards as a contiguous int8 array (n, width), padded with -1 (blocked) past each board's end.

    ``column``: an Arrow list / fixed-size-list array (or chunked), a pandas Series backed by one, or
    any sequence of integer sequences. Arrow input is converted without a Python object per board.
    """
    arrow = _as_arrow_lists(column)
    if arrow is None:
        lists = [np.asarray(b, dtype=np.int64) for b in column]
        width = max([len(b) for b in lists] + [width or 0])
        out = np.full((len(lists), width), -1, dtype=np.int8)
        for i, b in enumerate(lists):
            out[i, : len(b)] = b
        return out
    lengths = list_lengths(arrow)
    values = arrow.flatten().to_numpy(zero_copy_only=False).astype(np.int8, copy=False)
    n = len(lengths)
    width = int(lengths.max(initial=0)) if width is None else width
    if n and (lengths == width).all():
        return np.ascontiguousarray(values.reshape(n, width))
    out = np.full((n, width), -1, dtype=np.int8)
    rows = np.repeat(np.arange(n), lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    out[rows, np.arange(len(values)) - np.repeat(starts, lengths)] = values
    return out


def _as_arrow_lists(column):
    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        arr = column
    else:
        arr = getattr(getattr(column, "array", None), "_pa_array", None)  # pandas ArrowDtype column
        if arr is None:
            return None
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    kind = arr.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return arr
    return None


def replay_packed(packed: BankTables, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> tuple:
    """The domain's ``replay``: plan i on bank row ``rows[i]``, by the replay kernel over the stacked layout tables."""
    from .kernels.replay import replay_plans

    return replay_plans(
        packed.boards,
        rows,
        codes,
        offsets,
        packed.layout_index[rows],
        packed.moves,
        packed.dist,
        packed.goal_cell,
        packed.bits,
    )
