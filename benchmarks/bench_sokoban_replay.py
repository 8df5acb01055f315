"""Sokoban replay and answer-scoring speed, each beside the plain-Python twin in the same run.

Run with ``python -m pytest benchmarks/bench_sokoban_replay.py --benchmark-only -s``. Target (issue 23): scoring
Sokoban answers >= 200k answers/s on 2 cores (parse the ``MOVES:`` text and replay it); the figures are reported,
the target asserted unless ``FASTSPE_BENCH_GATE=ratios``. The plans are walks that mostly take legal moves (pushes
included) on rooms of 1 to 4 boxes, so most are replayed to their end.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

from fastspe.domains.sokoban import DOMAIN, pack_levels, parse_level
from fastspe.domains.sokoban.kernels.replay import replay_levels
from fastspe.scoring.parse_column import parse_column
from tests.naive_sokoban import naive_replay
from benchmarks.timing import best_of, target

LEVELS = [
    "#######\n#@ $ .#\n#######",
    "#######\n#.   .#\n# $@$ #\n#     #\n#######",
    "########\n#  .   #\n# $$ # #\n#  @ . #\n#   $ .#\n########",
    "#########\n#.  #  .#\n# $    $#\n#   @   #\n#  $  $ #\n#.     .#\n#########",
    "  #####\n###   #\n#.@$  #\n### $.#\n# ##$ #\n# # . ##\n#  *   #\n#      #\n########",
]
PLANS, MOVES = 1_000_000, 40
WALKS, TWIN_PLANS = 2_000, 2_000


def walks(n: int, length: int, seed: int) -> tuple[list[str], np.ndarray]:
    """``n`` plans of ``length`` moves, each a walk on a random level that takes a legal move 19 times in 20."""
    rng = np.random.default_rng(seed)
    levels = [parse_level(t) for t in LEVELS]
    index = rng.integers(0, len(levels), n)
    plans = []
    for i in index:
        lv = levels[i]
        player, boxes, plan = lv.player, set(lv.boxes), []
        for _ in range(length):
            legal = []
            for d in range(4):
                t = int(lv.moves[player, d])
                if t >= 0 and (t not in boxes or (b := int(lv.moves[t, d])) >= 0 and b not in boxes):
                    legal.append(d)
            d = int(rng.integers(4)) if not legal or rng.random() < 0.05 else legal[int(rng.integers(len(legal)))]
            plan.append("UDLR"[d])
            if d not in legal:
                break
            t = int(lv.moves[player, d])
            if t in boxes:
                boxes.remove(t)
                boxes.add(int(lv.moves[t, d]))
            player = t
        plans.append("".join(plan))
    return plans, index.astype(np.int64)


def test_sokoban_replay_kernel_vs_twin(benchmark):
    tables = pack_levels([parse_level(t) for t in LEVELS])
    base, base_index = walks(WALKS, MOVES, seed=1)
    reps = PLANS // WALKS
    lengths = np.array([len(p) for p in base], dtype=np.int64)
    codes = np.tile(np.frombuffer("".join(base).translate(str.maketrans("UDLR", "\0\1\2\3")).encode(), np.uint8), reps)
    offsets = np.zeros(PLANS + 1, dtype=np.int64)
    np.cumsum(np.tile(lengths, reps), out=offsets[1:])
    index = np.tile(base_index, reps)
    args = (index, codes, offsets, tables.moves, tables.push_distance, tables.player, tables.boxes, tables.nboxes)
    replay_levels(*args)  # compile / load from cache
    out = benchmark.pedantic(replay_levels, args=args, rounds=5, iterations=1, warmup_rounds=1)
    moves = int(offsets[-1])
    kernel_s = benchmark.stats.stats.min
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one_s = best_of(lambda: replay_levels(*args), repeat=2)
    finally:
        numba.set_num_threads(before)

    def twin():
        for plan, i in zip(base[:TWIN_PLANS], base_index[:TWIN_PLANS]):
            naive_replay(LEVELS[i], plan)

    twin_s = best_of(twin, repeat=1) * PLANS / TWIN_PLANS
    benchmark.extra_info.update(
        plans_per_s=PLANS / kernel_s,
        moves_per_s=moves / kernel_s,
        plans_per_s_one_thread=PLANS / one_s,
        twin_plans_per_s=PLANS / twin_s,
        ratio=twin_s / one_s,
        threads=before,
    )
    print(
        f"\nsokoban replay {PLANS:,} plans ({moves / PLANS:.1f} moves each, {np.mean(out[0] == 2):.0%} illegal) on "
        f"{before} threads: {PLANS / kernel_s:,.0f} plans/s, {moves / kernel_s:,.0f} moves/s ({PLANS / one_s:,.0f} "
        f"plans/s on 1 thread); twin {PLANS / twin_s:,.0f} plans/s; ratio {twin_s / one_s:,.0f}x on 1 thread"
    )
    target(twin_s / one_s >= 100, f"Sokoban replay >= 100x its twin on one thread, got {twin_s / one_s:.0f}x")


def test_sokoban_answers_per_second(benchmark):
    """Parse answer texts (``MOVES: U,D,...``) and replay them by bank row: the scoring core, beside the twin."""
    n = 200_000
    base, base_index = walks(WALKS, MOVES, seed=2)
    rng = np.random.default_rng(3)
    pick = rng.integers(0, WALKS, n)
    texts = pa.array(["MOVES: " + ",".join(base[i]) for i in pick], pa.string())
    bank = pa.table(
        {
            "board_id": [f"s{i}" for i in range(len(LEVELS))],
            "cohort": ["bench"] * len(LEVELS),
            "depth": np.full(len(LEVELS), 20),
            "level": LEVELS,
            "boxes": [len(parse_level(t).boxes) for t in LEVELS],
            "certificate": [""] * len(LEVELS),
            "pushes": np.zeros(len(LEVELS), np.int64),
        }
    )
    packed = DOMAIN.pack(bank)
    rows = base_index[pick]

    def score():
        parsed = parse_column(texts)
        return DOMAIN.replay(packed, rows, parsed.codes, parsed.offsets)

    score()
    benchmark.pedantic(score, rounds=5, iterations=1, warmup_rounds=1)
    kernel_s = benchmark.stats.stats.min
    answers = texts.to_pylist()

    def twin():
        for text, i in zip(answers[:TWIN_PLANS], pick[:TWIN_PLANS]):
            naive_replay(LEVELS[base_index[i]], text.removeprefix("MOVES: ").split(","))

    twin_s = best_of(twin, repeat=1) * n / TWIN_PLANS
    rate = n / kernel_s
    benchmark.extra_info.update(answers_per_s=rate, twin_answers_per_s=n / twin_s, ratio=twin_s / kernel_s)
    print(
        f"\nsokoban scoring core (parse + replay) {n:,} answers: {rate:,.0f} answers/s; twin {n / twin_s:,.0f} "
        f"answers/s; ratio {twin_s / kernel_s:,.0f}x"
    )
    target(rate >= 200_000, f"Sokoban scoring >= 200k answers/s, got {rate:,.0f}")
