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


def timed(bank, resp, on: bool) -> tuple[float, pd.DataFrame]:
    cls = type(DOMAIN)
    saved = cls.verdict_extra_columns
    cls.verdict_extra_columns = saved if on else ()
    try:
        dead._FINDER = dead.DeadMoves()  # a cold cache: every state checked afresh
        start = time.perf_counter()
        verdicts = score_responses(bank, resp)
        return time.perf_counter() - start, verdicts
    finally:
        cls.verdict_extra_columns = saved


def main(bank_path: str | None = None) -> dict:
    from fastspe.boundary.banks import read_bank

    bank = read_bank(bank_path) if bank_path else DOMAIN.bank_frame(DOMAIN.demo_bank())
    resp = answers(bank)
    timed(bank, resp.head(50), True)  # compile and load the kernels once
    off, _ = timed(bank, resp, False)
    on, verdicts = timed(bank, resp, True)
    fdm = verdicts["first_dead_move"].to_numpy()
    assert verdicts.drop(columns="first_dead_move").equals(timed(bank, resp, False)[1])  # the rest unchanged
    print(f"{len(resp):,} answers on {len(bank)} levels: "
          f"{verdicts['status'].value_counts().to_dict()}")
    print(f"column off: {off:.2f} s ({len(resp) / off:,.0f} answers/s)")
    print(f"column on:  {on:.2f} s ({len(resp) / on:,.0f} answers/s), {dead._FINDER.checks:,} solvability checks, "
          f"{np.count_nonzero(fdm >= 0):,} dead, {np.count_nonzero(fdm == -1):,} none, "
          f"{np.count_nonzero(fdm == -2):,} unknown")
    return {"answers_per_s_off": len(resp) / off, "answers_per_s_on": len(resp) / on, "checks": dead._FINDER.checks}


def test_dead_move_column_cost(benchmark):
    benchmark.extra_info.update(benchmark.pedantic(main, rounds=1, iterations=1))


if __name__ == "__main__":
    main(*sys.argv[1:2])
