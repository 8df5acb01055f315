"""Sokoban's ``Domain.playout``: the verifier's verdict on random levels and plans, levels drawn as the prompt draws
them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fastspe.domains.sokoban import DOMAIN
from fastspe.domains.sokoban.bank import bank_from_levels
from fastspe.domains.sokoban.prompt import render_prompt
from fastspe.domains.sokoban.verify.replay import SokobanBoard, SokobanRoom

from .playout_checks import between, check_against_verifier
from .sokoban_strategies import level_and_plan

LEVELS = ["#######\n#@ $ .#\n#######", "######\n#    #\n# $$ #\n#@..##\n#####", "#####\n#.@ #\n# $ #\n#   #\n#####"]


def board(text: str) -> SokobanBoard:
    return SokobanBoard(SokobanRoom(text), "test", 1, 0)


def level_of(prompt: str) -> str:
    return between(prompt, "Level:\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_plan())
def test_playout_agrees_with_the_verifier_and_draws_levels_as_the_prompt(case):
    text, tokens = case
    plan = "".join(t if t in "UDLR" else "?" for t in tokens)
    out = check_against_verifier(DOMAIN, {"level": text}, board(text), plan, board)
    # the prompt of a level that starts where play stopped draws it as the playout wrote it (a solved state is
    # no level to prompt with)
    if not out.complete:
        assert level_of(render_prompt(out.state)) == out.state
    if not plan:
        assert out.state == level_of(render_prompt(text))


@pytest.fixture(scope="module")
def bank():
    return bank_from_levels(LEVELS).to_pylist()  # certified by the solver


def test_the_empty_plan_is_the_prompts_level_and_the_certificate_ends_on_the_goals(bank):
    for row in bank:
        start = DOMAIN.playout(row, "")
        assert (start.state, start.applied, start.complete) == (level_of(DOMAIN.render_prompt(row)), 0, False)
        plan = row["certificate"].replace(",", "")
        end = DOMAIN.playout(row, plan)
        assert (end.applied, end.illegal, end.complete) == (row["depth"], 0, True)
        assert "$" not in end.state and "." not in end.state  # every box on a goal (*), no goal left bare


def test_an_illegal_move_stops_play_with_the_level_before_it():
    row = {"level": "#######\n#@ $ .#\n#######"}
    out = DOMAIN.playout(row, "RRRR")
    assert out == type(out)(
        applied=3,
        complete=True,
        state="#######\n#   @*#\n#######",
        illegal=4,
        action="R",
        reason="pushes a box into a wall or another box",
    )
    assert DOMAIN.playout(row, "L").reason == "into a wall"
    assert DOMAIN.playout(row, "R?").reason == "invalid action"
