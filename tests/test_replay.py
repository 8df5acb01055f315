"""The replay kernel against its plain-Python twin (tests/naive_replay.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding.kernels.replay import ERROR_NAMES, key_layout, replay_plans
from fastspe.domains.codes import STATUS_NAMES
from fastspe.domains.sliding.layout import DIRECTIONS, Layout
from fastspe.domains.sliding.kernels.graph import board_h
from fastspe.scoring.score import bank_tables, encode_moves
from .naive_replay import naive_distances, naive_replay
from .strategies import layouts


INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def scramble(layout: Layout, steps: int, rng: np.random.Generator, with_solution: bool = False):
    """A board reached from the goal by ``steps`` random legal blank moves (and a plan back)."""
    board = layout.goal.astype(int).tolist()
    blank = board.index(0)
    path = []
    for _ in range(steps):
        dirs = [d for d in range(4) if layout.moves[blank, d] >= 0]
        d = dirs[rng.integers(len(dirs))]
        t = int(layout.moves[blank, d])
        board[blank], board[t] = board[t], 0
        blank = t
        path.append(DIRECTIONS[d])
    if with_solution:
        return board, "".join(INVERSE[a] for a in reversed(path))
    return board


def mini_bank(cases) -> pd.DataFrame:
    """A bank DataFrame with one board per (layout, initial) case (depth = h, a placeholder certificate)."""
    h = [int(board_h(np.array(b, dtype=np.int8), lay.goal_cell, lay.distances)) for lay, b in cases]
    return pd.DataFrame(
        {
            "board_id": [f"b{i}" for i in range(len(cases))],
            "cohort": "test",
            "k": [lay.k for lay, _ in cases],
            "blocks": [list(lay.blocks) for lay, _ in cases],
            "rows": [lay.rows for lay, _ in cases],
            "cols": [lay.cols for lay, _ in cases],
            "depth": h,
            "h": h,
            "initial": [list(b) for _, b in cases],
            "goal": [lay.goal.astype(int).tolist() for lay, _ in cases],
            "certificate": ["U" * d for d in h],
            "proposal_index": 0,
            "seed": 0,
        }
    )


def kernel(cases, plans):
    """Run the kernel on (layout, initial) cases with plan strings ("?" or any non-UDLR = not a move)."""
    t = bank_tables(mini_bank(cases))
    codes, offsets = encode_moves(plans)
    idx = np.arange(len(cases), dtype=np.int64)
    out = replay_plans(t.boards, idx, codes, offsets, t.layout_index, t.moves, t.dist, t.goal_cell, t.bits)
    names = ["status", "error_kind", "first_error", "final_h", "min_h", "revisits", "goal_midway"]
    rows = []
    for i in range(len(cases)):
        r = {k: v[i].item() for k, v in zip(names, out)}
        r["status"] = STATUS_NAMES[r["status"]]
        r["error_kind"] = ERROR_NAMES[r["error_kind"]]
        r["L"] = int(offsets[i + 1] - offsets[i])
        rows.append(r)
    return rows


def twin(cases, plans):
    return [
        naive_replay(
            b,
            lay.goal.tolist(),
            lay.rows,
            lay.cols,
            lay.blocks,
            list(p),
            dist=naive_distances(lay.rows, lay.cols, lay.blocks),
        )
        for (lay, b), p in zip(cases, plans)
    ]


@st.composite
def cases_and_plans(draw, max_side=4):
    n = draw(st.integers(1, 12))
    cases, plans = [], []
    for _ in range(n):
        lay = draw(layouts(max_side=max_side))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        board, solution = scramble(lay, draw(st.integers(0, 12)), rng, with_solution=True)
        cases.append((lay, board))
        # mostly moves, some tokens that are not moves; often around a plan that reaches the goal
        noise = st.text(alphabet="UDLRUDLRUDLR?", max_size=20)
        if draw(st.booleans()):
            plans.append(draw(noise))
        else:
            plans.append(
                draw(st.sampled_from(["", "UD", "LR"]))
                + solution
                + draw(st.sampled_from(["", "UD", "RL"]))
                + draw(st.sampled_from(["", "", draw(noise)]))
            )
    return cases, plans


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases_and_plans())
def test_kernel_matches_twin_on_random_plans(data):
    cases, plans = data
    assert kernel(cases, plans) == twin(cases, plans)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases_and_plans(max_side=7))
def test_kernel_matches_twin_on_large_boards(data):
    """Boards past 16 cells or 15 tiles take the multi-word state key."""
    cases, plans = data
    assert kernel(cases, plans) == twin(cases, plans)


def test_multi_word_key_on_a_long_walk():
    lay = Layout(6, 6, (7, 20))
    rng = np.random.default_rng(11)
    start = scramble(lay, 50, rng)
    plans = ["".join(rng.choice(list("UDLR"), size=3000)), "UDUDLRLR" * 50, ""]
    cases = [(lay, start)] * 3
    assert key_layout(36, lay.tiles)[2] > 1
    got = kernel(cases, plans)
    assert got == twin(cases, plans) and got[1]["revisits"] > 0


@pytest.mark.parametrize("blocks", [(), (5,), (5, 10), (6, 9, 10)])
def test_illegal_action_at_every_position(blocks):
    """Take a legal solving plan and break it at each position with each kind of illegal action."""
    lay = Layout(4, 4, blocks)
    rng = np.random.default_rng(len(blocks))
    start = scramble(lay, 30, rng)
    # a legal plan: random legal moves; then an illegal action of each kind at each position
    board, blank, legal = list(start), start.index(0), []
    for _ in range(25):
        d = int(rng.choice([d for d in range(4) if lay.moves[blank, d] >= 0]))
        t = int(lay.moves[blank, d])
        board[blank], board[t] = board[t], 0
        blank, legal = t, legal + [DIRECTIONS[d]]
    cases, plans = [], []
    for i in range(len(legal) + 1):
        # replay the prefix to know where the blank is, then pick an illegal direction if there is one
        b = start.index(0)
        for a in legal[:i]:
            b = int(lay.moves[b, DIRECTIONS.index(a)])
        for d in range(4):
            if lay.moves[b, d] < 0:
                cases.append((lay, start))
                plans.append("".join(legal[:i]) + DIRECTIONS[d] + "".join(legal[i:]))
        cases.append((lay, start))
        plans.append("".join(legal[:i]) + "?" + "".join(legal[i:]))
    got, want = kernel(cases, plans), twin(cases, plans)
    assert got == want
    kinds = {r["error_kind"] for r in got}
    assert "invalid_action" in kinds and "boundary" in kinds
    if blocks:
        assert "obstacle" in kinds
    assert sorted({r["first_error"] for r in got}) == list(range(len(legal) + 1))


def test_mixed_layouts_and_sizes_in_one_call():
    rng = np.random.default_rng(3)
    lays = [Layout(4, 4, ()), Layout(4, 4, (5, 10)), Layout(3, 3, (4,)), Layout(2, 5, ())]
    cases = [(lay, scramble(lay, 15, rng)) for lay in lays for _ in range(5)]
    plans = ["".join(rng.choice(list("UDLR"), size=int(rng.integers(0, 50)))) for _ in cases]
    assert kernel(cases, plans) == twin(cases, plans)


def test_revisits_and_goal_midway_by_hand():
    lay = Layout(4, 4, ())
    start = lay.goal.astype(int).tolist()
    start[14], start[15] = 0, 15  # the goal with the blank moved left once: h = 1
    [r] = kernel([(lay, start)], ["RLR"])
    # states: start, goal, start (seen), goal (seen)
    assert r == {
        "status": "complete",
        "error_kind": "",
        "first_error": -1,
        "final_h": 0,
        "min_h": 0,
        "revisits": 2,
        "goal_midway": True,
        "L": 3,
    }
    [r] = kernel([(lay, start)], ["R"])
    assert r["status"] == "complete" and not r["goal_midway"] and r["revisits"] == 0
    [r] = kernel([(lay, start)], ["RL"])
    assert r["status"] == "legal_noncompletion" and r["goal_midway"] and r["final_h"] == 1 and r["min_h"] == 0


def test_long_and_empty_plans():
    lay = Layout(4, 4, (6, 9))
    rng = np.random.default_rng(5)
    start = scramble(lay, 40, rng)
    long_plan = "".join(rng.choice(list("UDLR"), size=100_000))
    # make it legal: keep only legal moves by replaying in the twin's rules
    blank, moves = start.index(0), []
    for a in long_plan:
        t = lay.moves[blank, DIRECTIONS.index(a)]
        if t >= 0:
            moves.append(a)
            blank = int(t)
    legal_plan = "".join(moves)
    cases = [(lay, start)] * 3
    plans = [legal_plan, "", long_plan]
    got, want = kernel(cases, plans), twin(cases, plans)
    assert got == want
    assert got[0]["status"] in ("complete", "legal_noncompletion") and got[0]["L"] == len(legal_plan)
    assert got[0]["revisits"] > 0  # a random walk of ~60,000 moves on a small board revisits
    assert got[1]["L"] == 0 and got[1]["status"] == "legal_noncompletion" and got[1]["final_h"] == got[1]["min_h"]


def test_thread_count_does_not_change_results():
    import numba

    rng = np.random.default_rng(9)
    lay = Layout(4, 4, (5,))
    cases = [(lay, scramble(lay, 20, rng)) for _ in range(600)]
    plans = ["".join(rng.choice(list("UDLR?"), p=[0.24, 0.24, 0.24, 0.24, 0.04], size=60)) for _ in cases]
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = kernel(cases, plans)
    finally:
        numba.set_num_threads(before)
    assert one == kernel(cases, plans)


def test_key_layout_is_exact_for_the_paper_boards():
    bits, per_word, nwords = key_layout(16, 15)
    assert (bits, per_word, nwords) == (4, 16, 1)
    bits, per_word, nwords = key_layout(64, 63)
    assert bits == 6 and per_word * bits <= 64 and nwords * per_word >= 64
