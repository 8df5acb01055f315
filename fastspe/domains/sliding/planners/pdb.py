"""Pattern databases for a layout: the partition, the on-disk cache, and the build with progress.

Tables live in the user's cache folder (``$FASTSPE_PDB_DIR``, else ``$XDG_CACHE_HOME`` or
``~/.cache``, under ``fastspe/pdb/v<FORMAT_VERSION>``), one ``.npy`` file per pattern group, named by
the layout and the group's tiles, in the format of ``fastspe.domains.sliding.planners.pattern_files`` (a checksummed
trailer that binds the layout and the tiles, checked on load): a file that fails the check, or holds another
group's or layout's table, is rebuilt with a warning, never trusted silently.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ....errors import UserError
from .pattern_files import FORMAT_VERSION, read_pattern_table, table_binding, write_pattern_table
from ..kernels.pdb import UNSEEN, pattern_layer, pattern_seed, placements
from ..layout import Layout

MAX_GROUP = 6  # 6-tile tables of a 4x4 board: 5.8M bytes each, about 10 s to build
MAX_FREE_CELLS = 16  # larger boards (5x5, ...) search with graph distances only

Progress = Callable[[int, int], None]


def pdb_dir() -> Path:
    """The folder of the pattern-database files (``FASTSPE_PDB_DIR`` overrides it)."""
    override = os.environ.get("FASTSPE_PDB_DIR", "").strip()
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastspe" / "pdb" / f"v{FORMAT_VERSION}"


def default_partition(layout: Layout) -> tuple[tuple[int, ...], ...]:
    """Tile groups of at most MAX_GROUP tiles, spatially compact: the left and right halves of the
    rows above the last, then the last row. On the open 4x4 board this is the classic 6-6-3 split
    ({1,2,5,6,9,10}, {3,4,7,8,11,12}, {13,14,15})."""
    cells = layout.goal_cell[1:].astype(np.int64)
    rows, cols = divmod(cells, layout.cols)
    key = sorted(
        range(layout.tiles),
        key=lambda i: (rows[i] == layout.rows - 1, cols[i] >= (layout.cols + 1) // 2, rows[i], cols[i]),
    )
    order = [i + 1 for i in key]
    return tuple(tuple(sorted(order[i : i + MAX_GROUP])) for i in range(0, len(order), MAX_GROUP))


def uses_pdb(layout: Layout) -> bool:
    """Whether the solver uses pattern databases on this layout by default: boards with 10 or more
    tiles on at most 16 free cells (smaller ones are quick with graph distances alone)."""
    return layout.tiles >= 10 and layout.tiles + 1 <= MAX_FREE_CELLS


@functools.lru_cache(maxsize=256)
def parity_decides(layout: Layout) -> bool:
    """Whether permutation parity alone decides solvability (Wilson 1974): the free-cell graph is
    2-connected and not a cycle. Otherwise (a dead end, a bridge, a ring) some boards of the right
    parity are unsolvable, and ``reachable_table`` decides on small layouts."""
    free = [int(c) for c in np.flatnonzero(~layout.blocked)]
    nbrs = {c: [int(t) for t in layout.moves[c] if t >= 0] for c in free}
    if all(len(v) == 2 for v in nbrs.values()):
        return False
    for cut in free:  # no cell whose removal disconnects the others
        rest = [c for c in free if c != cut]
        seen, stack = {rest[0]}, [rest[0]]
        while stack:
            for t in nbrs[stack.pop()]:
                if t != cut and t not in seen:
                    seen.add(t)
                    stack.append(t)
        if len(seen) != len(rest):
            return False
    return True


MAX_EXACT_TILES = 9  # the full table of a 10-free-cell layout: 3.6M entries, a few seconds


def reachable_table(layout: Layout, progress: Progress | None = None) -> np.ndarray | None:
    """The exact distance of every board of a small layout (a pattern of all tiles: the placement fixes
    the blank), UNSEEN where unreachable; None above MAX_EXACT_TILES tiles."""
    if layout.tiles > MAX_EXACT_TILES:
        return None
    return load_or_build(layout, tuple(range(1, layout.tiles + 1)), progress)


def board_rank(layout: Layout, board: np.ndarray) -> int:
    """Index of a board in ``reachable_table``: the rank of its tiles' free-cell placement."""
    from ..kernels.pdb import rank_placement

    _, index = free_neighbours(layout)
    cells = np.empty(layout.tiles, dtype=np.int64)
    for c, v in enumerate(board):
        if v > 0:
            cells[v - 1] = index[c]
    return int(rank_placement(cells, layout.tiles, int((~layout.blocked).sum())))


def free_neighbours(layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """int16 (F, 4) free-cell neighbours by free index, and int16 (cells,) free index of each cell (-1 blocked)."""
    free = np.flatnonzero(~layout.blocked)
    index = np.full(layout.cells, -1, dtype=np.int16)
    index[free] = np.arange(len(free), dtype=np.int16)
    target = layout.moves[free]
    nbr = np.where(target >= 0, index[np.maximum(target, 0)], -1).astype(np.int16)
    return nbr, index


def pattern_file(layout: Layout, tiles: Sequence[int]) -> Path:
    name = f"{layout.rows}x{layout.cols}-{layout.tag}-t{'.'.join(map(str, tiles))}.npy"
    return pdb_dir() / name


def build_table(layout: Layout, tiles: Sequence[int], progress: Progress | None = None) -> np.ndarray:
    """The uint8 table (F!/(F-m)!,) of one pattern group, by BFS from the goal (see kernels/pdb.py)."""
    nbr, index = free_neighbours(layout)
    free = nbr.shape[0]
    m = len(tiles)
    size = placements(free, m)
    goal_pos = index[layout.goal_cell[list(tiles)]].astype(np.int64)
    table = np.full(size, UNSEEN, dtype=np.uint8)
    seen = np.zeros(size * free // 8 + 1, dtype=np.uint8)
    layer = pattern_seed(goal_pos, int(index[layout.goal_cell[0]]), nbr, free, table, seen)
    done, depth = 1, 0
    while layer.shape[0]:
        if progress is not None:
            progress(done, size)
        layer, filled = pattern_layer(layer, depth, m, nbr, free, table, seen)
        done += int(filled)
        depth += 1
    if progress is not None:
        progress(size, size)
    return table


TABLE_KIND = "pattern-bfs-u8"  # a uint8 entry per placement, by BFS over (placement, blank region)


def load_or_build(layout: Layout, tiles: Sequence[int], progress: Progress | None = None) -> np.ndarray:
    """The table of one pattern group: loaded from the cache (checked against its layout and tiles), or built
    (with ``progress(done, total)``) and saved."""
    size = placements(int((~layout.blocked).sum()), len(tiles))
    path = pattern_file(layout, tiles)
    binding = table_binding(layout, tiles, TABLE_KIND)
    table = read_pattern_table(path, size, binding)
    if table is not None:
        return table
    table = build_table(layout, tiles, progress)
    write_pattern_table(table, path, binding)
    return table


def mirror_cells(layout: Layout) -> np.ndarray | None:
    """int64 (cells,): each cell's image under transposition, if that maps the layout and its goal's
    blank cell onto themselves (square boards with symmetric blocks), else None."""
    if layout.rows != layout.cols:
        return None
    cells = np.arange(layout.cells)
    image = (cells % layout.cols) * layout.cols + cells // layout.cols
    if not np.array_equal(np.sort(image[list(layout.blocks)]), np.array(layout.blocks, dtype=np.int64)):
        return None
    blank = int(layout.goal_cell[0])
    return image if image[blank] == blank else None


@dataclass(frozen=True)
class PatternDatabases:
    """Additive disjoint tables of one layout, packed for the search kernel.

    ``group_of`` int16 (tiles + 1, 2): each tile's group in the direct sum and in the mirrored sum
    (-1: none); ``group_tiles`` int16 (G, MAX_GROUP) tiles of each group (padded with 0); ``group_size``
    and ``group_side`` int64 (G,) (side 1: looked up on the mirrored board, see ``mirror_cells``);
    ``offsets`` int64 (G,) start of each group's table in ``data`` (uint8, all tables end to end; below 0 for
    a 4-bit table, see ``assemble_databases``).
    """

    partition: tuple[tuple[int, ...], ...]
    group_of: np.ndarray
    group_tiles: np.ndarray
    group_size: np.ndarray
    group_side: np.ndarray
    offsets: np.ndarray
    data: np.ndarray
    mirror: np.ndarray | None = None

    @property
    def name(self) -> str:
        return "pdb-" + "-".join(str(len(g)) for g in self.partition) + ("+mirror" if self.mirror is not None else "")


def empty_databases(layout: Layout) -> PatternDatabases:
    """No tables: the kernel's PDB terms are 0 and h is the graph-distance sum alone."""
    return PatternDatabases(
        (),
        np.full((layout.tiles + 1, 2), -1, dtype=np.int16),
        np.zeros((0, MAX_GROUP), dtype=np.int16),
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(1, dtype=np.uint8),
    )


def pattern_databases(
    layout: Layout, partition=None, progress: Progress | None = None, mirrored: bool = True
) -> PatternDatabases:
    """All tables of ``partition`` (default: ``default_partition``), loaded or built.

    ``progress(done, total)`` counts table entries over all groups while building. On layouts
    symmetric about the diagonal (``mirror_cells``) and with ``mirrored``, the same tables are also
    looked up on the mirrored board: a second admissible sum, at no extra memory.
    """
    partition = tuple(tuple(sorted(int(t) for t in g)) for g in (partition or default_partition(layout)))
    flat = [t for g in partition for t in g]
    if len(set(flat)) != len(flat) or not all(1 <= t <= layout.tiles for t in flat):
        raise UserError(f"a partition must hold distinct tiles 1..{layout.tiles}, got {partition}")
    if any(len(g) > MAX_GROUP for g in partition):
        raise UserError(f"pattern groups hold at most {MAX_GROUP} tiles, got {partition}")
    free = int((~layout.blocked).sum())
    sizes = [placements(free, len(g)) for g in partition]
    total, before = sum(sizes), 0
    tables = []
    for g, size in zip(partition, sizes):
        step = None if progress is None else (lambda done, _total, b=before: progress(b + done, total))
        tables.append(load_or_build(layout, g, step))
        before += size
    return assemble_databases(layout, partition, tables, mirrored)


def assemble_databases(
    layout: Layout, partition, tables, mirrored: bool = True, packed: bool = False
) -> PatternDatabases:
    """The kernel's arrays for the tables of ``partition`` (uint8 tables, or with ``packed`` the 4-bit
    data blocks of ``fastspe.domains.sliding.planners.pdb_packed``, marked for the search by offsets below 0: -1 - start)."""
    mirror = mirror_cells(layout) if mirrored else None
    groups = [list(g) for g in partition]
    sides = [0] * len(groups)
    starts = np.concatenate([[0], np.cumsum([len(t) for t in tables])[:-1]]).astype(np.int64)
    offsets = list(-1 - starts if packed else starts)
    if mirror is not None:
        # tile t sits, on the mirrored board, where tile sigma(t) would: sigma(t) = goal label at mirror(goal cell of t)
        sigma = {t: int(layout.goal[mirror[layout.goal_cell[t]]]) for t in range(1, layout.tiles + 1)}
        inverse = {v: t for t, v in sigma.items()}
        groups += [[inverse[u] for u in g] for g in partition]
        sides += [1] * len(partition)
        offsets += offsets
    group_of = np.full((layout.tiles + 1, 2), -1, dtype=np.int16)
    group_tiles = np.zeros((len(groups), max([MAX_GROUP] + [len(g) for g in groups])), dtype=np.int16)
    for i, (g, side) in enumerate(zip(groups, sides)):
        group_of[g, side] = i
        group_tiles[i, : len(g)] = g
    return PatternDatabases(
        partition,
        group_of,
        group_tiles,
        np.array([len(g) for g in groups], dtype=np.int64),
        np.array(sides, dtype=np.int64),
        np.array(offsets, dtype=np.int64),
        np.concatenate(tables),
        mirror,
    )
