"""The 4-bit pattern-database sweep (kernels/pdb_sweep.py): its build rate beside its plain-Python twin
(tests/naive_pdb.py) and beside the byte-table BFS of kernels/pdb.py, in the same run.

Run with ``python -m pytest benchmarks/bench_pdb_sweep.py --benchmark-only -s``. The figures are printed
and kept in ``extra_info`` (the machine may be shared); equal tables are asserted. The 7-8 build itself
(1.57G states) is timed by ``fastspe solve --heuristic 7-8`` once (README, "Solving boards").
"""

from __future__ import annotations

import time

import numpy as np

from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.kernels.pdb_sweep import sweep_index
from fastspe.domains.sliding.planners.pdb import build_table, free_neighbours
from fastspe.domains.sliding.planners.pdb_packed import build_packed
from tests import naive_pdb
from tests.test_pdb_sweep import decode, twin_values


def _states(layout, m):
    return sweep_index(free_neighbours(layout)[0], m)["states"]


def test_sweep_vs_twin(benchmark):
    """3x4 board, 5 tiles: the sweep beside the plain-Python 0-1 BFS (same values asserted)."""
    layout, tiles = Layout(3, 4, ()), (1, 2, 3, 5, 6)
    build_packed(layout, tiles)  # compile / load from cache
    block = benchmark.pedantic(build_packed, args=(layout, tiles), rounds=3, iterations=1)
    sweep_s = benchmark.stats.stats.min
    start = time.perf_counter()
    naive_pdb.pattern_table(3, 4, (), tiles)
    twin_s = time.perf_counter() - start
    assert np.array_equal(decode(block, layout, tiles), twin_values(3, 4, (), tiles))
    states = _states(layout, len(tiles))
    benchmark.extra_info.update(states=states, sweep_s=sweep_s, twin_s=twin_s, ratio=twin_s / sweep_s)
    print(
        f"\n3x4, 5 tiles ({states:,} states): sweep {sweep_s * 1e3:.1f} ms, plain-Python twin {twin_s:.2f} s "
        f"({twin_s / sweep_s:.0f}x)"
    )


def test_sweep_vs_byte_bfs(benchmark):
    """4x4 board, 6 tiles (5.8M placements): the sweep beside the byte tables' BFS (same values asserted)."""
    layout, tiles = Layout(4, 4, ()), (1, 2, 5, 6, 9, 10)
    build_packed(Layout(3, 3, ()), (1, 2))
    build_table(Layout(3, 3, ()), (1, 2))
    block = benchmark.pedantic(build_packed, args=(layout, tiles), rounds=1, iterations=1)
    sweep_s = benchmark.stats.stats.min
    start = time.perf_counter()
    table = build_table(layout, tiles)
    byte_s = time.perf_counter() - start
    assert np.array_equal(decode(block, layout, tiles), table.astype(np.int64))
    states = _states(layout, len(tiles))
    benchmark.extra_info.update(states=states, sweep_s=sweep_s, byte_bfs_s=byte_s, ratio=byte_s / sweep_s)
    print(
        f"\n4x4, 6 tiles ({states:,} states, 4-bit table {len(block) / 1e6:.1f} MB): sweep {sweep_s:.1f} s "
        f"({states / sweep_s / 1e6:.1f}M states/s), byte-table BFS {byte_s:.1f} s ({len(table) / 1e6:.1f} MB)"
    )
