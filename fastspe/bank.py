"""Certified board banks: build them from a design, read them back validated.

The bank is a DataFrame (and a Parquet or JSONL file) with one row per board and the columns
``BANK_COLUMNS``. Boards are row-major lists of ints (0 blank, -1 blocked); ``certificate`` is the
U/D/L/R string that moves the blank from ``initial`` to ``goal`` in exactly ``depth`` moves.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from .design import Design, DesignCell
from .io import read_table, require_columns, write_table
from .kernels.walks import propose_walks
from .layout import DIRECTION_BYTES, Layout

BANK_COLUMNS = ["board_id", "cohort", "k", "blocks", "rows", "cols", "depth", "h", "initial", "goal",
                "certificate", "proposal_index", "seed"]
FIRST_CHUNK = 1024
MAX_CHUNK = 1 << 20  # proposals per kernel call: bounds memory (boards + paths) to ~60 MB at d* = 40
# Where a cell needs more than this many proposals per board asked for, its quota is not reachable.
PROPOSALS_PER_BOARD = 1000
MIN_PROPOSAL_CAP = 200_000
_INVERSE = np.array([1, 0, 3, 2], dtype=np.uint8)  # U<->D, L<->R

Progress = Callable[[int, int], None]


class QuotaError(ValueError):
    """A design cell has fewer distinct certified boards within the proposal cap than it asks for."""


def proposal_cap(count: int) -> int:
    return max(MIN_PROPOSAL_CAP, PROPOSALS_PER_BOARD * count)


def certificates(paths: np.ndarray) -> np.ndarray:
    """Certificate strings from walk paths uint8 (n, depth): the reversed walk, each move inverted."""
    letters = np.ascontiguousarray(DIRECTION_BYTES[_INVERSE[paths[:, ::-1]]])
    return letters.view(f"S{paths.shape[1]}").ravel().astype(str)


def _board_keys(boards: np.ndarray) -> np.ndarray:
    """One sortable key per row of int8 ``boards``: a uint64 of 4-bit cells where boards have at
    most 16 cells (the 4 x 4 case, exact since blocked cells are fixed per layout), else the raw bytes."""
    if boards.shape[1] <= 16:
        shifts = np.arange(boards.shape[1], dtype=np.uint64) * np.uint64(4)
        return np.bitwise_or.reduce((boards.astype(np.uint64) & np.uint64(15)) << shifts, axis=1)
    return np.ascontiguousarray(boards).view(np.dtype((np.void, boards.shape[1]))).ravel()


def _first_new(keys: np.ndarray, accepted: np.ndarray) -> np.ndarray:
    """Sorted indices of the first occurrence of each key that is not in sorted ``accepted``."""
    uniq, first = np.unique(keys, return_index=True)
    pos = np.searchsorted(accepted, uniq)
    seen = np.zeros(len(uniq), dtype=bool)
    inside = pos < len(accepted)
    seen[inside] = accepted[pos[inside]] == uniq[inside]
    return np.sort(first[~seen])


def _insert_sorted(accepted: np.ndarray, keys: np.ndarray) -> np.ndarray:
    keys = np.sort(keys)
    return np.insert(accepted, np.searchsorted(accepted, keys), keys)


def build_cell(cell: DesignCell, seed: int, stream: int, taken: np.ndarray | None = None,
               progress: Progress | None = None, cap: int | None = None):
    """Accept ``cell.count`` distinct certified boards in proposal-index order.

    ``taken`` holds boards accepted earlier for the same layout and depth (another cohort),
    which are skipped as duplicates. Returns (boards int8 (count, cells), paths uint8, indices
    int64) or raises ``QuotaError``.
    """
    layout = cell.layout
    cap = proposal_cap(cell.count) if cap is None else cap
    prior = np.empty((0, layout.cells), dtype=np.int8) if taken is None else taken
    accepted = np.sort(_board_keys(prior))  # sorted, for O(log n) membership per new board
    kept_boards, kept_paths, kept_index = [], [], []
    have, start, chunk = 0, 0, min(FIRST_CHUNK, cap)
    while have < cell.count and start < cap:
        n = min(chunk, cap - start)
        boards, paths, ok = propose_walks(layout.goal, layout.moves, layout.raises,
                                          cell.depth, seed, stream, start, n)
        good = np.flatnonzero(ok)
        new_keys = _board_keys(boards[good])
        sel = _first_new(new_keys, accepted)[: cell.count - have]
        fresh = good[sel]
        accepted = _insert_sorted(accepted, new_keys[sel])
        kept_boards.append(boards[fresh])
        kept_paths.append(paths[fresh])
        kept_index.append(start + fresh)
        have += len(fresh)
        start += n
        if progress is not None:
            progress(len(fresh), 0)
        # proposals still needed, estimated from the acceptance rate so far, with headroom
        rate = max(have, 1) / start
        chunk = int(min(max(2 * (cell.count - have) / rate, FIRST_CHUNK), 4 * start + FIRST_CHUNK, MAX_CHUNK))
    if have < cell.count:
        raise QuotaError(f"cell {cell.name}: found {have} distinct certified boards in {start:,} proposals, "
                         f"the design asks for {cell.count}; lower the count or choose another depth or layout")
    return np.concatenate(kept_boards), np.concatenate(kept_paths), np.concatenate(kept_index)


def build_bank(design: Design, progress: Progress | None = None) -> pd.DataFrame:
    """Build the certified bank of ``design`` (deterministic in the design and its seed).

    ``progress(boards_done, total)`` is called as boards are accepted.
    """
    frames = []
    accepted: dict[tuple, list[np.ndarray]] = {}
    total = design.total
    done = [0]

    def tick(n: int, _):
        done[0] += n
        if progress is not None:
            progress(done[0], total)

    for stream, cell in enumerate(design.cells):
        key = (cell.layout.blocks, cell.depth)
        taken = np.concatenate(accepted[key]) if key in accepted else None
        boards, paths, index = build_cell(cell, design.seed, stream, taken, tick)
        accepted.setdefault(key, []).append(boards)
        frames.append(_cell_frame(cell, design.seed, boards, paths, index))
    return pd.concat(frames, ignore_index=True)


def _cell_frame(cell: DesignCell, seed: int, boards, paths, index) -> pd.DataFrame:
    layout, n = cell.layout, len(boards)
    width = max(3, len(str(n - 1)))
    name = cell.name
    ids = [f"{name}-{i:0{width}d}" for i in range(n)]
    goal = layout.goal.tolist()
    return pd.DataFrame({
        "board_id": ids,
        "cohort": cell.cohort,
        "k": layout.k,
        "blocks": [list(layout.blocks)] * n,
        "rows": layout.rows,
        "cols": layout.cols,
        "depth": cell.depth,
        "h": cell.depth,  # every step of the walk raised h by exactly one
        "initial": boards.astype(np.int64).tolist(),
        "goal": [goal] * n,
        "certificate": certificates(paths),
        "proposal_index": index.astype(np.int64),
        "seed": seed,
    }, columns=BANK_COLUMNS)


def write_bank(bank: pd.DataFrame, path) -> None:
    write_table(bank, path)


def read_bank(path) -> pd.DataFrame:
    """Read a bank file, checking its columns; errors name the file."""
    bank = read_table(path)
    require_columns(bank, BANK_COLUMNS, f"{path}: its rows", "make one with `fastspe bank build`")
    bank = bank[BANK_COLUMNS].copy()
    for col in ("blocks", "initial", "goal"):
        bank[col] = [list(map(int, v)) for v in bank[col]]
    if bank["board_id"].duplicated().any():
        dup = bank.loc[bank["board_id"].duplicated(), "board_id"].iloc[0]
        raise ValueError(f"{path}: board_id {dup!r} appears more than once")
    return bank


def layout_keys(bank: pd.DataFrame) -> list[tuple[int, int, tuple[int, ...]]]:
    """The (rows, cols, blocks tuple) of each board of a bank, in row order."""
    return [(int(r), int(c), tuple(int(v) for v in b)) for r, c, b in zip(bank["rows"], bank["cols"], bank["blocks"])]


def bank_layouts(bank: pd.DataFrame) -> dict[tuple, Layout]:
    """The distinct layouts of a bank, keyed by (rows, cols, blocks tuple)."""
    return {key: Layout(*key) for key in sorted(set(layout_keys(bank)))}


def pack_boards(column) -> np.ndarray:
    """A column of equal-length board lists as a contiguous int8 array (n, cells)."""
    return np.ascontiguousarray(np.array(list(column), dtype=np.int8).reshape(len(column), -1))
