"""The 7-8 pattern databases of the open 4x4 board: 4 bits per entry, built by a sweep per depth.

The tiles of the top two rows (1-8) and of the bottom two (9-15) form the 7-8 split (Korf and Felner's,
on fastspe's blank-last goal), looked up on the board and on its mirror image like the 6-6-3. Each
table is built once by ``fastspe.domains.sliding.kernels.pdb_sweep`` on every core (NUMBA_NUM_THREADS) into the
pattern-database folder (``fastspe.domains.sliding.planners.pdb.pdb_dir``), checksummed and written atomically like the
small tables: 288 MB on disk and in memory for both, about 650 MB while the 8-tile table is built.
``fastspe solve --heuristic 7-8`` builds them (with progress); after that every solve of the open
board uses them (``heuristic`` says ``pdb-7-8+mirror+graph-distance``).

A file is the group's data block as the search reads it (``kernels.pdb_sweep.packed_value``): the
int8 graph distance of each free cell to each tile's goal (m, F), then the nibbles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from ...._numba.parallel import thread_count
from .pattern_files import read_pattern_table, table_binding, table_present, write_pattern_table
from ..layout import Layout
from ....errors import UserError
from ..kernels.pdb import placements
from ..kernels.pdb_sweep import SATURATED, sweep_index, sweep_layer, sweep_seed
from .pdb import PatternDatabases, Progress, assemble_databases, free_neighbours, pdb_dir

PACKED_KIND = "pattern-sweep-q4"  # the distance header, then (value - distance sum) / 2 in 4 bits
STATES_PER_SECOND = 3.0e6  # the sweep per CPU-second (the 7-8 build: 1.57G states in 512 CPU-s, README)


def strong_partition(layout: Layout) -> tuple[tuple[int, ...], ...] | None:
    """The 7-8 split of the open 4x4 board (the tiles of the bottom two rows, then the top two); None elsewhere."""
    if (layout.rows, layout.cols) != (4, 4) or layout.blocks:
        return None
    return tuple(range(9, 16)), tuple(range(1, 9))


def packed_file(layout: Layout, tiles: Sequence[int]) -> Path:
    return pdb_dir() / f"{layout.rows}x{layout.cols}-{layout.tag}-t{'.'.join(map(str, tiles))}-q4.npy"


def packed_length(layout: Layout, m: int) -> int:
    """Bytes of one group's data block: the distance header and the nibbles."""
    free = int((~layout.blocked).sum())
    return m * free + (placements(free, m) + 1) // 2


def build_estimate(layout: Layout, partition) -> tuple[int, float]:
    """(bytes on disk, seconds) to build the tables of ``partition`` with this process's threads."""
    nbr, _ = free_neighbours(layout)
    states = sum(sweep_index(nbr, len(g))["states"] for g in partition)
    return sum(packed_length(layout, len(g)) for g in partition), states / (STATES_PER_SECOND * thread_count())


def distance_header(layout: Layout, tiles: Sequence[int]) -> np.ndarray:
    """int8 (m, F): the graph distance from each free cell to the goal cell of each tile."""
    free = np.flatnonzero(~layout.blocked)
    return layout.distances[np.ix_(layout.goal_cell[list(tiles)], free)].astype(np.int8)


def build_packed(layout: Layout, tiles: Sequence[int], progress: Progress | None = None) -> np.ndarray:
    """The uint8 data block of one group (header, then nibbles), by the sweep of kernels/pdb_sweep.py."""
    nbr, index = free_neighbours(layout)
    free, m = nbr.shape[0], len(tiles)
    size = placements(free, m)
    ix = sweep_index(nbr, m)
    dist = distance_header(layout, tiles)
    codes = np.zeros((ix["states"] + 31) // 32, dtype=np.int64)
    table = np.full((size + 15) // 16, -1, dtype=np.int64)
    goal = index[layout.goal_cell[list(tiles)]].astype(np.int64)
    sweep_seed(
        codes,
        table,
        goal,
        int(index[layout.goal_cell[0]]),
        nbr,
        dist,
        ix["comb_rank"],
        ix["region_of"],
        ix["block_start"],
        ix["popcount"],
    )
    threads = thread_count()
    done, depth = 1, 0
    while True:
        if progress is not None:
            progress(done, size)
        marked, filled = sweep_layer(
            codes,
            table,
            depth,
            threads,
            nbr,
            dist,
            ix["comb_rank"],
            ix["comb_cells"],
            ix["region_of"],
            ix["region_mask"],
            ix["block_comb"],
            ix["block_region"],
            ix["block_start"],
            ix["perm_cells"],
            ix["popcount"],
        )
        done += int(filled)
        depth += 1
        if marked == 0:
            break
    del codes
    if progress is not None:
        progress(size, size)
    return np.concatenate([dist.ravel().view(np.uint8), table.view(np.uint8)[: (size + 1) // 2]])


def saturated_entries(block: np.ndarray, layout: Layout, m: int) -> int:
    """How many placements of a data block hold the nibble 15 (a lower bound, or never reached)."""
    free = int((~layout.blocked).sum())
    size = placements(free, m)
    nibbles = block[m * free :]
    count = int(np.count_nonzero((nibbles & 15) == SATURATED) + np.count_nonzero((nibbles >> 4) == SATURATED))
    return count - (1 if size % 2 else 0) * int((nibbles[-1] >> 4) == SATURATED)


def load_or_build_packed(layout: Layout, tiles: Sequence[int], progress: Progress | None = None) -> np.ndarray:
    """One group's data block: loaded from the cache (checked), or built and saved."""
    path = packed_file(layout, tiles)
    binding = table_binding(layout, tiles, PACKED_KIND)
    block = read_pattern_table(path, packed_length(layout, len(tiles)), binding)
    if block is not None:
        return block
    block = build_packed(layout, tiles, progress)
    write_pattern_table(block, path, binding)
    return block


def strong_present(layout: Layout) -> bool:
    """Whether the 7-8 tables of ``layout`` are in the cache folder (checked when they are loaded)."""
    partition = strong_partition(layout)
    return partition is not None and all(table_present(packed_file(layout, g)) for g in partition)


def strong_tables(layout: Layout, progress: Progress | None = None) -> tuple[tuple[tuple[int, ...], ...], list]:
    """The 7-8 partition and its data blocks, loaded or built (``progress(done, total)`` over both)."""
    partition = strong_partition(layout)
    if partition is None:
        raise UserError(
            f"the 7-8 pattern databases are for the open 4x4 board, not {layout.rows}x{layout.cols}"
            + (f" with blocks {list(layout.blocks)}" if layout.blocks else "")
        )
    free = int((~layout.blocked).sum())
    sizes = [placements(free, len(g)) for g in partition]
    total, before, blocks = sum(sizes), 0, []
    for g, size in zip(partition, sizes):
        step = None if progress is None else (lambda done, _total, b=before: progress(b + done, total))
        blocks.append(load_or_build_packed(layout, g, step))
        before += size
    return partition, blocks


def strong_databases(layout: Layout, progress: Progress | None = None) -> PatternDatabases:
    """The 7-8 tables of the open 4x4 board for the search, direct and mirrored (built first if missing)."""
    partition, blocks = strong_tables(layout, progress)
    return assemble_databases(layout, partition, blocks, packed=True)


__all__ = [
    "build_estimate",
    "build_packed",
    "load_or_build_packed",
    "packed_file",
    "saturated_entries",
    "strong_databases",
    "strong_partition",
    "strong_present",
    "strong_tables",
]
