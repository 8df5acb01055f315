"""The independent Sokoban replay verifier (fastspe.domains.sokoban.verify.replay) against the twin and the kernel's level."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from fastspe.domains.sokoban import parse_level
from fastspe.errors import UserError
from fastspe.domains.sokoban.verify.replay import SokobanBoard, SokobanRoom, bank_levels, replay_sokoban as replay
from .naive_sokoban import naive_replay
from .sokoban_strategies import level_and_plan

FIELDS = ("status", "error_kind", "first_error", "final_h", "min_h", "revisits", "goal_midway")


def board(text):
    return SokobanBoard(SokobanRoom(text), "test", 1, 0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_plan())
def test_verifier_matches_twin(case):
    text, plan = case
    moves = "".join(a if a in "UDLR" else "?" for a in plan)
    want = naive_replay(text, plan)
    assert replay(board(text), moves) == {f: want[f] for f in FIELDS}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_plan(max_len=0))
def test_size_tag_matches_the_level(case):
    text, _ = case
    lv = parse_level(text)
    assert SokobanRoom(text).tag == lv.size == SokobanRoom(lv.text).tag


def test_a_step_after_the_goal_stays_complete():
    b = board("#######\n#@ $ .#\n#######")
    out = replay(b, "RRRL")
    assert out["status"] == "complete" and out["goal_midway"] and out["final_h"] == 0
    assert replay(b, "RRRR")["error_kind"] == "box_blocked" and replay(b, "L")["error_kind"] == "wall"
    assert replay(b, "R?")["error_kind"] == "invalid_action"


def test_bank_levels_reads_each_room_once_and_names_a_bad_row():
    text = "####\n#@$.#\n####"
    bank = pd.DataFrame({"board_id": ["a", "b"], "level": [text, text], "cohort": "p", "boxes": 1, "depth": 1})
    boards = bank_levels(bank)
    assert boards["a"].layout is boards["b"].layout and boards["a"].layout.tag == "3x5"
    bad = bank.assign(level=[text, "#@#"])
    with pytest.raises(UserError, match="board 'b'"):
        bank_levels(bad)
