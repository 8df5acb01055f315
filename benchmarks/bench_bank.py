"""Bank speed: certified-walk proposals and whole builds, each beside its plain-Python twin.

Run with ``python -m pytest benchmarks/bench_bank.py --benchmark-only``. Targets (issue 2):
proposals >= 100x the twin; the paper bank < 2 s once compiled; a 100,000-board design
(k = 0, d* = 40) through the CLI < 60 s on 2 cores, >= 20x the twin, peak memory < 1 GB.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.domains.sliding.kernels.walks import propose_walks
from fastspe.domains.sliding.layout import Layout
from tests import naive_bank as naive
from benchmarks.timing import best_of, target

DEPTH = 40


def test_walk_proposals_vs_twin(benchmark):
    layout = Layout()
    args = (layout.goal, layout.moves, layout.raises, DEPTH, 1, 0)
    propose_walks(*args, 0, 16)  # compile / load from cache
    n_kernel, n_twin = 200_000, 5_000
    benchmark.pedantic(propose_walks, args=(*args, 0, n_kernel), rounds=5, iterations=1, warmup_rounds=1)
    kernel_rate = n_kernel / benchmark.stats.stats.min
    tables = naive.WalkTables(4, 4, ())
    twin_s = best_of(lambda: [naive.walk(tables, DEPTH, naive.stream_key(1, 0, i)) for i in range(n_twin)])
    twin_rate = n_twin / twin_s
    benchmark.extra_info.update(
        kernel_proposals_per_s=kernel_rate, twin_proposals_per_s=twin_rate, ratio=kernel_rate / twin_rate
    )
    print(f"\nproposals/s: kernel {kernel_rate:,.0f}, twin {twin_rate:,.0f}, ratio {kernel_rate / twin_rate:.0f}x")
    target(kernel_rate / twin_rate >= 100, f"walk kernel >= 100x its twin, got {kernel_rate / twin_rate:.0f}x")


def test_paper_bank(benchmark):
    build_bank(paper_design())
    bank = benchmark.pedantic(build_bank, args=(paper_design(),), rounds=5, iterations=1)
    assert len(bank) == 400
    target(benchmark.stats.stats.min < 2.0, "paper bank < 2 s")


def test_100k_board_design_cli_vs_twin(benchmark, tmp_path):
    """The CLI end to end (start-up and file writing included) against the twin's per-board rate.

    The twin builds ``FASTSPE_BENCH_TWIN_BOARDS`` boards (default 2,000; set 100000 for the full
    run, which takes minutes) and its time is scaled to 100,000 boards.
    """
    count = 100_000
    design = tmp_path / "design.json"
    design.write_text(json.dumps({"seed": 1, "cells": [{"cohort": "big", "depth": DEPTH, "count": count}]}))
    out = tmp_path / "bank.parquet"
    cmd = [sys.executable, "-m", "fastspe", "bank", "build", "--design", str(design), "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True)  # make sure the kernel cache is warm

    def cli():
        subprocess.run(cmd, check=True, capture_output=True)

    benchmark.pedantic(cli, rounds=3, iterations=1)
    cli_s = benchmark.stats.stats.min
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    twin_boards = int(os.environ.get("FASTSPE_BENCH_TWIN_BOARDS", "2000"))
    t = time.perf_counter()
    naive.build_cell(4, 4, (), DEPTH, twin_boards, seed=1, stream=0, cap=10**9)
    twin_s = (time.perf_counter() - t) * count / twin_boards
    benchmark.extra_info.update(cli_s=cli_s, twin_s_for_100k=twin_s, ratio=twin_s / cli_s, peak_mb=peak_mb)
    print(
        f"\n100k boards: CLI {cli_s:.2f} s, twin {twin_s:.1f} s (from {twin_boards} boards), "
        f"ratio {twin_s / cli_s:.0f}x, peak RSS {peak_mb:.0f} MB"
    )
    assert peak_mb < 1024
    target(
        cli_s < 60 and twin_s / cli_s >= 20,
        f"100k-board CLI < 60 s and >= 20x its twin, got {cli_s:.1f} s, {twin_s / cli_s:.0f}x",
    )
