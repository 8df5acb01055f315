"""The Dask path against in-process, at 2 local workers, for large inputs.

Run with ``python -m pytest benchmarks/bench_distributed.py --benchmark-only -s``. Target (issue 14), on 2
cores: at 2 workers the Dask path costs < 20% more than in-process (a 10k-board x 24-condition bootstrap of
5,000 draws; 1M answers scored; a 200k-board bank). The cluster is started once, outside the timings (its
start, 1-2 s, is printed apart); each Dask run is also checked equal to the in-process one. Each figure
is the best of 3 runs, in-process and Dask interleaved.

``test_cli_score_with_workers`` (issue 21) times the whole command as a user runs it, the start and stop of its
worker processes included (``--workers`` runs on ``fastspe.workers.pool``, not on Dask): ``fastspe score`` against ``fastspe score --workers 2`` on a run log of 200,000 answers
(``FASTSPE_BENCH_CLI_ANSWERS``), two processes in turn, best of 3 (medians printed beside it); target: ``--workers 2``
<= 1.5x.
``FASTSPE_BENCH_ANSWERS`` / ``FASTSPE_BENCH_BOARDS`` (bank) / ``FASTSPE_BENCH_BOOTSTRAP_BOARDS`` /
``FASTSPE_BENCH_CONDITIONS`` change the sizes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchmarks.bench_scale import rollouts  # noqa: F401  (the 1M-answer fixture)
from benchmarks.timing import target
from fastspe.stats import intervals
from fastspe.domains.sliding.bank.build import build_bank_table
from fastspe.boundary.banks import read_bank_table
from fastspe.domains.sliding.bank.design import load_design
from fastspe.distributed import Proposals, cluster, executor
from fastspe.stats.metrics import SUM_COLUMNS
from fastspe.scoring.score import score_file

ANSWERS = int(os.environ.get("FASTSPE_BENCH_ANSWERS", "1000000"))
BOARDS = int(os.environ.get("FASTSPE_BENCH_BOARDS", "200000"))
CONDITIONS = int(os.environ.get("FASTSPE_BENCH_CONDITIONS", "24"))
BOOTSTRAP_BOARDS = int(os.environ.get("FASTSPE_BENCH_BOOTSTRAP_BOARDS", "10000"))
CLI_ANSWERS = int(os.environ.get("FASTSPE_BENCH_CLI_ANSWERS", "200000"))
CLI_BOARDS = 100_000  # the run log's bank, as benchmarks/bench_score.py builds it
DRAWS = 5000
OVERHEAD = 0.20


@pytest.fixture(scope="module")
def client():
    t = time.perf_counter()
    with cluster(workers=2) as c:
        print(f"\nLocalCluster of 2 workers started in {time.perf_counter() - t:.2f} s")
        yield c


def _compare(benchmark, what: str, local, remote, rounds: int = 3) -> None:
    """Best of ``rounds`` of each, interleaved (local, Dask, local, ...) so that a shared machine's load
    drifts onto both alike."""
    times: dict = {local: [], remote: []}
    for _ in range(rounds):
        for fn in (local, remote):
            t = time.perf_counter()
            fn()
            times[fn].append(time.perf_counter() - t)
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)  # the figures are ours; this marks the test a benchmark
    _report(benchmark, what, min(times[local]), min(times[remote]))


def _report(benchmark, what: str, local: float, remote: float) -> None:
    over = remote / local - 1
    print(f"\n{what}: in-process {local:.2f} s, Dask at 2 workers {remote:.2f} s ({over:+.0%})")
    benchmark.extra_info.update(local_s=local, dask_s=remote, overhead=over)
    target(over < OVERHEAD, f"{what}: Dask path {over:+.0%} against in-process (target < +{OVERHEAD:.0%})")


def _sums(boards: int, conditions: int, seed: int = 5) -> pd.DataFrame:
    """Board sums of a paper-like design: 16 primary cells (k x depth), 3 trials per board and condition."""
    rng = np.random.default_rng(seed)
    k, depth = rng.integers(0, 4, boards), rng.choice([10, 20, 30, 40], boards)
    frame = pd.DataFrame(
        {
            "board_id": np.repeat([f"b{i:06d}" for i in range(boards)], conditions),
            "condition": np.tile([f"c{j:02d}" for j in range(conditions)], boards),
            "cohort": "primary",
            "k": np.repeat(k, conditions),
            "depth": np.repeat(depth, conditions),
        }
    )
    n = np.full(len(frame), 3.0)
    illegal = rng.binomial(3, 0.3, len(frame)).astype(float)
    complete = rng.binomial((n - illegal).astype(int), 0.5).astype(float)
    optimal = rng.binomial(complete.astype(int), 0.3).astype(float)
    d = frame["depth"].to_numpy(float)
    values = [n, n - illegal, complete, illegal, optimal, complete * 0.8, complete * 0.3 * d, complete * d]
    return frame.assign(**dict(zip(SUM_COLUMNS, values)))


def test_bootstrap(benchmark, client):
    sums = _sums(BOOTSTRAP_BOARDS, CONDITIONS)

    def run(ex=None):
        return intervals.bootstrap_intervals(sums, draws=DRAWS, groupings=intervals.REPORT_GROUPINGS, executor=ex)

    pd.testing.assert_frame_equal(run(), run(executor(client)))
    _compare(
        benchmark,
        f"bootstrap, {BOOTSTRAP_BOARDS:,} boards x {CONDITIONS} conditions, {DRAWS} draws",
        run,
        lambda: run(executor(client)),
    )


def test_score(benchmark, client, rollouts, tmp_path):
    _, bank_path, answers_path, n = rollouts
    bank = read_bank_table(bank_path)
    run = lambda out, ex=None: score_file(bank, answers_path, tmp_path / out, executor=ex)  # noqa: E731
    run("a.parquet")
    run("b.parquet", executor(client))
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    _compare(benchmark, f"score, {n:,} answers", lambda: run("a.parquet"), lambda: run("b.parquet", executor(client)))


def test_bank_build(benchmark, client, tmp_path):
    path = tmp_path / "design.json"
    path.write_text(
        json.dumps({"seed": 3, "cells": [{"cohort": "primary", "blocks": [], "depth": 40, "count": BOARDS}]})
    )
    design = load_design(path)

    def remote():
        with Proposals(client) as proposals:
            return build_bank_table(design, propose=proposals)

    assert remote().equals(build_bank_table(design))
    _compare(benchmark, f"bank build, {BOARDS:,} boards (k = 0, d* = 40)", lambda: build_bank_table(design), remote)


def _fastspe(*argv: str) -> float:
    """Run ``python -m fastspe ARGV`` as its own process; its wall time, start and exit included."""
    env = {
        **os.environ,
        "FASTSPE_PROGRESS": "off",
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")) if p
        ),
    }
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "fastspe", *argv], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def test_cli_score_with_workers(benchmark, tmp_path):
    design, bank, log = tmp_path / "design.json", tmp_path / "bank.parquet", tmp_path / "answers.jsonl"
    design.write_text(json.dumps({"seed": 7, "cells": [{"cohort": "primary", "depth": 40, "count": CLI_BOARDS}]}))
    _fastspe("bank", "build", "--design", str(design), "--out", str(bank))
    _fastspe(
        "run",
        "--bank",
        str(bank),
        "--model",
        "baseline:random",
        "--trials",
        str(-(-CLI_ANSWERS // CLI_BOARDS)),
        "--out",
        str(log),
    )
    score = ("score", "--bank", str(bank), "--responses", str(log), "--out")
    local, pool = (score + (str(tmp_path / "a.parquet"),)), (score + (str(tmp_path / "b.parquet"), "--workers", "2"))
    _fastspe(*local), _fastspe(*pool)  # kernels compiled or loaded from the cache once
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    times: dict = {"local": [], "workers": []}
    for _ in range(3):  # interleaved, so that a shared machine's load drifts onto both alike
        times["local"].append(_fastspe(*local))
        times["workers"].append(_fastspe(*pool))
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    best = {k: min(v) for k, v in times.items()}
    middle = {k: float(np.median(v)) for k, v in times.items()}  # (printed too: one lucky run moves the best)
    ratio = best["workers"] / best["local"]
    benchmark.extra_info.update(
        local_s=best["local"], workers_s=best["workers"], ratio=ratio, median_ratio=middle["workers"] / middle["local"]
    )
    print(
        f"\nfastspe score, {CLI_ANSWERS:,} answers, whole process: in-process {best['local']:.2f} s, "
        f"--workers 2 {best['workers']:.2f} s (workers' start and stop included); ratio {ratio:.2f}x "
        f"(medians: {middle['local']:.2f} s, {middle['workers']:.2f} s, "
        f"{middle['workers'] / middle['local']:.2f}x)"
    )
    target(ratio <= 1.5, f"score --workers 2 <= 1.5x the in-process command, got {ratio:.2f}x")
