"""The solver's first try (``kernels/graph_search.py``) against its plain-Python twin and the table search's kernel,
and ``solve``'s choice between them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fastspe.domains.sliding.kernels.graph_search import ida_star_graph
from fastspe.domains.sliding.kernels.search import FOUND, MAX_DEPTH, OVER_BUDGET, TOO_DEEP, ida_star
from fastspe.domains.sliding.layout import DIRECTIONS, Layout
from fastspe.domains.sliding.planners import solver as solver_module
from fastspe.domains.sliding.planners.pdb import empty_databases
from fastspe.domains.sliding.planners.solver import FIRST_TRY_NODES, SearchLimit, UnsolvableBoard, solve

from . import naive_search as naive


@pytest.fixture(autouse=True)
def pdb_folder(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(tmp_path_factory.getbasetemp() / "pdb"))


def graph_kernel(layout, board, max_nodes):
    tables = solver_module.search_tables(layout, empty_databases(layout))
    path = np.zeros(MAX_DEPTH, dtype=np.int64)
    length, nodes, h, status = ida_star_graph(
        np.array(board, dtype=np.int8), layout.moves, tables.tile_dist, max_nodes, path
    )
    return int(length), "".join(DIRECTIONS[int(c)] for c in path[: max(length, 0)]), int(nodes), int(h), int(status)


def table_kernel(layout, board, max_nodes):
    tables = solver_module.search_tables(layout, empty_databases(layout))
    path = np.zeros(MAX_DEPTH, dtype=np.int64)
    length, nodes, h, status = ida_star(np.array(board, dtype=np.int8), *tables.args(), max_nodes, path)
    return int(length), "".join(DIRECTIONS[int(c)] for c in path[: max(length, 0)]), int(nodes), int(h), int(status)


@pytest.mark.parametrize("rows, cols, blocks", [(3, 3, ()), (3, 3, (4,)), (4, 4, ()), (4, 4, (5, 10)), (2, 5, ())])
def test_first_try_kernel_matches_its_twin_and_the_table_search(rows, cols, blocks):
    rng = random.Random(rows * 100 + cols + len(blocks))
    layout = Layout(rows, cols, blocks)
    for _ in range(6):
        board = naive.random_walk(rows, cols, blocks, rng.randrange(0, 30), rng)
        got = graph_kernel(layout, board, 10**7)
        length, plan, nodes = naive.ida_star(board, rows, cols, blocks)
        assert got[:3] == (length, plan, nodes) and got[3] == naive.graph_h(board, rows, cols, blocks)
        assert got[4] == FOUND and got == table_kernel(layout, board, 10**7)


def test_first_try_kernel_gives_up_at_its_budget_and_at_the_longest_plan():
    layout = Layout(4, 4, ())
    board = naive.random_walk(4, 4, (), 40, random.Random(5))
    full = graph_kernel(layout, board, 10**8)
    assert full[4] == FOUND and full[2] > 1000
    over = graph_kernel(layout, board, 1000)
    assert over[4] == OVER_BUDGET and over[0] == -1 and over[2] > 1000
    assert over == table_kernel(layout, board, 1000)
    ring = Layout(3, 3, (4,))  # a ring of 8 cells: tiles cannot pass each other
    unsolvable = [1, 2, 3, 4, -1, 5, 7, 6, 0]
    endless = graph_kernel(ring, unsolvable, 10**6)  # no visited set: the bound grows to the longest plan
    assert endless[4] == TOO_DEEP and endless == table_kernel(ring, unsolvable, 10**6)


def test_solve_answers_an_easy_board_without_tables_and_a_hard_one_with_them(monkeypatch):
    monkeypatch.setattr(solver_module, "_TABLES", {})

    def no_tables(*_a, **_k):
        raise AssertionError("tables asked for")

    monkeypatch.setattr(solver_module, "pattern_databases", no_tables)
    board = list(range(1, 13)) + [0, 13, 14, 15]
    easy = solve(board)
    assert (easy.length, easy.moves, easy.heuristic, easy.tables, easy.first_try_nodes) == (
        3,
        "RRR",
        "graph-distance",
        "not needed",
        0,
    )
    assert easy.h == easy.h_search == 3 and easy.nodes > 0
    blank_first = solve([0] + list(range(1, 16)), goal="blank-first")
    assert blank_first.length == 0
    monkeypatch.undo()
    monkeypatch.setattr(solver_module, "_TABLES", {})
    hard = [2, 8, 11, 1, 7, 0, 5, 6, 3, 9, 10, 4]  # 3x4, d* = 37: past the first try's budget
    sol = solve(hard, 3, 4)
    assert sol.length == 37 and sol.heuristic == "pdb-6-5+graph-distance"
    assert sol.first_try_nodes > FIRST_TRY_NODES and sol.tables in ("built", "loaded")
    assert (sol.length, sol.moves) == (solve(hard, 3, 4, use_pdb=True).length, solve(hard, 3, 4, use_pdb=True).moves)
    assert solve(hard, 3, 4).tables == "in memory"
    # the first optimal plan in U, D, L, R order whichever admissible bound finds it
    easy_3x4 = naive.random_walk(3, 4, (), 14, random.Random(2))
    quick, tabled = solve(list(easy_3x4), 3, 4), solve(list(easy_3x4), 3, 4, use_pdb=True)
    assert quick.heuristic == "graph-distance" and tabled.heuristic == "pdb-6-5+graph-distance"
    assert (quick.length, quick.moves) == (tabled.length, tabled.moves) and quick.length > 0


def test_solve_keeps_max_nodes_and_refusals_through_the_first_try():
    board = naive.random_walk(4, 4, (), 40, random.Random(5))
    with pytest.raises(SearchLimit, match="max_nodes"):
        solve(board, max_nodes=500)
    with pytest.raises(UnsolvableBoard):
        solve([2, 1, 3, 4, 5, 6, 7, 8, 0], 3, 3)
