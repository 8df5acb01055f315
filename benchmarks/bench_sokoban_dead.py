"""The cost of the first-dead-move column: scoring Sokoban answers with it on and off, on the default bank.

Run with ``python -m benchmarks.bench_sokoban_dead [BANK.parquet]`` or ``python -m pytest
benchmarks/bench_sokoban_dead.py --benchmark-only -s`` (a few minutes: the default bank is built unless one is given,
then 10,000 baseline answers -- greedy and random, four in five of which do not complete -- are scored both ways,
the column's cache cold). Prints answers/s with and without the column, the solvability checks made (the cache's
misses) and how the answers split. No target is asserted: the figures say what the column costs.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from fastspe.domains.sokoban import DOMAIN
from fastspe.domains.sokoban import dead
from fastspe.domains.sokoban.baselines import sokoban_baseline_responses
from fastspe.scoring.score import score_responses

ANSWERS = 10_000


def answers(bank, n: int = ANSWERS) -> pd.DataFrame:
    trials = -(-n // (2 * len(bank)))
    frames = [sokoban_baseline_responses(bank, p, trials=trials, seed=1) for p in ("greedy", "random")]
    return pd.concat(frames, ignore_index=True).head(n)


def timed(bank, resp, on: bool) -> tuple[float, float, pd.DataFrame, int]:
    """Wall and CPU seconds of scoring ``resp`` with the column ``on`` or off, the verdicts, and the checks made."""
    cls = type(DOMAIN)
    saved = cls.verdict_extra_columns
    cls.verdict_extra_columns = saved if on else ()
    try:
        dead._FINDER = dead.DeadMoves()  # a cold cache: every state checked afresh
        wall, cpu = time.perf_counter(), time.process_time()
        verdicts = score_responses(bank, resp)
        return time.perf_counter() - wall, time.process_time() - cpu, verdicts, dead._FINDER.checks
    finally:
        cls.verdict_extra_columns = saved


def main(bank_path: str | None = None, repeat: int = 2) -> dict:
    from fastspe.boundary.banks import read_bank

    bank = read_bank(bank_path) if bank_path else DOMAIN.demo_bank()  # (a checked table: it names its domain)
    resp = answers(bank if bank_path else DOMAIN.bank_frame(bank))
    timed(bank, resp.head(50), True)  # compile and load the kernels once
    runs = {False: [], True: []}
    for _ in range(repeat):  # alternated, so both see the same machine
        for on in (False, True):
            runs[on].append(timed(bank, resp, on))
    off, on = (min(runs[k], key=lambda r: r[1]) for k in (False, True))
    verdicts, checks = on[2], on[3]
    assert verdicts.drop(columns="first_dead_move").equals(off[2])  # the other columns unchanged
    fdm = verdicts["first_dead_move"].to_numpy()
    n = len(resp)
    print(f"{n:,} answers on {len(bank)} levels: {verdicts['status'].value_counts().to_dict()}")
    for name, (wall, cpu, *_) in (("column off", off), ("column on ", on)):
        print(f"{name}: {cpu:.2f} CPU s ({n / cpu:,.0f} answers per CPU s), {wall:.2f} s wall (best of {repeat})")
    print(
        f"the column: {on[1] - off[1]:.2f} CPU s more, {checks:,} solvability checks (cache misses); "
        f"{np.count_nonzero(fdm >= 0):,} dead, {np.count_nonzero(fdm == -1):,} none, "
        f"{np.count_nonzero(fdm == -2):,} unknown"
    )
    return {"answers_per_cpu_s_off": n / off[1], "answers_per_cpu_s_on": n / on[1], "checks": checks}


def test_dead_move_column_cost(benchmark):
    benchmark.extra_info.update(benchmark.pedantic(main, rounds=1, iterations=1))


if __name__ == "__main__":
    main(*sys.argv[1:2])
