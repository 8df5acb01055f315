"""Replay and scoring speed, each beside its plain-Python twin in the same run.

Run with ``python -m pytest benchmarks/bench_replay.py --benchmark-only -s``. Targets (issue 3):
replay >= 100x the twin and >= 1e8 moves/s on 2 cores for 1,000,000 plans of 60 moves (the
figure is reported, not asserted: the machine may be shared); scoring the paper-sized set of
8,400 answers end to end, from files to a verdicts file, < 2 s once compiled.
"""

from __future__ import annotations

import json

import numba
import numpy as np
import pandas as pd

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import read_bank, write_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.domains.sliding.kernels.replay import replay_plans
from fastspe.domains.sliding.layout import DIRECTIONS, Layout
from fastspe.scoring.parse_reference import parse_answer
from fastspe.boundary.responses import read_responses
from fastspe.boundary.verdict_files import write_verdicts
from fastspe.scoring.score import bank_tables, score_responses
from tests.naive_replay import naive_distances, naive_replay
from benchmarks.timing import best_of, target

PLANS, MOVES = 1_000_000, 60
TWIN_PLANS = 2_000
CONDITIONS, TRIALS = 7, 3


def legal_walks(tables, board_index, length, seed):
    """Random legal plans (uint8 codes (n, length)) from each plan's board, vectorized over plans."""
    rng = np.random.default_rng(seed)
    n = len(board_index)
    lay = tables.layout_index[board_index]
    blank = np.argmax(tables.boards[board_index] == 0, axis=1)
    legal = tables.moves >= 0  # (layouts, cells, 4)
    codes = np.empty((n, length), dtype=np.uint8)
    for step in range(length):
        ok = legal[lay, blank]  # (n, 4)
        # the r-th legal direction, r uniform over the legal ones
        r = (rng.random(n) * ok.sum(axis=1)).astype(np.int64)
        d = np.argmax(np.cumsum(ok, axis=1) > r[:, None], axis=1)
        codes[:, step] = d
        blank = tables.moves[lay, blank, d]
    return codes


def test_replay_kernel_vs_twin(benchmark):
    bank = build_bank(paper_design())
    tables = bank_tables(bank)
    rng = np.random.default_rng(0)
    board_index = rng.integers(0, len(bank), PLANS).astype(np.int64)
    codes = legal_walks(tables, board_index, MOVES, seed=1).ravel()
    offsets = np.arange(PLANS + 1, dtype=np.int64) * MOVES
    args = (
        tables.boards,
        board_index,
        codes,
        offsets,
        tables.layout_index[board_index],
        tables.moves,
        tables.dist,
        tables.goal_cell,
        tables.bits,
    )
    replay_plans(*args)  # compile / load from cache
    out = benchmark.pedantic(replay_plans, args=args, rounds=5, iterations=1, warmup_rounds=1)
    assert (out[0] != 2).all()  # every plan is legal: all 60 moves of each are replayed
    kernel_rate = PLANS * MOVES / benchmark.stats.stats.min

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one_thread = PLANS * MOVES / best_of(lambda: replay_plans(*args), repeat=2)
    finally:
        numba.set_num_threads(before)

    # the twin on the first TWIN_PLANS plans, with the same inputs
    layouts = {
        (lay.rows, lay.cols, lay.blocks): lay
        for lay in (Layout(int(r), int(c), tuple(b)) for r, c, b in zip(bank["rows"], bank["cols"], bank["blocks"]))
    }
    dists = {key: naive_distances(*key) for key in layouts}
    rows = bank.iloc[board_index[:TWIN_PLANS]]
    plans = ["".join(DIRECTIONS[c] for c in codes[i * MOVES : (i + 1) * MOVES]) for i in range(TWIN_PLANS)]

    def twin():
        columns = rows[["rows", "cols", "blocks", "initial", "goal"]].itertuples(index=False)
        for (r, c, b, init, goal), plan in zip(columns, plans):
            naive_replay(init, goal, r, c, tuple(b), plan, dist=dists[(r, c, tuple(b))])

    twin_rate = TWIN_PLANS * MOVES / best_of(twin, repeat=1)
    benchmark.extra_info.update(
        moves_per_s=kernel_rate,
        moves_per_s_one_thread=one_thread,
        twin_moves_per_s=twin_rate,
        ratio=kernel_rate / twin_rate,
        threads=before,
    )
    print(
        f"\nreplay {PLANS:,} plans x {MOVES} moves on {before} threads: {kernel_rate:,.0f} moves/s "
        f"({one_thread:,.0f} on 1 thread); twin {twin_rate:,.0f} moves/s; ratio {kernel_rate / twin_rate:,.0f}x "
        f"({one_thread / twin_rate:,.0f}x on 1 thread)"
    )
    target(one_thread / twin_rate >= 100, f"replay >= 100x its twin on one thread, got {one_thread / twin_rate:.0f}x")


def _answers(bank: pd.DataFrame, seed: int) -> list[dict]:
    """Paper-sized answers (7 conditions x 3 trials per board) in the forms models write."""
    rng = np.random.default_rng(seed)
    thinking = "Let me think about where each tile has to go. " * 12
    out = []
    for cond in range(CONDITIONS):
        for bid, cert in zip(bank["board_id"], bank["certificate"]):
            for trial in range(TRIALS):
                kind = rng.integers(6)
                detour = "".join(rng.choice(list("UDLR"), size=int(rng.integers(0, 30))))
                plan = cert if kind < 2 else cert[: len(cert) // 2] + detour + cert[len(cert) // 2 :]
                if kind == 5:
                    text = thinking + "I could not find a plan."
                elif kind == 4:
                    text = thinking + "\n**MOVES:** " + " ".join(plan.lower())
                else:
                    text = thinking + "\nMOVES: " + ",".join(plan)
                out.append(
                    {
                        "board_id": bid,
                        "condition": f"model-{cond}",
                        "trial": trial,
                        "response": text,
                        "finish_reason": "stop",
                        "output_tokens": int(rng.integers(100, 4000)),
                    }
                )
    return out


def test_score_end_to_end(benchmark, tmp_path):
    bank = build_bank(paper_design())
    bank_path, resp_path, out_path = tmp_path / "bank.parquet", tmp_path / "r.jsonl", tmp_path / "v.parquet"
    write_bank(bank, bank_path)
    answers = _answers(bank, seed=2)
    resp_path.write_text("".join(json.dumps(a) + "\n" for a in answers))

    def score_files():
        b = read_bank(bank_path)
        write_verdicts(score_responses(b, read_responses(resp_path, bank=b)), out_path)

    score_files()  # compile / load from cache
    benchmark.pedantic(score_files, rounds=5, iterations=1, warmup_rounds=1)
    verdicts = pd.read_parquet(out_path)
    assert len(verdicts) == CONDITIONS * TRIALS * len(bank) == 8_400

    # the twin: parse each answer and replay it in plain Python
    by_id = bank.set_index("board_id")
    dists = {}

    def twin():
        for a in answers[:1200]:
            row = by_id.loc[a["board_id"]]
            key = (int(row["rows"]), int(row["cols"]), tuple(row["blocks"]))
            if key not in dists:
                dists[key] = naive_distances(*key)
            naive_replay(row["initial"], row["goal"], *key, parse_answer(a["response"]).moves, dist=dists[key])

    twin_s = best_of(twin, repeat=1) * len(answers) / 1200
    kernel_s = benchmark.stats.stats.min
    benchmark.extra_info.update(seconds=kernel_s, twin_seconds=twin_s, ratio=twin_s / kernel_s)
    print(f"\nscore 8,400 answers from files: {kernel_s:.3f} s; twin (parse + Python replay, scaled) {twin_s:.2f} s")
    target(kernel_s < 2.0, f"score end to end < 2 s, got {kernel_s:.2f} s")
