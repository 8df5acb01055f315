"""A bank DataFrame as the arrays and layouts that kernels and planners take (no file is touched)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..layout import Layout
from ..pack import blocks_mask, board_matrix, layout_groups
from .meaning import BankLayouts

__all__ = ["bank_layouts_index", "layout_keys", "bank_layouts", "pack_boards"]


def bank_layouts_index(bank) -> BankLayouts:
    """The distinct layouts of a bank DataFrame and the index of each board's layout (vectorized)."""
    blocks = bank["blocks"]
    arrow = (
        blocks.array._pa_array if hasattr(blocks.array, "_pa_array") else pa.array(list(blocks), pa.list_(pa.int64()))
    )
    rows = bank["rows"].to_numpy(np.int64)
    cols = bank["cols"].to_numpy(np.int64)
    mask = blocks_mask(arrow.combine_chunks() if isinstance(arrow, pa.ChunkedArray) else arrow)
    first, index = layout_groups(rows, cols, mask)
    layouts = tuple(Layout(int(rows[i]), int(cols[i]), tuple(int(v) for v in blocks.iloc[int(i)])) for i in first)
    return BankLayouts(layouts, index)


def layout_keys(bank: pd.DataFrame) -> list[tuple[int, int, tuple[int, ...]]]:
    """The (rows, cols, blocks tuple) of each board of a bank, in row order."""
    found = bank_layouts_index(bank)
    keys = [(lay.rows, lay.cols, lay.blocks) for lay in found.layouts]
    return [keys[i] for i in found.index]


def bank_layouts(bank: pd.DataFrame) -> dict[tuple, Layout]:
    """The distinct layouts of a bank, keyed by (rows, cols, blocks tuple)."""
    return {
        (lay.rows, lay.cols, lay.blocks): lay
        for lay in sorted(bank_layouts_index(bank).layouts, key=lambda l: (l.rows, l.cols, l.blocks))
    }


def pack_boards(column) -> np.ndarray:
    """A column of equal-length boards as a contiguous int8 array (n, cells)."""
    return board_matrix(column)
