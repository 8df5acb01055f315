"""The sweep-per-depth build of 4-bit pattern databases (kernels/pdb_sweep.py, planners/pdb_packed.py)
against its plain-Python twin (tests/naive_pdb.py) and the byte tables of kernels/pdb.py, the search's
4-bit lookup against its byte lookup, the cache file, and the solver's choice of heuristic."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding.layout import Layout
from fastspe.errors import UserError
from fastspe.domains.sliding.kernels.pdb import placements, unrank_placement
from fastspe.domains.sliding.kernels.search import ida_star_boards
from fastspe.domains.sliding.planners import pdb_packed
from fastspe.domains.sliding.planners.pdb import assemble_databases, build_table, free_neighbours, pattern_databases
from fastspe.domains.sliding.planners.solver import search_tables, solve, solve_boards

from . import naive_pdb, naive_search
from .threads import digests_by_thread_count


@pytest.fixture(autouse=True)
def pdb_folder(tmp_path_factory, monkeypatch):
    """Tables go to one folder per test session, never the user's cache."""
    folder = tmp_path_factory.getbasetemp() / "pdb"
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(folder))
    return folder


def placements_of(start, stop, m, free):
    """int64 (stop - start, m): the free cells of the placements of ranks start..stop-1 (numpy, from the
    documented ranking: mixed-radix digits, each the index among the cells still unused)."""
    ranks = np.arange(start, stop, dtype=np.int64)
    size = len(ranks)
    digits = np.empty((size, m), dtype=np.int64)
    for i in range(m - 1, -1, -1):
        digits[:, i] = ranks % (free - i)
        ranks //= free - i
    unused = np.ones((size, free), dtype=bool)
    cells = np.empty((size, m), dtype=np.int64)
    rows = np.arange(size)
    for i in range(m):
        cells[:, i] = np.argmax(np.cumsum(unused, axis=1) == digits[:, i : i + 1] + 1, axis=1)
        unused[rows, cells[:, i]] = False
    return cells


def decode(block, layout, tiles):
    """int64 values by ``rank_placement`` index: md + 2 * nibble (nibble 15: -1, unreached or saturated)."""
    free = int((~layout.blocked).sum())
    m, size = len(tiles), placements(free, len(tiles))
    dist = block[: m * free].view(np.int8).reshape(m, free).astype(np.int64)
    nibbles = block[m * free :]
    assert len(nibbles) == (size + 1) // 2
    q = np.empty(size, dtype=np.int64)
    q[0::2] = nibbles[: (size + 1) // 2] & 15
    q[1::2] = (nibbles >> 4)[: size // 2]
    values = np.empty(size, dtype=np.int64)
    for start in range(0, size, 1 << 20):
        stop = min(size, start + (1 << 20))
        values[start:stop] = dist[np.arange(m), placements_of(start, stop, m, free)].sum(axis=1)
    values += 2 * q
    return np.where(q == 15, -1, values)


def test_placements_of_is_the_kernel_ranking():
    pos = np.empty(3, dtype=np.int64)
    cells = placements_of(0, placements(6, 3), 3, 6)
    for r in range(len(cells)):
        unrank_placement(r, 3, 6, pos)
        assert list(pos) == list(cells[r])


def twin_values(rows, cols, blocks, tiles):
    """The twin's table by ``rank_placement`` index (-1 unreachable)."""
    layout = Layout(rows, cols, tuple(blocks))
    _, index = free_neighbours(layout)
    free = int((~layout.blocked).sum())
    table = naive_pdb.pattern_table(rows, cols, blocks, tiles)
    out = np.full(placements(free, len(tiles)), -1, dtype=np.int64)
    from fastspe.domains.sliding.kernels.pdb import rank_placement  # the index only; the values are the twin's

    for cells, value in table.items():
        out[rank_placement(np.array([index[c] for c in cells], dtype=np.int64), len(tiles), free)] = value
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "rows, cols, blocks, tiles",
    [
        (3, 3, (), (1, 2, 3)),
        (3, 3, (), (5, 6, 7, 8)),
        (2, 4, (), (1, 2, 3, 4)),
        (3, 3, (4,), (1, 2, 3)),
        (2, 3, (), (1, 2, 3, 4, 5)),
        (3, 4, (5,), (2, 6, 9)),
    ],
)
def test_sweep_matches_the_plain_python_bfs(rows, cols, blocks, tiles):
    layout = Layout(rows, cols, blocks)
    got = decode(pdb_packed.build_packed(layout, tiles), layout, tiles)
    assert np.array_equal(got, twin_values(rows, cols, blocks, tiles))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([(2, 3), (3, 3), (2, 4), (3, 2), (2, 5)]), st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_sweep_matches_the_twin_on_random_patterns(shape, seed, m):
    rows, cols = shape
    rng = random.Random(seed)
    tiles = tuple(sorted(rng.sample(range(1, rows * cols), min(m, rows * cols - 1))))
    layout = Layout(rows, cols, ())
    got = decode(pdb_packed.build_packed(layout, tiles), layout, tiles)
    assert np.array_equal(got, twin_values(rows, cols, (), tiles))


@pytest.mark.slow
@pytest.mark.parametrize("rows, cols, tiles", [(4, 4, (1, 2, 5, 6, 9)), (3, 4, (5, 6, 7, 8, 9, 10, 11))])
def test_sweep_equals_the_byte_tables(rows, cols, tiles):
    """Large patterns (7 tiles on 3x4) against the per-(placement, cell) BFS of kernels/pdb.py."""
    layout = Layout(rows, cols, ())
    got = decode(pdb_packed.build_packed(layout, tiles), layout, tiles)
    assert np.array_equal(got, build_table(layout, tiles).astype(np.int64))


@pytest.mark.slow
def test_an_8_tile_sweep_equals_the_byte_table():
    """8 tiles (20M placements on 3x4, 54M states), the size of the open board's big group."""
    layout, tiles = Layout(3, 4, ()), (1, 2, 3, 4, 5, 6, 7, 8)
    got = decode(pdb_packed.build_packed(layout, tiles), layout, tiles)
    assert np.array_equal(got, build_table(layout, tiles).astype(np.int64))


def test_build_does_not_depend_on_threads():
    script = (
        "import hashlib, numba; from fastspe.domains.sliding.layout import Layout; "
        "from fastspe.domains.sliding.planners.pdb_packed import build_packed; "
        "b = build_packed(Layout(4, 4, ()), (1, 2, 3, 5, 6)); "
        "print(numba.get_num_threads(), hashlib.sha256(b.tobytes()).hexdigest())"
    )
    digests = digests_by_thread_count(script)
    assert digests["1"] == digests["2"]


@pytest.mark.slow
@pytest.mark.parametrize("mirrored", [False, True])
def test_search_with_4_bit_tables_equals_byte_tables(mirrored):
    """Same values, so the same plans, bounds and node counts, whichever way the tables are stored."""
    layout = Layout(4, 4, ())
    partition = ((1, 2, 5, 6, 9), (3, 4, 7, 8, 12), (10, 11, 13, 14, 15))
    rng = random.Random(3)
    boards = np.array([naive_search.random_walk(4, 4, (), 60, rng) for _ in range(4)], dtype=np.int8)
    byte = search_tables(layout, pattern_databases(layout, partition, mirrored=mirrored))
    packed = search_tables(
        layout,
        assemble_databases(
            layout, partition, [pdb_packed.build_packed(layout, g) for g in partition], mirrored, packed=True
        ),
    )
    want = ida_star_boards(boards, *byte.args(), 10**9)
    got = ida_star_boards(boards, *packed.args(), 10**9)
    for a, b in zip(want, got):
        assert np.array_equal(a, b)
    assert packed.databases.name == byte.databases.name


def test_packed_file_is_cached_checked_and_rebuilt_when_damaged(monkeypatch, pdb_folder):
    layout, tiles = Layout(3, 3, ()), (1, 2, 3, 4)
    first = pdb_packed.load_or_build_packed(layout, tiles)
    path = pdb_packed.packed_file(layout, tiles)
    assert path.parent == pdb_folder and path.exists() and path.name.endswith("-q4.npy")
    build = pdb_packed.build_packed

    def no_build(*args, **kwargs):
        raise AssertionError("built again")

    monkeypatch.setattr(pdb_packed, "build_packed", no_build)
    assert np.array_equal(pdb_packed.load_or_build_packed(layout, tiles), first)
    raw = bytearray(path.read_bytes())
    raw[200] ^= 0xFF
    path.write_bytes(bytes(raw))
    monkeypatch.setattr(pdb_packed, "build_packed", build)
    with pytest.warns(UserWarning, match="damaged"):
        again = pdb_packed.load_or_build_packed(layout, tiles)
    assert np.array_equal(again, first)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(pdb_packed.load_or_build_packed(layout, tiles), first)


def test_strong_partition_and_estimate():
    layout = Layout(4, 4, ())
    assert pdb_packed.strong_partition(layout) == ((9, 10, 11, 12, 13, 14, 15), (1, 2, 3, 4, 5, 6, 7, 8))
    assert pdb_packed.strong_partition(Layout(4, 4, (5,))) is None
    assert pdb_packed.strong_partition(Layout(3, 3, ())) is None
    size, seconds = pdb_packed.build_estimate(layout, pdb_packed.strong_partition(layout))
    assert size == 7 * 16 + 57_657_600 // 2 + 8 * 16 + 518_918_400 // 2 and seconds > 0
    assert not pdb_packed.strong_present(layout)


def test_solver_heuristic_choice_is_explicit():
    board = list(range(1, 13)) + [0, 13, 14, 15]
    with pytest.raises(UserError, match="open 4x4"):
        solve([1, 2, 3, 4, 5, 6, 7, 0, 8], 3, 3, heuristic="7-8")
    with pytest.raises(UserError, match="open 4x4"):
        solve([1, 2, 3, 4, 5, -1, 6, 7, 8, 9, 10, 11, 12, 13, 0, 14], 4, 4, heuristic="7-8")
    with pytest.raises(UserError, match="heuristic must be one of"):
        solve(board, heuristic="8-7")
    # an easy board needs no tables: auto answers it with graph distances alone
    assert solve(board).heuristic == "graph-distance"
    # with the tables on and nothing built: auto is the layout's tables, and says so
    assert solve(board, use_pdb=True).heuristic == "pdb-6-6-3+mirror+graph-distance"
    assert solve(board, heuristic="layout").heuristic == "pdb-6-6-3+mirror+graph-distance"
    assert solve_boards(np.array([board], dtype=np.int8), heuristic="layout").lengths[0] == 3


@pytest.mark.slow
def test_auto_uses_the_7_8_tables_once_present(monkeypatch):
    """With 7-8 files present (here: stand-ins built from a 5-5-5 split, so the test is quick), ``auto``
    loads them and names them; ``layout`` still gives the 6-6-3."""
    layout = Layout(4, 4, ())
    stand_in = ((10, 11, 13, 14, 15), (1, 2, 5, 6, 9))
    monkeypatch.setattr(pdb_packed, "strong_partition", lambda lay: stand_in if lay == layout else None)
    from fastspe.domains.sliding.planners import solver as solver_module

    monkeypatch.setattr(solver_module, "strong_partition", pdb_packed.strong_partition)
    monkeypatch.setattr(solver_module, "_TABLES", {})
    board = list(range(1, 13)) + [0, 13, 14, 15]
    assert solve(board, use_pdb=True).heuristic == "pdb-6-6-3+mirror+graph-distance"
    built = solve(board, heuristic="7-8")
    assert built.heuristic == "pdb-5-5+mirror+graph-distance" and built.length == 3
    assert all(pdb_packed.packed_file(layout, g).exists() for g in stand_in)
    assert solve(board, use_pdb=True).heuristic == "pdb-5-5+mirror+graph-distance"
    assert solve(board, heuristic="layout").heuristic == "pdb-6-6-3+mirror+graph-distance"
