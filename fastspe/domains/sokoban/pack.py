"""A Sokoban bank packed for the replay kernel (``kernels.sokoban_replay``): one set of level tables per row.

Every level has its own room, so unlike the sliding puzzle's shared layouts the tables are stacked per bank row,
padded to the widest grid: ``moves`` -1 and ``push_distance`` ``DEAD_PUSHES`` on padding cells, which no move
reaches. The ``layout`` of a row, in verdict tables, is its level's size ``"RxC"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import UserError
from .kernels.replay import MAX_BOXES, MAX_CELLS
from .bank_table import bank_objective
from .columns import BANK_COLUMNS
from .level import DEAD_PUSHES, Level, parse_level

__all__ = ["LevelTables", "SokobanTables", "pack_levels", "pack_table"]


@dataclass(frozen=True)
class LevelTables:
    """Levels as the replay kernel reads them (see ``kernels.sokoban_replay.replay_levels``).

    moves : int16 (m, cells, 4); push_distance : int16 (m, cells); player : int16 (m,);
    boxes : int16 (m, MAX_BOXES), sorted, padded with -1; nboxes : int8 (m,)
    """

    moves: np.ndarray
    push_distance: np.ndarray
    player: np.ndarray
    boxes: np.ndarray
    nboxes: np.ndarray


def pack_levels(levels: Sequence[Level]) -> LevelTables:
    """Stack the tables of ``levels`` (parsed ``Level`` objects), padded to the widest grid."""
    m = len(levels)
    cells = max((lv.cells for lv in levels), default=1)
    if cells > MAX_CELLS:  # parse_level keeps levels to 10 x 10; a Level made by hand might not be
        raise UserError(f"a level of {cells} cells is too large for the replay kernel (at most {MAX_CELLS})")
    moves = np.full((m, cells, 4), -1, dtype=np.int16)
    push = np.full((m, cells), DEAD_PUSHES, dtype=np.int16)
    player = np.empty(m, dtype=np.int16)
    boxes = np.full((m, MAX_BOXES), -1, dtype=np.int16)
    nboxes = np.empty(m, dtype=np.int8)
    for i, lv in enumerate(levels):
        moves[i, : lv.cells] = lv.moves
        push[i, : lv.cells] = lv.push_distance
        player[i] = lv.player
        boxes[i, : len(lv.boxes)] = lv.boxes
        nboxes[i] = len(lv.boxes)
    return LevelTables(moves, push, player, boxes, nboxes)


@dataclass(frozen=True)
class SokobanTables:
    """A Sokoban bank packed for replay: ``domains.base.Packed`` plus the level tables.

    ids : string (m,), the board ids (an Arrow array, for hashed look-ups); depth, boxes, pushes : int64 (m,)
    cohort_code : int32 (m,), index into ``cohort_names``; layout_index : int64 (m,), index into
    ``layout_names`` (the level sizes "RxC", ascending); levels : the parsed ``Level`` of each row (object (m,));
    tables : their ``LevelTables``; objective : what ``depth`` counts, "moves" or "pushes" (``cost_unit``)
    """

    ids: pa.Array
    depth: np.ndarray
    boxes: np.ndarray
    pushes: np.ndarray
    cohort_code: np.ndarray
    cohort_names: pa.Array
    layout_index: np.ndarray
    layout_names: pa.Array
    levels: np.ndarray
    tables: LevelTables
    objective: str = "moves"
    domain: ClassVar[str] = "sokoban"  # domains.base.Packed: scoring finds its replay by it

    def stratum_values(self) -> np.ndarray:
        """The second stratum: each level's number of boxes."""
        return self.boxes

    def rows_of(self, board_ids) -> np.ndarray:
        """Bank rows of ``board_ids`` (any sequence or Arrow array of str), -1 where unknown."""
        ids = board_ids if isinstance(board_ids, (pa.Array, pa.ChunkedArray)) else pa.array(board_ids, pa.string())
        rows = pc.index_in(ids.cast(pa.string()), value_set=self.ids)
        return pc.fill_null(rows, -1).to_numpy().astype(np.int64)


def pack_table(table: pa.Table) -> SokobanTables:
    """Parse every level of a Sokoban bank table (``BANK_COLUMNS``) and pack it for replay.

    Each level is parsed once however often it repeats; a level that does not parse, or whose ``boxes`` column
    disagrees with it, is a ``UserError`` naming its board_id.
    """
    missing = [c for c in BANK_COLUMNS if c not in table.column_names]
    if missing:
        raise UserError(f"a Sokoban bank needs the columns {list(BANK_COLUMNS)}; this one lacks {missing}")
    ids = table.column("board_id").combine_chunks().cast(pa.string())
    texts = table.column("level").to_pylist()
    stated = table.column("boxes").to_numpy().astype(np.int64)
    parsed: dict[str, Level] = {}
    levels = np.empty(len(texts), dtype=object)
    for i, text in enumerate(texts):
        lv = parsed.get(text)
        if lv is None:
            try:
                lv = parsed[text] = parse_level(text)
            except UserError as exc:
                raise UserError(f"board {ids[i].as_py()!r}: {exc}") from None
        if len(lv.boxes) != stated[i]:
            raise UserError(
                f"board {ids[i].as_py()!r}: its level has {len(lv.boxes)} boxes, the boxes column says {stated[i]}"
            )
        levels[i] = lv
    sizes = np.array([lv.size for lv in levels], dtype=object)
    names, index = np.unique(sizes.astype(str), return_inverse=True) if len(sizes) else (np.array([], str), sizes)
    cohort = table.column("cohort").combine_chunks().cast(pa.string())
    coded = pc.dictionary_encode(cohort)
    return SokobanTables(
        ids,
        table.column("depth").to_numpy().astype(np.int64),
        stated,
        table.column("pushes").to_numpy().astype(np.int64),
        coded.indices.to_numpy().astype(np.int32),
        coded.dictionary,
        np.asarray(index, dtype=np.int64),
        pa.array(list(names), pa.string()),
        levels,
        pack_levels(list(levels)),
        bank_objective(table),
    )


def replay_packed(packed: SokobanTables, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray) -> tuple:
    """The domain's ``replay``: plan i (``codes[offsets[i]:offsets[i + 1]]``) on bank row ``rows[i]``, the kernel's 7
    outputs."""
    from .kernels.replay import replay_levels

    t = packed.tables
    return replay_levels(
        np.asarray(rows, dtype=np.int64), codes, offsets, t.moves, t.push_distance, t.player, t.boxes, t.nboxes
    )


def cost_unit(packed: SokobanTables) -> str:
    """The domain's ``cost_unit``: what the bank certifies, moves or pushes."""
    return packed.objective


def plan_costs(
    packed: SokobanTables, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray, status: np.ndarray
) -> np.ndarray:
    """The domain's ``plan_costs``: the pushes of each plan's legal prefix (``kernels.pushes``) on a push bank, the
    plan lengths on a move bank."""
    if packed.objective == "moves":
        return np.diff(offsets)
    from .kernels.pushes import count_pushes

    t = packed.tables
    return count_pushes(np.asarray(rows, dtype=np.int64), codes, offsets, t.moves, t.player, t.boxes, t.nboxes)
