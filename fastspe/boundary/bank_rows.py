"""The shapes a bank check works with: a bank's distinct layouts, and errors that name the file, row and board."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..domains.sliding.layout import Layout
from .errors import InputError, input_error

FIX = "rebuild it with `fastspe bank build` (and `fastspe bank verify` it)"


@dataclass(frozen=True)
class BankLayouts:
    """The distinct layouts of a bank and the index of each board's layout in ``layouts``."""

    layouts: tuple[Layout, ...]
    index: np.ndarray  # int64 (n,)


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
