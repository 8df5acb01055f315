"""The ``apply_moves`` tool's text (``fastspe.protocols.tool_text``): moves read as scoring reads them, played from
the start, the state as the prompt writes it or the first illegal move and why."""

from __future__ import annotations

from fastspe.domains.sliding import DOMAIN
from fastspe.protocols.tool_text import apply_moves_result

ROW = {"rows": 2, "cols": 2, "blocks": [1], "initial": [2, -1, 1, 0], "goal": [1, -1, 2, 0]}


def test_legal_moves_give_the_state_as_the_prompt_writes_it():
    assert apply_moves_result(DOMAIN, ROW, "L,U") == "0 -1\n2 1"
    assert apply_moves_result(DOMAIN, ROW, "l u") == "0 -1\n2 1"  # read leniently, as scoring reads an answer
    assert apply_moves_result(DOMAIN, ROW, "") == apply_moves_result(DOMAIN, ROW, "  ") == "2 -1\n1 0"


def test_the_first_illegal_move_is_named_with_the_state_before_it():
    assert (
        apply_moves_result(DOMAIN, ROW, "L,U,R,D")
        == "Move 3 (R) is illegal: into a block. The board before it:\n0 -1\n2 1"
    )
    assert (
        apply_moves_result(DOMAIN, ROW, "L, X, U")
        == "Move 2 (?) is illegal: invalid action. The board before it:\n2 -1\n0 1"
    )


def test_any_text_is_read_as_scoring_reads_a_labelled_plan():
    assert (
        apply_moves_result(DOMAIN, ROW, "go left")
        == "Move 1 (?) is illegal: invalid action. The board before it:\n2 -1\n1 0"
    )
    assert apply_moves_result(DOMAIN, ROW, "MOVES: left, up") == "0 -1\n2 1"  # the label given again, words
