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
    "\n".join(
        [
            "##########",
            "#        #",
            "# # ##$ .#",
            "# # ## # #",
            "#@#$## # #",
            "#. $     #",
            "# #     .#",
            "#        #",
            "#  ### # #",
            "#### #####",
        ]
    ),
    "\n".join(
        [
            "##########",
            "#        #",
            "# # ##  .#",
            "# #$## # #",
            "# # ##$# #",
            "#.       #",
            "#$#     .#",
            "#   @    #",
            "#  ### # #",
            "#### #####",
        ]
    ),
    "\n".join(
        [
            "##########",
            "# .      #",
            "# ##.  # #",
            "#  $     #",
            "# ## # #@#",
            "# $  #   #",
            "####  .  #",
            "   #  $# #",
            "   #     #",
            "   #######",
        ]
    ),
)


def _search(level, use_heuristic):
    return search(
        level.wall,
        level.goal,
        np.array(level.boxes, dtype=np.int64),
        level.player,
        level.rows,
        level.cols,
        50_000_000,
        10_000,
        use_heuristic,
    )


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
        for out, _, _ in rows[2 * i : 2 * i + 2]:
            assert out[0] == FOUND and (out[1], out[2]) == expected
        twin_states += stats["states"]
        twin_seconds += seconds
        a, b = rows[2 * i], rows[2 * i + 1]
        print(
            f"\nlevel {i}: d* {expected[0]}, pushes {expected[1]}: A* {a[0][5]:,} states {a[1]:.3f} s, "
            f"BFS order {b[0][5]:,} states {b[1]:.3f} s, twin BFS {stats['states']:,} states {seconds:.2f} s",
            end="",
        )
    rate, twin_rate = kernel_states / kernel_seconds, twin_states / twin_seconds
    cpu_rate = kernel_states / kernel_cpu
    benchmark.extra_info.update(
        states_per_s=rate, cpu_states_per_s=cpu_rate, twin_states_per_s=twin_rate, ratio=rate / twin_rate
    )
    print(
        f"\n3-box levels, one thread: kernel {rate:,.0f} states/s ({cpu_rate:,.0f} per CPU second), twin "
        f"{twin_rate:,.0f} states/s, ratio {rate / twin_rate:,.0f}x"
    )
    target(rate >= 1e6, f"solver {rate:,.0f} states/s on 3-box levels (target 1e6)")


def test_default_bank_build(benchmark):
    """The default design's 320 primary levels (and, beside them, all 400 with the stress cohort)."""
    primary = SokobanDesign(
        SOKOBAN_PAPER_DESIGN.seed, tuple(c for c in SOKOBAN_PAPER_DESIGN.cells if c.cohort == "primary")
    )
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


def test_push_search_vs_move_search_and_twins(benchmark):
    """The push search (``solve_level``'s kernel, both objectives) beside the move-level A* above and the twins, on
    the same three levels. A push-level state costs a walk (a breadth-first search of the player's region) to
    expand, so its states per second are fewer; what counts is the time per certified level."""
    from fastspe.domains.sokoban.kernels.push_search import MOVES, PUSHES, push_search
    from tests.naive_sokoban_bfs import naive_solve_pushes

    levels = [parse_level(t) for t in THREE_BOXES]
    board = np.zeros(4, dtype=np.int64)

    def run(level, objective):
        return push_search(
            level.wall,
            level.goal,
            np.array(level.boxes, dtype=np.int64),
            level.player,
            level.rows,
            level.cols,
            50_000_000,
            objective,
            True,
            True,
            board,
        )

    for level in levels:
        run(level, MOVES)  # compile / load from cache
    rows = []

    def run_all():
        rows.clear()
        for level in levels:
            for objective in (MOVES, PUSHES):
                t = time.perf_counter()
                out = run(level, objective)
                rows.append((out, time.perf_counter() - t))
            t = time.perf_counter()
            out = _search(level, True)
            rows.append((out, time.perf_counter() - t))

    benchmark.pedantic(run_all, rounds=3, iterations=1)
    push_states = sum(rows[3 * i + k][0][5] for i in range(len(levels)) for k in (0, 1))
    push_seconds = sum(rows[3 * i + k][1] for i in range(len(levels)) for k in (0, 1))
    for i, level in enumerate(levels):
        (m, tm), (p, tp), (old, told) = rows[3 * i : 3 * i + 3]
        assert (m[1], m[2]) == naive_solve(level.text, 10**8) == (old[1], old[2])
        assert (p[1], p[2]) == naive_solve_pushes(level.text, 10**8)
        print(
            f"\nlevel {i}: moves-optimal {m[1]}/{m[2]}: push search {m[5]:,} states {tm * 1e3:.1f} ms, move A* "
            f"{old[5]:,} states {told * 1e3:.1f} ms; push-optimal {p[1]}/{p[2]}: {p[5]:,} states "
            f"{tp * 1e3:.1f} ms",
            end="",
        )
    rate = push_states / push_seconds
    benchmark.extra_info.update(push_states_per_s=rate)
    print(f"\n3-box levels, one thread: push search {rate:,.0f} push-level states/s")


def test_deadlock_prunings(benchmark):
    """The push search with each optional deadlock pruning (``kernels.deadlocks``: the table, corrals) beside
    freeze deadlocks alone, on the three levels above and two Microban levels of about a second: states stored
    and CPU seconds (best of 3), both objectives; the answers must not change."""
    from fastspe.domains.sokoban.kernels.push_search import MOVES, PUSHES, push_search
    from tests.sokoban_published import microban

    levels = [parse_level(t) for t in THREE_BOXES] + [parse_level(dict(microban())[n]) for n in ("140", "150")]
    names = ["3-box 0", "3-box 1", "3-box 2", "Microban 140", "Microban 150"]
    flags = {"freeze": (False, False), "+table": (True, False), "+corral": (False, True), "+both": (True, True)}

    def run(level, objective, table, corral):
        return push_search(
            level.wall,
            level.goal,
            np.array(level.boxes, dtype=np.int64),
            level.player,
            level.rows,
            level.cols,
            50_000_000,
            objective,
            True,
            True,
            np.zeros(4, dtype=np.int64),
            table,
            corral,
        )

    for table, corral in flags.values():
        run(levels[0], MOVES, table, corral)  # compile / load from cache
    rows = {}

    def run_all():
        for name, level in zip(names, levels):
            for objective in (MOVES, PUSHES):
                for label, (table, corral) in flags.items():
                    cpu = time.process_time()
                    out = run(level, objective, table, corral)
                    cpu = time.process_time() - cpu
                    key = (name, objective, label)
                    rows[key] = (out, min(cpu, rows[key][1]) if key in rows else cpu)

    benchmark.pedantic(run_all, rounds=3, iterations=1)
    for name in names:
        for objective in (MOVES, PUSHES):
            base = rows[name, objective, "freeze"][0]
            cells = []
            for label in flags:
                out, cpu = rows[name, objective, label]
                assert out[0] == FOUND and (out[1], out[2]) == (base[1], base[2])
                cells.append(f"{label} {out[5]:,} states {cpu * 1e3:.1f} ms")
            print(f"\n{name} {('moves', 'pushes')[objective]}: " + ", ".join(cells), end="")
    print()
