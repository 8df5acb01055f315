"""The exact solver against plain-Python BFS, bidirectional BFS and IDA* twins (tests/naive_search.py)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding.planners import pdb as pdb_module
from fastspe.domains.sliding.planners import solver as solver_module
from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.planners.pdb import pattern_databases
from fastspe.domains.sliding.planners.solver import SearchLimit, UnsolvableBoard, solve, solve_boards

from . import naive_search as naive
from .threads import digests_by_thread_count

KORF = Path(__file__).resolve().parents[2] / "shared" / "data" / "korf10.tsv"


@pytest.fixture(autouse=True)
def pdb_folder(tmp_path_factory, monkeypatch):
    """Tables go to one folder per test session, never the user's cache."""
    folder = tmp_path_factory.getbasetemp() / "pdb"
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(folder))
    return folder


@pytest.fixture(scope="module")
def bfs_3x3():
    return naive.bfs_all(3, 3, ())


@pytest.fixture(scope="module")
def bfs_3x3_block():
    return naive.bfs_all(3, 3, (0,))


def check_plans(boards, lengths, plans, rows, cols, blocks):
    nbrs = naive.neighbours(rows, cols, blocks)
    goal = naive.goal_state(rows, cols, blocks)
    for board, length, plan in zip(boards, lengths, plans):
        assert len(plan) == length
        assert naive.apply_plan(tuple(int(v) for v in board), plan, nbrs) == goal


def test_3x3_sample_matches_exhaustive_bfs(bfs_3x3):
    assert len(bfs_3x3) == 181_440
    states = sorted(bfs_3x3)
    rng = random.Random(5)
    sample = rng.sample(states, 400)
    boards = np.array(sample, dtype=np.int8)
    got = solve_boards(boards, 3, 3)
    assert got.heuristic == "graph-distance"
    assert got.lengths.tolist() == [bfs_3x3[s] for s in sample]
    check_plans(sample, got.lengths, got.moves, 3, 3, ())
    # the hardest states (31 moves) too, one by one through `solve` (split search)
    for s in [s for s in states if bfs_3x3[s] == 31]:
        sol = solve(list(s), 3, 3)
        assert sol.length == 31 and sol.h <= 31
        check_plans([s], [sol.length], [sol.moves], 3, 3, ())


def test_3x3_with_a_block_every_state(bfs_3x3_block):
    layout = Layout(3, 3, (0,))
    assert len(bfs_3x3_block) == math_factorial(8) // 2  # parity is exact on this layout
    states = sorted(bfs_3x3_block)
    got = solve_boards(np.array(states, dtype=np.int8), 3, 3, (0,))
    assert got.lengths.tolist() == [bfs_3x3_block[s] for s in states]
    check_plans(states[::50], got.lengths[::50], got.moves[::50], 3, 3, (0,))
    # every parity-failing arrangement is refused before searching
    free_values = list(range(8))
    rng = random.Random(2)
    for perm in rng.sample(list(itertools.permutations(free_values)), 200):
        board = (-1,) + perm
        if board in bfs_3x3_block:
            continue
        with pytest.raises(UnsolvableBoard, match="unsolvable"):
            solve(list(board), 3, 3)
        assert not layout.parity_ok(np.array(board, dtype=np.int8))


def math_factorial(n):
    out = 1
    for i in range(2, n + 1):
        out *= i
    return out


@pytest.mark.slow
@pytest.mark.parametrize("blocks, use_pdb", [((5, 10), True), ((0,), False), ((3, 6, 9), False)])
def test_4x4_blocked_boards_match_bidirectional_bfs(blocks, use_pdb):
    rng = random.Random(sum(blocks))
    starts = [naive.random_walk(4, 4, blocks, rng.randrange(14, 26), rng) for _ in range(5)]
    got = solve_boards(np.array(starts, dtype=np.int8), 4, 4, blocks, use_pdb=use_pdb)
    expected = [naive.bidirectional_distance(s, 4, 4, blocks) for s in starts]
    assert got.lengths.tolist() == expected
    assert got.heuristic.startswith("pdb-") == use_pdb
    check_plans(starts, got.lengths, got.moves, 4, 4, blocks)
    for s, length, plan in zip(starts, got.lengths, got.moves):
        one = solve(list(s), 4, 4, use_pdb=use_pdb)  # blocks inferred from the -1 cells
        assert (one.length, one.moves) == (length, plan)


def korf_boards():
    rows = [line.rstrip("\n").split("\t") for line in KORF.read_text().splitlines() if line[:1].isdigit()]
    out = []
    for _id, tiles, optimal in rows:
        values = [int(v) for v in tiles.split()][::-1]  # rotate 180 degrees: the blank-first goal becomes blank-last
        out.append(([16 - v if v else 0 for v in values], int(optimal)))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not KORF.exists(), reason="shared/data/korf10.tsv is not here")
def test_korf_instances_solve_to_their_published_optima():
    for board, optimal in korf_boards():
        sol = solve(board)
        assert sol.length == optimal and sol.heuristic == "pdb-6-6-3+mirror+graph-distance"
        check_plans([board], [sol.length], [sol.moves], 4, 4, ())


def test_paper_bank_boards_solve_to_their_certified_depth():
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.domains.sliding.bank.design import paper_design

    bank = build_bank(paper_design())
    for blocks, part in bank.groupby(bank["blocks"].map(tuple)):
        boards = np.array([list(b) for b in part["initial"]], dtype=np.int8)
        got = solve_boards(boards, 4, 4, blocks, use_pdb=False)
        assert got.lengths.tolist() == part["depth"].tolist()
        assert got.h.tolist() == part["h"].tolist() == got.h_search.tolist()  # graph distances only: h is the bound
        check_plans(boards, got.lengths, got.moves, 4, 4, blocks)


def test_refusals_are_clear():
    with pytest.raises(UnsolvableBoard, match="unsolvable"):
        solve([2, 1, 3, 4, 5, 6, 7, 8, 0], 3, 3)
    with pytest.raises(UnsolvableBoard, match="board 1"):
        solve_boards(np.array([[1, 2, 3, 4, 5, 6, 7, 8, 0], [2, 1, 3, 4, 5, 6, 7, 8, 0]], dtype=np.int8), 3, 3)
    with pytest.raises(ValueError, match="blocked cells"):
        solve([1, 2, 3, 4, 5, 6, 7, -1, 0], 3, 3, blocks=(0,))
    with pytest.raises(SearchLimit, match="max_nodes"):
        solve([8, 6, 7, 2, 5, 4, 3, 0, 1], 3, 3, max_nodes=1000)
    with pytest.raises(SearchLimit, match="max_nodes"):
        solve_boards(np.array([[8, 6, 7, 2, 5, 4, 3, 0, 1]], dtype=np.int8), 3, 3, max_nodes=1000)
    with pytest.raises(ValueError, match="max_nodes"):
        solve([1, 2, 3, 4, 5, 6, 7, 8, 0], 3, 3, max_nodes=0)
    with pytest.raises(ValueError, match="shape"):
        solve_boards(np.zeros((2, 8), dtype=np.int8), 3, 3)


@pytest.mark.slow
def test_small_and_2xn_layouts():
    sol = solve([3, 0, 2, 1], 2, 2)
    assert sol.length == naive.bidirectional_distance((3, 0, 2, 1), 2, 2, ())
    with pytest.raises(UnsolvableBoard, match="cannot pass"):  # right parity, wrong cyclic order on a ring
        solve([2, 3, 1, 4, -1, 5, 6, 7, 0], 3, 3)
    # dead ends (cells 0 and 2 behind blocked cell 1): parity passes boards the twin's BFS never reaches
    reachable = naive.bfs_all(3, 3, (1,))
    layout = Layout(3, 3, (1,))
    rng = random.Random(4)
    refused = 0
    for _ in range(300):
        values = rng.sample(range(8), 8)
        board = (values[0], -1, *values[1:])
        if not layout.parity_ok(np.array(board, dtype=np.int8)):
            continue
        if board in reachable:
            assert solve(list(board), 3, 3).length == reachable[board]
        else:
            refused += 1
            with pytest.raises(UnsolvableBoard, match="cannot pass"):
                solve(list(board), 3, 3)
    assert refused > 0
    start = naive.random_walk(2, 5, (), 40, random.Random(1))
    sol = solve(list(start), 2, 5)
    assert sol.length == naive.bfs_all(2, 5, ())[start]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.integers(2, 4),
    st.integers(2, 4),
    st.lists(st.integers(0, 15), max_size=2, unique=True),
    st.integers(0, 30),
    st.randoms(use_true_random=False),
)
def test_random_walks_on_small_layouts(rows, cols, blocks, length, rng):
    blocks = tuple(b for b in blocks if b < rows * cols)
    try:
        layout = Layout(rows, cols, blocks)
    except ValueError:
        return
    if layout.tiles + 1 > 12:  # keep the plain twin's work small
        return
    start = naive.random_walk(rows, cols, layout.blocks, length, rng)
    sol = solve(list(start), rows, cols, layout.blocks)
    assert sol.h <= sol.h_search <= sol.length <= length
    graph_h = naive.graph_h(start, rows, cols, layout.blocks)
    assert sol.h == graph_h  # the paper's h(s), whatever bound the search used
    assert sol.h_search == graph_h if sol.heuristic == "graph-distance" else sol.h_search >= graph_h
    check_plans([start], [sol.length], [sol.moves], rows, cols, layout.blocks)


def kernel_h(layout, databases, boards):
    tables = solver_module.search_tables(layout, databases)
    return [tables.h(b) for b in boards]


@pytest.mark.parametrize("blocks, partition", [((), ((1, 2, 3, 4), (5, 6, 7, 8))), ((0,), ((1, 2, 3), (4, 5, 6, 7)))])
def test_heuristics_are_admissible_on_every_small_state(blocks, partition, bfs_3x3, bfs_3x3_block):
    distances = bfs_3x3 if not blocks else bfs_3x3_block
    layout = Layout(3, 3, blocks)
    states = sorted(distances)[::7]
    truth = np.array([distances[s] for s in states])
    for databases in (pdb_module.empty_databases(layout), pattern_databases(layout, partition)):
        h = np.array(kernel_h(layout, databases, states))
        assert (h <= truth).all()
        if databases.partition:  # the tables are informative, not all zeros
            assert (h > np.array([naive.graph_h(s, 3, 3, blocks) for s in states])).any()
    # each table entry is admissible for its pattern alone, looked up directly or on the mirrored board
    for g in range(len(partition)):
        for mirrored in (False, True):
            one = pattern_databases(layout, (partition[g],), mirrored=mirrored)
            assert (np.array(kernel_h(layout, one, states)) <= truth).all()


def test_pdb_cache_hit_and_corrupt_file(pdb_folder, monkeypatch):
    layout = Layout(3, 3, ())
    group = (1, 2, 3, 5)
    first = pdb_module.load_or_build(layout, group)
    path = pdb_module.pattern_file(layout, group)
    assert path.parent == pdb_folder and path.exists()

    def no_build(*_a, **_k):
        raise AssertionError("rebuilt a good table")

    monkeypatch.setattr(pdb_module, "build_table", no_build)
    assert np.array_equal(pdb_module.load_or_build(layout, group), first)
    monkeypatch.undo()
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(pdb_folder))
    raw = bytearray(path.read_bytes())
    raw[-40] ^= 0xFF  # one flipped entry
    path.write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match="damaged"):
        again = pdb_module.load_or_build(layout, group)
    assert np.array_equal(again, first)
    path.write_bytes(b"not a table")
    with pytest.warns(UserWarning, match="unreadable|damaged"):
        assert np.array_equal(pdb_module.load_or_build(layout, group), first)


def test_pdb_build_reports_progress():
    seen = []
    pattern_databases(Layout(3, 3, (8,)), ((1, 2, 3), (4, 5, 6, 7)), progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][0] == seen[-1][1] and all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


THREAD_SCRIPT = """
import hashlib, numba, random
import numpy as np
from fastspe.domains.sliding.planners.solver import solve, solve_boards
from tests import naive_search as naive
rng = random.Random(3)
boards = np.array([naive.random_walk(4, 4, (5, 10), rng.randrange(20, 40), rng) for _ in range(12)], dtype=np.int8)
many = solve_boards(boards, 4, 4, (5, 10), use_pdb=False)
hard = solve([8, 6, 7, 2, 5, 4, 3, 0, 1], 3, 3)
deep = solve(list(naive.random_walk(4, 4, (0,), 34, random.Random(9))), 4, 4, use_pdb=False)
text = repr((many.lengths.tolist(), many.moves, many.nodes.tolist(), hard.length, hard.moves, hard.nodes,
             deep.length, deep.moves, deep.nodes))
print(numba.get_num_threads(), hashlib.sha256(text.encode()).hexdigest())
"""


def test_results_do_not_depend_on_threads():
    digests = digests_by_thread_count(THREAD_SCRIPT)
    assert digests["1"] == digests["2"]


def test_split_search_returns_the_serial_plan():
    rng = random.Random(11)
    starts = [naive.random_walk(4, 4, (3,), rng.randrange(20, 40), rng) for _ in range(4)]
    serial = solve_boards(np.array(starts, dtype=np.int8), 4, 4, (3,), use_pdb=False)
    for s, length, plan in zip(starts, serial.lengths, serial.moves):
        assert (solve(list(s), 4, 4, use_pdb=False).length, solve(list(s), 4, 4, use_pdb=False).moves) == (length, plan)


def test_solve_is_exported_lazily_by_its_domain_and_fastspe_solve_answers_as_the_command_does():
    import fastspe
    import fastspe.domains.sliding as sliding

    assert sliding.solve is solve
    board = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 13, 14, 15, 12]
    answer = fastspe.solve(board=board, heuristic="layout")  # any domain's solver, its answer as `fastspe solve`'s
    assert (answer["length"], answer["moves"]) == (solve(board, use_pdb=True).length, solve(board, use_pdb=True).moves)
