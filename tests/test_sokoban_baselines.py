"""Sokoban baseline planners: greedy is legal and completes easy levels, random has d* moves, all reproducible."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.sokoban import parse_level
from fastspe.errors import UserError
from fastspe.domains.sokoban.baselines import greedy_plan, sokoban_baseline_responses, sokoban_planner_name
from .naive_sokoban import naive_replay
from .sokoban_strategies import level_and_plan

EASY = [
    "#######\n#@ $ .#\n#######",
    "######\n#    #\n# $  #\n#   .#\n#@   #\n######",
    "#######\n#.   .#\n# $@$ #\n#     #\n#######",
]


def bank(levels=EASY):
    return pd.DataFrame(
        {
            "board_id": [f"s{i}" for i in range(len(levels))],
            "level": levels,
            "depth": [3, 6, 6][: len(levels)],
            "certificate": ["RRR", "UUURRD", "LLU,RRRRRU"][: len(levels)],
        }
    )


def test_greedy_completes_easy_levels():
    for text in EASY:
        plan = greedy_plan(parse_level(text), np.random.default_rng(0))
        assert naive_replay(text, plan)["status"] == "complete", (text, plan)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_plan(max_len=0), st.integers(0, 2**32))
def test_greedy_is_legal_and_stops_only_without_a_lowering_push(case, seed):
    text, _ = case
    plan = greedy_plan(parse_level(text), np.random.default_rng(seed))
    out = naive_replay(text, plan)
    assert out["status"] in ("complete", "legal_noncompletion") and out["error_kind"] == ""
    assert out["final_h"] <= out["min_h"] or out["status"] == "complete"  # h never rises: it ends at its least


def test_responses_shape_and_reproducibility():
    got = sokoban_baseline_responses(bank(), "greedy", trials=2, seed=7)
    assert list(got.columns) == [
        "board_id",
        "condition",
        "trial",
        "response",
        "finish_reason",
        "status",
        "attempt",
        "prompt_text_sha256",
    ]
    assert got["board_id"].tolist() == ["s0", "s0", "s1", "s1", "s2", "s2"] and got["trial"].tolist() == [0, 1] * 3
    assert (got["condition"] == "baseline:greedy").all() and got["response"].str.startswith("MOVES: ").all()
    again = sokoban_baseline_responses(bank().iloc[::-1].reset_index(drop=True), "greedy", trials=2, seed=7)
    assert sorted(again["response"]) == sorted(got["response"])  # a pure function of (seed, board_id, trial)
    oracle = sokoban_baseline_responses(bank(), "baseline:oracle", trials=1)
    assert oracle["response"].tolist() == ["MOVES: R,R,R", "MOVES: U,U,U,R,R,D", "MOVES: L,L,U,R,R,R,R,R,U"]


def test_random_has_depth_moves_and_depends_on_the_seed():
    a = sokoban_baseline_responses(bank(), "random", trials=3, seed=1)
    assert [r.count(",") + 1 for r in a["response"]] == [3] * 3 + [6] * 6
    b = sokoban_baseline_responses(bank(), "random", trials=3, seed=2)
    assert a["response"].tolist() != b["response"].tolist()
    assert a["response"].tolist() == sokoban_baseline_responses(bank(), "random", trials=3, seed=1)["response"].tolist()


def test_bad_input_is_a_clear_error():
    with pytest.raises(UserError, match="choose one of oracle, greedy, random"):
        sokoban_planner_name("noisy")
    with pytest.raises(UserError, match="board 's1'"):
        sokoban_baseline_responses(bank(["#######\n#@ $ .#\n#######", "#@#"]), "greedy")
    with pytest.raises(UserError, match="trials"):
        sokoban_baseline_responses(bank(), "greedy", trials=0)
