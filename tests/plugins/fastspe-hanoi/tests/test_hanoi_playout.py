"""Hanoi's ``Domain.playout``: the independent verifier's verdict on random plans, pegs drawn as the prompt draws
them. (The checks every domain's playout passes are fastspe's own test helper: these tests run from fastspe's root.)"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe_hanoi import DOMAIN
from fastspe_hanoi.prompt import render_prompt
from fastspe_hanoi.rules import SYMBOLS
from fastspe_hanoi.verify.replay import read_stacks
from tests.playout_checks import between, check_against_verifier, check_start_and_certificate


@pytest.fixture(scope="module")
def rows():
    bank = DOMAIN.demo_bank()  # 32 certified states, both rules
    return bank.to_pylist(), DOMAIN.verifier.boards(bank)


def start_of(drawing: str) -> str:
    """The state text (a peg letter per disk, disk 1 first) of three peg lines ``A: 3 1`` as the prompt draws."""
    peg_of = {int(d): line[0] for line in drawing.split("\n") for d in line[3:].split() if d != "-"}
    return "".join(peg_of[d] for d in range(1, len(peg_of) + 1))


def initial_and_goal(prompt: str) -> tuple[str, str]:
    return (
        between(prompt, "Initial pegs (bottom to top):\n", "\nGoal pegs"),
        between(prompt, "Goal pegs (bottom to top):\n"),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), st.text(SYMBOLS + "?", max_size=40))
def test_playout_agrees_with_the_verifier_and_draws_pegs_as_the_prompt(rows, data, plan):
    bank, boards = rows
    row = bank[data.draw(st.integers(0, len(bank) - 1))]
    board = boards[row["board_id"]]
    out = check_against_verifier(
        DOMAIN, row, board, plan, lambda drawing: replace(board, start=read_stacks(start_of(drawing)))
    )
    assert initial_and_goal(render_prompt(start_of(out.state), row["rule"]))[0] == out.state


def test_the_empty_plan_is_the_prompts_initial_pegs_and_the_certificate_its_goal(rows):
    bank, _ = rows
    check_start_and_certificate(DOMAIN, bank, initial_and_goal)


def test_each_kind_of_illegal_move_is_named_with_the_pegs_before_it():
    row = {"start": "AAA", "rule": "adjacent"}
    assert DOMAIN.playout(row, "ab").reason == "moves between A and C, which the adjacent rule forbids"
    out = DOMAIN.playout(row, "aa")
    assert (out.applied, out.illegal, out.action, out.reason, out.state) == (
        1,
        2,
        "a",
        "puts a disk onto a smaller one",
        "A: 3 2\nB: 1\nC: -",
    )
    assert DOMAIN.playout(row, "c?").reason == "no disk on the source peg"
    assert DOMAIN.playout(row, "a?").reason == "invalid action"
