"""Sokoban solver and bank speed: the A* kernel beside its plain-Python BFS twin, and the default bank's build.

Run with ``python -m pytest benchmarks/bench_sokoban_search.py --benchmark-only -s``. Targets (issue 23, 2 cores,
warm): the solver >= 1e6 states/s on 3-box levels; the 320-level primary bank of the default design in < 2 minutes.
States are distinct (player, boxes) states stored by a search. Figures are printed and kept in ``extra_info``;
the answers (d*, pushes) are asserted equal to the twin's. The solver's rate is also given per CPU second of
the process (the search is one thread): on a shared machine that is what an idle core would do.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.timing import best_of, target
from fastspe.domains.sokoban.bank import SOKOBAN_PAPER_DESIGN, SokobanDesign, build_sokoban_bank
from fastspe.domains.sokoban.level import parse_level
from fastspe.domains.sokoban.kernels.search import FOUND, search
from tests.naive_sokoban_bfs import naive_solve

# Three-box levels of the default bank's stress cohort (d* 50 and 60), the ones with the largest searches.
THREE_BOXES = (
    "\n".join(["##########", "#        #", "# # ##$ .#", "# # ## # #", "#@#$## # #", "#. $     #", "# #     .#",
               "#        #", "#  ### # #", "#### #####"]),
    "\n".join(["##########", "#        #", "# # ##  .#", "# #$## # #", "# # ##$# #", "#.       #", "#$#     .#",
               "#   @    #", "#  ### # #", "#### #####"]),
    "\n".join(["##########", "# .      #", "# ##.  # #", "#  $     #", "# ## # #@#", "# $  #   #", "####  .  #",
               "   #  $# #", "   #     #", "   #######"]),
)


def _search(level, use_heuristic):
    return search(level.wall, level.goal, np.array(level.boxes, dtype=np.int64), level.player, level.rows,
                  level.cols, 50_000_000, 10_000, use_heuristic)


def test_states_per_second_kernel_vs_twin(benchmark):
    """Per level: A* and breadth-first order in the kernel (one thread), and the twin's BFS (same answer)."""
    levels = [parse_level(t) for t in THREE_BOXES]
    for level in levels:
        _search(level, True)  # compile / load from cache
    rows = []

    def run_all():
        rows.clear()
        for level in levels:
            for mode in (True, False):
                t, cpu = time.perf_counter(), time.process_time()
                out = _search(level, mode)
                rows.append((out, time.perf_counter() - t, time.process_time() - cpu))

    benchmark.pedantic(run_all, rounds=3, iterations=1)
    kernel_states = sum(r[0][5] for r in rows)
    kernel_seconds = sum(r[1] for r in rows)
    kernel_cpu = sum(r[2] for r in rows)
    twin_states, twin_seconds = 0, 0.0
    for i, level in enumerate(levels):
        stats: dict = {}
        seconds = best_of(lambda: naive_solve(level.text, 10**8, stats), repeat=1)
        expected = naive_solve(level.text, 10**8)
        for out, _, _ in rows[2 * i:2 * i + 2]:
            assert out[0] == FOUND and (out[1], out[2]) == expected
        twin_states += stats["states"]
        twin_seconds += seconds
        a, b = rows[2 * i], rows[2 * i + 1]
        print(f"\nlevel {i}: d* {expected[0]}, pushes {expected[1]}: A* {a[0][5]:,} states {a[1]:.3f} s, "
              f"BFS order {b[0][5]:,} states {b[1]:.3f} s, twin BFS {stats['states']:,} states {seconds:.2f} s", end="")
    rate, twin_rate = kernel_states / kernel_seconds, twin_states / twin_seconds
    cpu_rate = kernel_states / kernel_cpu
    benchmark.extra_info.update(states_per_s=rate, cpu_states_per_s=cpu_rate, twin_states_per_s=twin_rate,
                                ratio=rate / twin_rate)
    print(f"\n3-box levels, one thread: kernel {rate:,.0f} states/s ({cpu_rate:,.0f} per CPU second), twin "
          f"{twin_rate:,.0f} states/s, ratio {rate / twin_rate:,.0f}x")
    target(rate >= 1e6, f"solver {rate:,.0f} states/s on 3-box levels (target 1e6)")


def test_default_bank_build(benchmark):
    """The default design's 320 primary levels (and, beside them, all 400 with the stress cohort)."""
    primary = SokobanDesign(SOKOBAN_PAPER_DESIGN.seed, tuple(c for c in SOKOBAN_PAPER_DESIGN.cells
                                                             if c.cohort == "primary"))
    build_sokoban_bank(SokobanDesign(1, primary.cells[:1]))  # compile / load from cache
    bank = benchmark.pedantic(build_sokoban_bank, args=(primary,), rounds=1, iterations=1)
    seconds = benchmark.stats.stats.min
    t = time.perf_counter()
    full = build_sokoban_bank(SOKOBAN_PAPER_DESIGN)
    full_seconds = time.perf_counter() - t
    assert bank.num_rows == 320 and full.num_rows == 400
    benchmark.extra_info.update(primary_seconds=seconds, full_seconds=full_seconds)
    print(f"\nsokoban-paper bank: 320 primary levels in {seconds:.1f} s, all 400 in {full_seconds:.1f} s")
    target(seconds < 120, f"320-level bank in {seconds:.1f} s (target < 120 s)")
