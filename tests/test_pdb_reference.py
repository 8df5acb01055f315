"""The pattern-database search against plain-Python twins (tests/naive_pdb.py): tables from an independent
0-1 BFS, an independent IDA* over the same 6-6-3 tables with mirrored lookups, iteration by iteration, and
the split search counting nodes as the serial one does."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.kernels.pdb import placements
from fastspe.domains.sliding.kernels.search import MAX_DEPTH, bounded_dfs
from fastspe.domains.sliding.planners import solver as solver_module
from fastspe.domains.sliding.planners.pdb import build_table, pattern_databases
from fastspe.domains.sliding.planners.solver import solve, solve_boards

from . import naive_pdb as ref
from . import naive_search as naive
from .test_solver import KORF, korf_boards


@pytest.fixture(autouse=True)
def pdb_folder(tmp_path_factory, monkeypatch):
    """Tables go to one folder per test session, never the user's cache."""
    folder = tmp_path_factory.getbasetemp() / "pdb"
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(folder))
    return folder


@pytest.mark.parametrize("side, tiles", [(4, (13, 14, 15)), (3, (1, 2, 4, 5)), (3, (3, 6, 7, 8))])
def test_tables_match_an_independent_zero_one_bfs(side, tiles):
    want = ref.pattern_table(side, side, (), tiles)
    got = build_table(Layout(side, side, ()), tiles)
    assert len(want) == len(got) == placements(side * side, len(tiles))
    assert all(got[ref.rank(list(pos), side * side)] == d for pos, d in want.items())


def kernel_iterations(tables, board):
    """[(bound, nodes)] of the serial kernel, one ``bounded_dfs`` call per IDA* iteration."""
    from fastspe.domains.sliding.kernels.search import _unpack

    packed = np.array(board, dtype=np.int8)
    bound, out = tables.h(packed), []
    while True:
        tile_at, cell_of, blank = _unpack(packed, packed.shape[0] - 1)
        length, next_bound, nodes = bounded_dfs(
            tile_at,
            cell_of,
            blank,
            0,
            -1,
            bound,
            *tables.args(),
            np.zeros(MAX_DEPTH, dtype=np.int64),
            2**62,
            np.full(1, 2**40, dtype=np.int64),
            0,
        )
        out.append((bound, int(nodes)))
        if length >= 0:
            return out
        bound = next_bound


def reference_heuristic(tables):
    db = tables.databases
    sizes = [placements(16, len(g)) for g in db.partition]
    return ref.Heuristic(4, db.partition, [db.data[o : o + n] for o, n in zip(db.offsets, sizes)])


@pytest.mark.slow
@pytest.mark.skipif(not KORF.exists(), reason="shared/data/korf10.tsv is not here")
def test_korf_iterations_match_an_independent_6_6_3_search():
    layout = Layout(4, 4, ())
    tables = solver_module.search_tables(layout, pattern_databases(layout))
    h = reference_heuristic(tables)
    easy = [(b, d) for b, d in korf_boards() if d in (45, 46, 41)]  # Korf 12, 19, 55: a few thousand nodes each
    raised = 0
    for board, optimal in easy:
        length, _, iterations = ref.ida_star(tuple(board), h, 4)
        assert length == optimal
        assert kernel_iterations(tables, board) == iterations
        assert tables.h(np.array(board, dtype=np.int8)) == h(tuple(board))
        sol = solve(board)
        assert (sol.length, sol.h_search, sol.nodes) == (optimal, iterations[0][0], sum(n for _, n in iterations))
        md, direct, mirrored = h.parts(tuple(board))
        raised += mirrored > max(md, direct)
    assert raised >= 1  # Korf 19: the mirrored sum (42) is above the direct one (36)


@pytest.mark.parametrize("rows, cols, blocks", [(4, 4, (3,)), (3, 3, (1,)), (4, 4, (5, 10))])
def test_split_search_counts_nodes_as_the_serial_search(rows, cols, blocks):
    rng = random.Random(sum(blocks) + rows)
    starts = [naive.random_walk(rows, cols, blocks, rng.randrange(20, 40), rng) for _ in range(5)]
    serial = solve_boards(np.array(starts, dtype=np.int8), rows, cols, blocks, use_pdb=False)
    for s, length, plan, nodes in zip(starts, serial.lengths, serial.moves, serial.nodes):
        one = solve(list(s), rows, cols, use_pdb=False)
        assert (one.length, one.moves, one.nodes) == (length, plan, nodes)
        twin = naive.ida_star(s, rows, cols, blocks)
        assert twin == (length, plan, nodes)
