"""The Sokoban replay kernel against its plain-Python twin (tests/naive_sokoban.py)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.codes import STATUS_NAMES
from fastspe.domains.sokoban import DOMAIN, pack_levels, pack_table, parse_level
from fastspe.errors import UserError
from fastspe.domains.sokoban.kernels.replay import ERROR_NAMES, replay_levels
from .naive_sokoban import naive_replay
from .sokoban_strategies import level_and_plan

CODE = {"U": 0, "D": 1, "L": 2, "R": 3}
FIELDS = ("status", "error_kind", "first_error", "final_h", "min_h", "revisits", "goal_midway")


def encode(plans):
    lengths = [len(p) for p in plans]
    offsets = np.zeros(len(plans) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.array([CODE.get(a, 7) for p in plans for a in p], dtype=np.uint8)
    return codes, offsets


def kernel(texts, plans, index=None):
    """Kernel outputs per plan as dicts; plan i runs on ``texts[index[i]]`` (default: texts[i])."""
    t = pack_levels([parse_level(x) for x in texts])
    index = np.arange(len(plans), dtype=np.int64) if index is None else np.asarray(index, dtype=np.int64)
    codes, offsets = encode(plans)
    out = replay_levels(index, codes, offsets, t.moves, t.push_distance, t.player, t.boxes, t.nboxes)
    return [
        {
            "status": STATUS_NAMES[out[0][i]],
            "error_kind": ERROR_NAMES[out[1][i]],
            "first_error": int(out[2][i]),
            "final_h": int(out[3][i]),
            "min_h": int(out[4][i]),
            "revisits": int(out[5][i]),
            "goal_midway": bool(out[6][i]),
        }
        for i in range(len(plans))
    ]


def one(text, plan):
    return kernel([text], [list(plan)])[0]


def agree(texts, plans, index=None):
    got = kernel(texts, plans, index)
    index = range(len(plans)) if index is None else index
    for g, i, plan in zip(got, index, plans):
        want = naive_replay(texts[i], plan)
        assert {f: g[f] for f in FIELDS} == {f: want[f] for f in FIELDS}, (texts[i], "".join(plan))


LINE = "#######\n#@ $ .#\n#######"


def test_push_to_goal_completes():
    assert one(LINE, "RRR") == {
        "status": "complete",
        "error_kind": "",
        "first_error": -1,
        "final_h": 0,
        "min_h": 0,
        "revisits": 0,
        "goal_midway": False,
    }


def test_a_step_after_the_goal_that_keeps_the_boxes_on_goals_still_completes():
    out = one(LINE, "RRRL")
    assert out["status"] == "complete" and out["goal_midway"] and out["final_h"] == 0
    assert one(LINE, "RRRLR")["revisits"] == 1  # back to the solved state: a revisit, still complete


def test_walking_into_a_wall_and_pushing_into_a_wall_or_a_box():
    assert one(LINE, "L")["error_kind"] == "wall" and one(LINE, "U")["error_kind"] == "wall"
    out = one(LINE, "RRRR")
    assert (out["status"], out["error_kind"], out["first_error"], out["final_h"]) == ("illegal", "box_blocked", 3, 0)
    assert out["goal_midway"]  # the goal was reached before the refused push
    two = "########\n#@$$ ..#\n########"
    out = one(two, "R")
    assert (out["error_kind"], out["first_error"], out["final_h"]) == (
        "box_blocked",
        0,
        5,
    )  # 3 + 2 pushes to the nearer goal


def test_a_box_walled_in_on_its_goal_is_a_wall():
    # Microban 155 and reasoning-gym's rooms hold such boxes: they never move, and the level is the rest of it
    walled = "#######\n#*#@$.#\n#######"
    assert parse_level(walled).boxes == (11,) and parse_level(walled).fixed == (8,)
    assert one(walled, "R")["status"] == "complete" and one(walled, "L")["error_kind"] == "wall"
    agree([walled] * 3, [list("R"), list("LR"), list("RL")])


def test_not_a_move_and_an_empty_plan():
    out = one(LINE, "Rx")
    assert (out["status"], out["error_kind"], out["first_error"], out["final_h"]) == ("illegal", "invalid_action", 1, 2)
    assert one(LINE, "") == {
        "status": "legal_noncompletion",
        "error_kind": "",
        "first_error": -1,
        "final_h": 2,
        "min_h": 2,
        "revisits": 0,
        "goal_midway": False,
    }


def test_revisits_count_player_and_boxes():
    # back and forth without a push: the player's cell alone makes the state
    assert one("#######\n#@  $.#\n#######", "RLRL")["revisits"] == 3
    # the same player cell with the box moved is a new state
    assert one("#######\n#@ $ .#\n#######", "RRLR")["revisits"] == 1


def test_boxes_stay_sorted_in_the_key():
    # the left box goes down past the right one's cell index and comes back up: the start state again, reached
    # with the boxes in the other order of moves, is a revisit only if the key does not depend on that order
    level = "#######\n#@    #\n#$  $ #\n#     #\n#  .. #\n#######"
    assert one(level, "DRDDLURUUL")["revisits"] == 1
    agree([level], [list("DRDDLURUUL")])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_plan())
def test_kernel_matches_twin(case):
    text, plan = case
    agree([text], [plan])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(level_and_plan(max_len=60), min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_batches_match_twin(cases, rng):
    """Many plans per level in one call, in shuffled order, across chunk boundaries of the parallel loop."""
    texts = [t for t, _ in cases]
    index = [rng.randrange(len(texts)) for _ in range(300)]
    plans = [cases[i][1][: rng.randrange(len(cases[i][1]) + 1)] for i in index]
    agree(texts, plans, index)


def test_long_plans_use_a_larger_table():
    level = "#########\n#@      #\n#  $  . #\n#       #\n#########"
    rng = np.random.default_rng(5)
    plans = [list(rng.choice(list("UDLR"), size=n)) for n in (0, 1, 700, 3000, 5)]
    agree([level], plans, [0] * len(plans))


def test_domain_packs_a_bank_and_replays_by_row():
    table = pa.table(
        {
            "board_id": ["a", "b"],
            "cohort": ["primary", "stress"],
            "depth": [3, 1],
            "level": [LINE, "####\n#@$.#\n####"],
            "boxes": [1, 1],
            "certificate": ["RRR", "R"],
            "pushes": [2, 1],
        }
    )
    packed = DOMAIN.pack(table)
    assert packed.rows_of(["b", "zz", "a"]).tolist() == [1, -1, 0]
    assert packed.stratum_values().tolist() == [1, 1]
    assert packed.layout_names.to_pylist() == ["3x5", "3x7"] and packed.layout_index.tolist() == [1, 0]
    assert packed.cohort_names.to_pylist()[packed.cohort_code[1]] == "stress"
    codes, offsets = encode([list("RRR"), list("R"), list("L")])
    status, kind, *_ = DOMAIN.replay(packed, np.array([0, 1, 1]), codes, offsets)
    assert status.tolist() == [0, 0, 2] and kind.tolist() == [0, 0, 1]
    assert DOMAIN.error_names == ("", "wall", "box_blocked", "invalid_action", "format")
    assert "Level:\n#######\n#@ $ .#\n#######" in DOMAIN.render_prompt({"level": LINE})


def test_pack_names_the_bad_row():
    table = pa.table(
        {
            "board_id": ["a", "b"],
            "cohort": ["p", "p"],
            "depth": [2, 1],
            "level": [LINE, "###\n#@#\n###"],
            "boxes": [1, 1],
            "certificate": ["RR", "R"],
            "pushes": [2, 1],
        }
    )
    with pytest.raises(UserError, match="board 'b': the level has 0 boxes"):
        pack_table(table)
    wrong = table.set_column(4, "boxes", pa.array([2, 1]))
    with pytest.raises(UserError, match="board 'a': its level has 1 boxes, the boxes column says 2"):
        pack_table(wrong.slice(0, 1))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(level_and_plan(max_len=50), min_size=5, max_size=20))
def test_same_outputs_at_any_thread_count(cases):
    import numba

    texts = [t for t, _ in cases]
    index = np.random.default_rng(4).integers(0, len(texts), 2000)
    plans = [cases[i][1] for i in index]
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = kernel(texts, plans, index)
    finally:
        numba.set_num_threads(before)
    assert kernel(texts, plans, index) == one_thread
