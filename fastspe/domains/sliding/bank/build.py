"""Certified sliding-puzzle banks built from a design: h-raising walks from the goal, accepted in proposal order.

The bank is an Arrow table or a DataFrame (and a Parquet or JSONL file) with one row per board and the
columns ``bank.table.BANK_COLUMNS``. Boards are row-major int8 lists (0 blank, -1 blocked), Arrow-backed in the
DataFrame (``pd.ArrowDtype``), so a million boards are one buffer, not a million Python lists;
``board_matrix`` gives them as an (n, cells) int8 array. ``certificate`` is the U/D/L/R string that moves
the blank from ``initial`` to ``goal`` in exactly ``depth`` moves. Files go through
``fastspe.boundary.banks``, which checks them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from ....boundary.banks import bank_frame, write_bank_tables
from ...._names import moved_names
from ...designs import QuotaError
from .acceptance import KeySet, board_keys, first_new, next_chunk, proposal_cap
from .design import Design, DesignCell
from .search import build_search_cell
from ..kernels.walks import propose_walks
from ..layout import DIRECTION_BYTES

__all__ = ["build_bank", "build_bank_table", "bank_pieces", "design_pieces", "stream_bank", "certificates"]
# fastspe 0.1 read and wrote banks here: that is every domain's, in the boundary now
__getattr__ = moved_names(
    __name__,
    {
        "read_bank": "fastspe.boundary.banks",
        "write_bank": "fastspe.boundary.banks",
        "bank_to_table": "fastspe.boundary.banks",
    },
)
FIRST_CHUNK = 1024
MAX_CHUNK = 1 << 18  # proposals per kernel call: bounds its output (boards + paths) to ~15 MB at d* = 40
PIECE_ROWS = 1 << 16  # rows per table that ``bank_pieces`` yields (and the bank writer checks at once)
_INVERSE = np.array([1, 0, 3, 2], dtype=np.uint8)  # U<->D, L<->R

Progress = Callable[[int, int], None]


def certificates(paths: np.ndarray) -> pa.StringArray:
    """Certificate strings from walk paths uint8 (n, depth): the reversed walk, each move inverted.

    Built as one Arrow buffer of letters (no Python string per board).
    """
    letters = np.ascontiguousarray(DIRECTION_BYTES[_INVERSE[paths[:, ::-1]]])
    return _fixed_width_strings(letters)


def _fixed_width_strings(chars: np.ndarray) -> pa.StringArray:
    """An Arrow string array from a uint8 (n, width) array of ASCII bytes, one row per string."""
    n, width = chars.shape
    offsets = np.arange(n + 1, dtype=np.int64) * width
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(chars.tobytes())).cast(pa.string())


def board_ids(name: str, n: int, start: int = 0, stop: int | None = None) -> pa.StringArray:
    """``NAME-000``, ``NAME-001``, ...: ids ``start .. stop - 1`` of a cell of ``n`` boards, zero-padded to at
    least 3 digits (the width of ``n - 1``), built without a Python loop."""
    width = max(3, len(str(n - 1)))
    prefix = np.frombuffer(f"{name}-".encode(), dtype=np.uint8)
    place = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    rows = np.arange(start, n if stop is None else stop, dtype=np.int64)
    digits = (rows[:, None] // place) % 10 + ord("0")
    return _fixed_width_strings(np.hstack([np.broadcast_to(prefix, (len(rows), len(prefix))), digits.astype(np.uint8)]))


def accepted_walks(
    cell: DesignCell,
    seed: int,
    stream: int,
    accepted: KeySet,
    progress: Progress | None = None,
    cap: int | None = None,
    propose: Callable = propose_walks,
):
    """Yield (boards int8, paths uint8, proposal indices int64) of each kernel call's accepted walks, in
    proposal order, until ``cell.count`` distinct certified boards are accepted. ``accepted`` holds the keys
    of boards taken earlier for the same layout and depth (skipped as duplicates); this cell's are added
    to it. Raises ``QuotaError`` when ``cap`` proposals fall short. ``propose`` computes proposal
    ranges: the ``propose_walks`` kernel, or ``fastspe.distributed.Proposals`` on Dask workers (same boards:
    proposal i is keyed by i).
    """
    layout = cell.layout
    cap = proposal_cap(cell.count) if cap is None else cap
    have, start, chunk = 0, 0, min(FIRST_CHUNK, cap)
    while have < cell.count and start < cap:
        n = min(chunk, cap - start)
        boards, paths, ok = propose(layout.goal, layout.moves, layout.raises, cell.depth, seed, stream, start, n)
        good = np.flatnonzero(ok)
        boards, paths = boards[good], paths[good]  # the rejected walks (most, at large depths) go now
        new_keys = board_keys(boards)
        sel = first_new(new_keys, accepted)[: cell.count - have]
        accepted.add(new_keys[sel])
        have += len(sel)
        start += n
        if progress is not None:
            progress(len(sel), 0)
        yield boards[sel], paths[sel], start - n + good[sel]
        chunk = next_chunk(cell.count, have, start, FIRST_CHUNK, MAX_CHUNK)
    if have < cell.count:
        raise QuotaError(
            f"cell {cell.name}: found {have} distinct certified boards in {start:,} proposals, "
            f"the design asks for {cell.count}; lower the count or choose another depth or layout"
        )


def build_cell(
    cell: DesignCell,
    seed: int,
    stream: int,
    taken: np.ndarray | None = None,
    progress: Progress | None = None,
    cap: int | None = None,
    propose: Callable = propose_walks,
):
    """Accept ``cell.count`` distinct certified boards in proposal-index order (``accepted_walks``).

    ``taken`` holds boards accepted earlier for the same layout and depth (another cohort), which are
    skipped as duplicates. Returns (boards int8 (count, cells), paths uint8, indices int64) or raises
    ``QuotaError``.
    """
    prior = np.empty((0, cell.layout.cells), dtype=np.int8) if taken is None else taken
    parts = list(accepted_walks(cell, seed, stream, KeySet(board_keys(prior)), progress, cap, propose))
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))


def bank_pieces(design: Design, progress: Progress | None = None, propose: Callable = propose_walks):
    """Yield the bank of ``design`` as Arrow tables of at most ``PIECE_ROWS`` rows, in bank order, as each
    kernel call's walks are accepted (deterministic in the design and its seed; ``build_bank_table`` is
    their concatenation). Only the keys of the boards taken so far are kept between pieces.

    ``progress(boards_done, total)`` is called as boards are accepted; ``propose``: see ``accepted_walks``.
    """
    taken: dict[tuple, KeySet] = {}  # per (blocks, depth)
    total = design.total
    done = [0]

    def tick(n: int, _):
        done[0] += n
        if progress is not None:
            progress(done[0], total)

    searched = any(cell.retreat is not None for cell in design.cells)
    variable = len({cell.layout.cells for cell in design.cells}) > 1  # mixed board sizes: variable-length lists
    for stream, cell in enumerate(design.cells):
        key = (cell.layout.blocks, cell.depth)
        if key not in taken:
            taken[key] = KeySet(board_keys(np.empty((0, cell.layout.cells), dtype=np.int8)))
        rows = 0
        if not cell.retreat:  # None, or 0: an h-walk board has d* = h, certified without a search
            for boards, paths, index in accepted_walks(cell, design.seed, stream, taken[key], tick, propose=propose):
                for lo in range(0, len(boards), PIECE_ROWS):
                    hi = min(lo + PIECE_ROWS, len(boards))
                    piece = _cell_table(
                        cell, design.seed, rows, boards[lo:hi], certificates(paths[lo:hi]), index[lo:hi], searched
                    )
                    rows += hi - lo
                    yield _variable_boards(piece) if variable else piece
        else:
            boards, plans, index = build_search_cell(cell, design.seed, stream, progress=tick, taken_keys=taken[key])
            taken[key].add(board_keys(boards))
            piece = _cell_table(cell, design.seed, 0, boards, pa.array(plans, pa.string()), index, searched)
            yield _variable_boards(piece) if variable else piece


def build_bank_table(design: Design, progress: Progress | None = None, propose: Callable = propose_walks) -> pa.Table:
    """Build the certified bank of ``design`` as an Arrow table (deterministic in the design and its seed).

    ``progress(boards_done, total)`` is called as boards are accepted; ``propose``: see ``accepted_walks``.
    """
    return pa.concat_tables(list(bank_pieces(design, progress, propose))).combine_chunks()


def _variable_boards(table: pa.Table) -> pa.Table:
    for name in ("initial", "goal"):
        table = table.set_column(table.schema.get_field_index(name), name, table.column(name).cast(pa.list_(pa.int8())))
    return table


def proposal_piece(layout, first: int, count: int, depth: int, seed: int, stream: int):
    """Proposals ``first .. first + count - 1`` of a cell on a worker process (``fastspe.distributed.Proposals``)."""
    from ....workers.forkserver import apply_share_of_cores

    apply_share_of_cores()
    goal, moves, raises = layout
    return propose_walks(goal, moves, raises, depth, seed, stream, first, count)


def design_pieces(design: Design, progress: Progress | None = None, executor=None, args=None):
    """The bank of ``design`` as ``bank_pieces`` yields it (one table when its boards are of mixed sizes: they are
    checked as a whole), its proposals computed on ``executor`` (a Dask client or a local pool) when given: the
    domain's ``bank_pieces`` (it takes no command-line options, ``args``)."""
    from ....distributed import Proposals

    propose = propose_walks if executor is None else Proposals(executor, proposal_piece)
    try:
        if len({cell.layout.cells for cell in design.cells}) > 1:  # boards of mixed sizes: checked as a whole
            yield build_bank_table(design, progress, propose)
        else:
            yield from bank_pieces(design, progress, propose)
    finally:
        if executor is not None:
            propose.close()


def stream_bank(design: Design, path, progress: Progress | None = None, executor=None) -> int:
    """Build the bank of ``design`` straight into the file ``path`` (the bytes ``write_bank`` writes), a piece
    at a time, so that memory does not grow with the bank; returns the number of boards written."""
    return write_bank_tables(design_pieces(design, progress, executor), path, "sliding")


def build_bank(design: Design, progress: Progress | None = None) -> pd.DataFrame:
    """Build the certified bank of ``design`` as a DataFrame (boards as Arrow-backed int8 lists)."""
    return bank_frame(build_bank_table(design, progress))


def _cell_table(
    cell: DesignCell, seed: int, first: int, boards, plans: pa.StringArray, index, searched: bool
) -> pa.Table:
    """The rows ``first ..`` of one cell; ``searched`` (the bank has search-certified cells) adds ``retreat`` and
    ``certificate_kind`` to every row, so that h-walk-only banks keep the columns they always had."""
    layout, n = cell.layout, len(boards)
    retreat = cell.retreat or 0

    def boards_of(flat: np.ndarray) -> pa.Array:
        return pa.FixedSizeListArray.from_arrays(pa.array(flat.astype(np.int8, copy=False)), layout.cells)

    offsets = np.arange(n + 1, dtype=np.int32) * layout.k
    columns = {
        "board_id": board_ids(cell.name, cell.count, first, first + n),
        "cohort": pa.DictionaryArray.from_arrays(np.zeros(n, dtype=np.int32), [cell.cohort]).cast(pa.string()),
        "k": np.full(n, layout.k, dtype=np.int64),
        "blocks": pa.ListArray.from_arrays(
            pa.array(offsets), pa.array(np.tile(np.array(layout.blocks, dtype=np.int8), n), pa.int8())
        ),
        "rows": np.full(n, layout.rows, dtype=np.int64),
        "cols": np.full(n, layout.cols, dtype=np.int64),
        "depth": np.full(n, cell.depth, dtype=np.int64),
        "h": np.full(n, cell.depth - retreat, dtype=np.int64),  # an h-walk's every step raised h by one
        "initial": boards_of(boards.ravel()),
        "goal": boards_of(np.tile(layout.goal, n)),
        "certificate": plans,
        "proposal_index": index.astype(np.int64),
        "seed": np.full(n, seed, dtype=np.int64),
    }
    if searched:
        kind = "search" if cell.retreat else "h-walk"  # retreat 0 cells are h-walks: d* = h needs no search
        columns["retreat"] = np.full(n, retreat, dtype=np.int64)
        columns["certificate_kind"] = pa.DictionaryArray.from_arrays(np.zeros(n, dtype=np.int32), [kind]).cast(
            pa.string()
        )
    return pa.table(columns)


def demo_bank() -> pa.Table:
    """The paper's bank (Appendix A): the demo's."""
    from .design import paper_design

    return build_bank_table(paper_design())


def warm_bank() -> pa.Table:
    """One board of each cell of the paper's design: every layout, depth and certificate kind of the demo's bank."""
    from dataclasses import replace

    from .design import paper_design

    design = paper_design()
    return build_bank_table(replace(design, cells=tuple(replace(cell, count=1) for cell in design.cells)))
