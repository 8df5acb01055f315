"""The viewer's replay agrees with fastspe's verdicts on every baseline answer, and draws what it replays."""

from __future__ import annotations

import pandas as pd
import pytest

from fastspe.report.trace import trace_lines
from fastspe_hanoi import DOMAIN
from hanoi_helpers import needs_entry_point


def verdict(board_id="b", moves="", error_kind="", condition="c", trial=0):
    return {"board_id": board_id, "condition": condition, "trial": trial, "moves": moves, "error_kind": error_kind}


@needs_entry_point
def test_traces_agree_with_the_verdicts_of_every_baseline_answer():
    from fastspe.scoring.score import score_responses

    bank = DOMAIN.check_bank(DOMAIN.demo_bank())
    frame = DOMAIN.bank_frame(bank)
    answers = pd.concat([DOMAIN.baseline_responses(frame, p, trials=3, seed=2) for p in DOMAIN.planners])
    answers = pd.concat(
        [
            answers,
            answers.head(4).assign(
                condition="odd", response=["no plan here", "MOVES: XY, AB", "MOVES: ab, bc, cb, bc", "MOVES: CA"]
            ),
        ]
    )
    verdicts = score_responses(bank, answers)
    rows = frame.set_index("board_id")
    kinds = set()
    for row in verdicts.to_dict("records"):
        trace = DOMAIN.trace(rows.loc[row["board_id"]].to_dict(), row)
        assert trace.disagreements() == [], row
        kinds.add(trace.illegal.kind if trace.illegal else trace.status)
    assert kinds >= {
        "complete",
        "legal_noncompletion",
        "empty_peg",
        "larger_on_smaller",
        "forbidden_move",
        "invalid_action",
        "format",
    }


def test_a_trace_marks_the_moved_disk_and_draws_a_page():
    bank_row = {"start": "AAB", "rule": "classic", "depth": 4, "disks": 3}
    trace = DOMAIN.trace(bank_row, verdict(moves="bbd"))  # AC (away from the goal), AC (disk 2 onto disk 1), BC
    assert trace.status == "illegal" and trace.illegal.kind == "larger_on_smaller" and trace.first_error == 1
    assert trace.moves == ("AC", "AC", "BC") and len(trace.steps) == 2
    step = trace.steps[1]
    assert [line for line, _ in trace.state_lines(step)] == ["A: 2", "B: 3", "C: 1"]
    assert [span for _, span in trace.state_lines(step)] == [None, None, (3, 4)]
    assert trace.moved_text(step) == "1" and trace.moved_label(step) == ", disk 1"
    assert trace.goal_lines() == ["A: -", "B: -", "C: 3 2 1"]
    lines = trace_lines(trace)
    assert "first illegal: move 2 ('AC'): puts a disk onto a smaller one (first_error = 1)" in lines
    page = trace.page()
    assert page.steps == [
        {"n": 0, "move": "", "disk": 0, "h": 4, "pegs": [0, 0, 1], "note": "closest to the goal"},
        {"n": 1, "move": "AC", "disk": 1, "h": 5, "pegs": [2, 0, 1], "note": ""},
    ]
    assert 'id="board"' in "".join(page.stage)


def test_invalid_tokens_and_format_failures():
    bank_row = {"start": "CC", "rule": "adjacent", "depth": 0}
    trace = DOMAIN.trace(bank_row, verdict(moves="f?"))
    assert trace.moves == ("CB", "?") and trace.illegal.kind == "invalid_action" and trace.steps[-1].h == 1
    failed = DOMAIN.trace(bank_row, verdict(error_kind="format"))
    assert failed.illegal.kind == "format" and failed.status == "illegal" and failed.first_error == -1


@pytest.mark.parametrize("moves, revisits", [("abc", 0), ("acac", 3)])
def test_revisits_in_the_trace(moves, revisits):
    trace = DOMAIN.trace({"start": "AAA", "rule": "classic", "depth": 7}, verdict(moves=moves))
    assert len(trace.revisits) == revisits
