"""Baseline planner speed: the kernel beside its plain-Python twin, and the whole paper bank.

Run with ``python -m pytest benchmarks/bench_planners.py --benchmark-only``.
"""

from __future__ import annotations


import numpy as np
import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.frames import pack_boards
from fastspe.domains.sliding.planners.baselines import PLANNERS, baseline_responses
from fastspe.domains.baselines import board_keys
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.domains.sliding.kernels.planners import plan_baselines
from fastspe.domains.sliding.layout import DIRECTIONS, Layout
from tests import naive_planners as naive
from benchmarks.timing import best_of, target

TRIALS = 50


@pytest.fixture(scope="module")
def bank():
    return build_bank(paper_design())


@pytest.mark.parametrize("planner", ["greedy", "detour"])
def test_planner_kernel_vs_twin(benchmark, bank, planner):
    part = bank[bank["k"] == 0].reset_index(drop=True)  # 80 boards of the open 4x4 layout
    layout = Layout()
    boards = pack_boards(part["initial"])
    depths = part["depth"].to_numpy(dtype=np.int64)
    certs = np.array(
        [[DIRECTIONS.index(c) for c in s.ljust(int(depths.max()), "U")] for s in part["certificate"]], dtype=np.uint8
    )
    keys = board_keys(part["board_id"])
    args = (
        PLANNERS[planner],
        boards,
        certs,
        depths,
        keys,
        TRIALS,
        3,
        layout.moves,
        layout.distances,
        layout.goal_cell,
        int(depths.max()) * 2,
    )
    plan_baselines(*args)  # compile / load from cache
    benchmark.pedantic(plan_baselines, args=args, rounds=5, iterations=1, warmup_rounds=1)
    kernel_rate = len(part) * TRIALS / benchmark.stats.stats.min
    grid = naive.Grid(4, 4, ())
    rows = list(part.itertuples(index=False))[:20]
    twin_s = best_of(
        lambda: [naive.naive_plan(planner, grid, r.initial, r.certificate, int(k), 0, 3) for r, k in zip(rows, keys)],
        repeat=2,
    )
    twin_rate = len(rows) / twin_s
    ratio = kernel_rate / twin_rate
    benchmark.extra_info.update(kernel_plans_per_s=kernel_rate, twin_plans_per_s=twin_rate, ratio=ratio)
    print(f"\n{planner} plans/s: kernel {kernel_rate:,.0f}, twin {twin_rate:,.0f}, ratio {ratio:.0f}x")
    target(ratio >= 50, f"{planner} kernel >= 50x its twin, got {ratio:.0f}x")


def test_paper_bank_all_planners(benchmark, bank):
    def all_planners():
        return [baseline_responses(bank, p, trials=3) for p in PLANNERS]

    all_planners()
    benchmark.pedantic(all_planners, rounds=3, iterations=1)
