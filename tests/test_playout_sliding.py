"""The sliding puzzle's ``Domain.playout``: the verifier's verdict on every prefix, boards written as the prompt
writes them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding import DOMAIN
from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.prompt import render_prompt
from fastspe.domains.sliding.viewer import replay_moves

from .playout_checks import between, check_against_verifier, check_start_and_certificate


@pytest.fixture(scope="module")
def rows():
    bank = DOMAIN.warm_bank()  # every layout of the paper, a few depths: 56 certified boards
    return bank.to_pylist(), DOMAIN.verifier.boards(bank)


def initial_and_goal(prompt: str) -> tuple[str, str]:
    return between(prompt, "Initial board:\n", "\nGoal board:"), between(prompt, "Goal board:\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), st.text("UDLR?", max_size=40))
def test_playout_agrees_with_the_verifier_and_writes_boards_as_the_prompt(rows, data, plan):
    bank, boards = rows
    row = bank[data.draw(st.integers(0, len(bank) - 1))]
    board = boards[row["board_id"]]
    out = check_against_verifier(
        DOMAIN, row, board, plan, lambda text: board._replace(initial=tuple(map(int, text.split())))
    )
    # the board after the legal prefix (the viewer's replay) is what the prompt writes when it starts there
    layout = Layout(row["rows"], row["cols"], tuple(row["blocks"]))
    steps, _ = replay_moves(layout, row["initial"], plan[: out.applied])
    assert len(steps) == out.applied + 1
    there = render_prompt(steps[-1].board, row["goal"], row["rows"], row["cols"])
    assert out.state == initial_and_goal(there)[0]


def test_the_empty_plan_is_the_prompts_initial_board_and_the_certificate_its_goal(rows):
    bank, _ = rows
    check_start_and_certificate(DOMAIN, bank, initial_and_goal)


def test_an_illegal_move_stops_play_with_the_board_before_it():
    row = {"rows": 2, "cols": 2, "blocks": [1], "initial": [2, -1, 1, 0], "goal": [1, -1, 2, 0]}
    out = DOMAIN.playout(row, "LUR")
    assert out == type(out)(applied=2, complete=False, state="0 -1\n2 1", illegal=3, action="R", reason="into a block")
    assert DOMAIN.playout(row, "L?").reason == "invalid action"
    assert DOMAIN.playout(row, "D").reason == "off the board"
