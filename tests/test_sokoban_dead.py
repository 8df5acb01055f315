"""The first dead move of Sokoban answers: against a plain-Python twin (exhaustive breadth-first solvability after every
move of random plans on small rooms), the cache, unknown verdicts, the frozen boxes, and the verdict column (Sokoban's
alone: other domains' verdicts keep their columns)."""

from __future__ import annotations

import numpy as np
import pytest
import pandas as pd
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from fastspe.domains.sokoban.bank import bank_from_levels
from fastspe.domains.sokoban.dead import DEAD_NONE, DEAD_UNKNOWN, DeadMoves, first_dead_moves, frozen_boxes, push_moves
from fastspe.domains.sokoban.level import parse_level
from fastspe.errors import UserError
from fastspe.scoring.score import score_responses
from tests.naive_sokoban_bfs import naive_parse, naive_solve
from tests.sokoban_strategies import _step, draw_text, level_and_plan
from tests.test_score import tiny_bank

CORRIDOR = "#######\n#@$ . #\n#######"  # the box passes its goal on the third push, and is dead on the wall
TWO = "#######\n#@$ . #\n# $ . #\n#     #\n#######"


def twin_first_dead(text: str, plan) -> int:
    """The first move (0-based) after which no plan solves the level, by exhaustive BFS after every legal move."""
    rows, cols, walls, goals, boxes, player = naive_parse(text)
    floor = {(r, q) for r in range(rows) for q in range(cols)} - walls
    alive: dict = {}
    for i, a in enumerate(plan):
        state = _step(floor, player, boxes, a)
        if state is None:
            break
        player, boxes = state
        if state not in alive:
            alive[state] = naive_solve(draw_text(rows, cols, walls, goals, boxes, player), 200_000) is not None
        if not alive[state]:
            return i
    return DEAD_NONE


@st.composite
def level_and_pushing_walk(draw):
    """A small room (``level_and_plan``'s) and a legal walk that pushes whenever a coin says so, so boxes end in
    corners and against each other: random legal plans, about half of them dead somewhere."""
    text, _ = draw(level_and_plan(max_side=6, max_len=0))
    rows, cols, walls, goals, boxes, player = naive_parse(text)
    floor = {(r, q) for r in range(rows) for q in range(cols)} - walls
    plan = []
    for _ in range(draw(st.integers(1, 40))):
        legal = {a: _step(floor, player, boxes, a) for a in "UDLR"}
        legal = {a: s for a, s in legal.items() if s is not None}
        if not legal:
            break
        pushes = [a for a, s in legal.items() if s[1] != boxes]
        a = draw(st.sampled_from(pushes if pushes and draw(st.booleans()) else sorted(legal)))
        plan.append(a)
        player, boxes = legal[a]
    if draw(st.integers(0, 4)) == 0:
        plan.append("x")  # a token that is no move ends the legal prefix
    return text, plan


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(level_and_pushing_walk())
def test_the_first_dead_move_is_the_twins(case):
    text, plan = case
    try:
        level = parse_level(text)
        assume(naive_solve(text, 200_000) is not None)  # a solvable start, as every bank level's
    except (UserError, RuntimeError):
        assume(False)
    expected = twin_first_dead(text, plan)
    event("dead" if expected >= 0 else "alive")
    assert DeadMoves().first_dead_move(level, "".join(plan)) == expected


def test_a_box_pushed_past_its_goal_into_the_corner_is_dead_at_that_push():
    level = parse_level(CORRIDOR)
    finder = DeadMoves()
    assert finder.first_dead_move(level, "RRR") == 2  # pushes 1 and 2 keep it alive (2 is on the goal)
    assert finder.first_dead_move(level, "RR") == DEAD_NONE
    assert finder.first_dead_move(level, "") == DEAD_NONE
    assert finder.first_dead_move(level, "RRRLL") == 2  # walks after it change nothing
    assert finder.first_dead_move(level, "RRRx") == 2  # the legal prefix is what counts
    assert finder.first_dead_move(level, "LRRR") == DEAD_NONE  # an illegal first move: no legal prefix


def test_states_are_checked_once_and_walks_share_a_check():
    calls = []

    def oracle(level, player, boxes, limit):
        calls.append((player, boxes))
        return len(calls) > 100  # every state dead

    finder = DeadMoves(oracle=oracle)
    level = parse_level(TWO)
    assert finder.first_dead_move(level, "R") == 0
    assert len(calls) == 1
    assert finder.first_dead_move(level, "R") == 0 and len(calls) == 1  # cached
    assert finder.first_dead_move(level, "RL") == 0 and len(calls) == 1  # a walk after the push: same region
    assert finder.checks == 1
    first = DeadMoves(oracle=oracle, cache_states=1)
    first.first_dead_move(level, "RR")  # the last push, then the first: two states, only the last kept
    assert first.checks == 2 and len(first.cache) == 1


def test_the_binary_search_checks_log_pushes_states():
    level = parse_level("##########\n#.@$     #\n##########")
    seen = []

    def oracle(level, player, boxes, limit):
        seen.append(boxes)
        return boxes[0] < 16  # "dead" from cell 16 on: pushes 0..4 take the box to cells 14..18

    moves = "RRRRR"
    assert [i for i, *_ in push_moves(level, moves)] == list(range(5))
    assert DeadMoves(oracle=oracle).first_dead_move(level, moves) == 2
    assert len(seen) <= 1 + int(np.ceil(np.log2(5)))


def test_a_check_that_hits_the_node_limit_is_unknown_never_guessed():
    level = parse_level(TWO)
    assert DeadMoves(oracle=lambda *a: None).first_dead_move(level, "R") == DEAD_UNKNOWN
    # the last push dead, a push before it unknown: the first dead one is not known
    answers = iter([False, None])
    assert DeadMoves(oracle=lambda *a: next(answers)).first_dead_move(level, "RR") == DEAD_UNKNOWN
    assert DeadMoves(node_limit=1).first_dead_move(level, "R") == DEAD_UNKNOWN  # the real solver, one state
    out = first_dead_moves([level, level], ["R", "R"], [True, False], DeadMoves(oracle=lambda *a: None))
    assert out.tolist() == [DEAD_UNKNOWN, DEAD_NONE]  # only the checked answers


def test_frozen_boxes_are_boxes_in_corners_and_boxes_that_hold_each_other():
    corner = parse_level("#####\n#$  #\n#  .#\n# @ #\n#####")
    assert frozen_boxes(corner, corner.boxes) == corner.boxes
    pair = parse_level("######\n#    #\n# $$ #\n#..@ #\n######")
    along_wall = (pair.cols + 2, pair.cols + 3)  # pushed onto the top wall, where no goal is
    assert frozen_boxes(pair, along_wall) == along_wall
    assert frozen_boxes(pair, pair.boxes) == ()  # in the open: free
    block = parse_level("#######\n#     #\n# $$  #\n# $$  #\n#  ...#\n# @  .#\n#######")
    assert frozen_boxes(block, block.boxes) == block.boxes  # four boxes in a square: each holds the others
    on_goal = parse_level("#####\n#*  #\n#  .#\n#$@ #\n#####")
    assert frozen_boxes(on_goal, on_goal.boxes) == (on_goal.boxes[1],)  # the goal's box is no deadlock


def test_the_verdict_column_is_sokobans_alone():
    bank = bank_from_levels([CORRIDOR, TWO], ids=["corridor", "two"])
    answers = pd.DataFrame(
        {
            "board_id": ["corridor"] * 4 + ["two"] * 2,
            "condition": "m",
            "trial": range(6),
            "response": ["MOVES: R,R,R", "MOVES: R,R", "MOVES: R,R,R,R", "MOVES: L", "MOVES: R,R,R", "MOVES: D,R"],
        }
    )
    verdicts = score_responses(bank, answers).set_index("trial")
    assert verdicts["status"].tolist() == [
        "legal_noncompletion",
        "complete",
        "illegal",
        "illegal",
        "legal_noncompletion",
        "legal_noncompletion",
    ]
    # an illegal answer's legal prefix counts (trial 2: dead at move 3, then pushes the box into the wall)
    assert verdicts["first_dead_move"].tolist() == [2, DEAD_NONE, 2, DEAD_NONE, 2, DEAD_NONE]
    assert verdicts["first_dead_move"].dtype == np.int64
    sliding = score_responses(
        tiny_bank(), pd.DataFrame({"board_id": ["near"], "condition": ["m"], "trial": [0], "response": ["MOVES: L"]})
    )
    assert "first_dead_move" not in sliding.columns


def test_where_plans_fail_puts_the_first_dead_move_beside_the_first_illegal_move():
    from fastspe.report.tables import trajectory_table
    from fastspe.report.trajectories import TRAJECTORY_COLUMNS, trajectory_frame

    rows = [  # depth, L, status, first_error, first_dead_move
        (10, 12, "complete", -1, -1),
        (10, 8, "illegal", 4, 2),
        (10, 20, "legal_noncompletion", -1, 5),
        (10, 20, "legal_noncompletion", -1, -1),
        (10, 20, "legal_noncompletion", -1, -2),
    ]
    verdicts = pd.DataFrame(rows, columns=["depth", "L", "status", "first_error", "first_dead_move"]).assign(
        cohort="p", condition="x", min_h=1, revisits=0, goal_midway=False
    )
    positions = {"first_dead_move": "first dead move"}
    assert list(trajectory_frame(verdicts)) == TRAJECTORY_COLUMNS  # only when the domain names the column
    frame = trajectory_frame(verdicts, positions)
    row = frame.iloc[0]
    assert row["first_dead_move_share"] == 2 / 4  # of the plans that do not complete; unknown (-2) is not one
    assert row["first_dead_move_at_L"] == pytest.approx((2 / 8 + 5 / 20) / 2)
    assert row["first_dead_move_at_dstar"] == pytest.approx((2 / 10 + 5 / 10) / 2)
    assert row["fail_at_dstar"] == 4 / 10
    table = trajectory_table(frame, ["x"], positions)
    assert "first dead move" in table.caption and table.formats["first_dead_move_at_dstar"] == ".2f"
    assert trajectory_table(trajectory_frame(verdicts), ["x"]).caption.endswith("before their last move.")
    pytest.importorskip("matplotlib")
    from fastspe.report import figures

    fig = figures.trajectory_figure(frame, ["x"], "p", positions=positions)
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 4 and titles[1].startswith("first dead move / d*") and titles[0].startswith("earliest")
    assert len(figures.trajectory_figure(frame, ["x"], "p").axes) == 3


def test_the_viewer_marks_the_first_dead_move_and_the_frozen_boxes():
    from fastspe.domains.sokoban import viewer
    from fastspe.report.trace import trace_lines
    from fastspe.report.viewer_html import trace_page

    row = {"board_id": "two", "condition": "m", "trial": 0, "moves": "RRRLD", "first_dead_move": 2}
    trace = viewer.sokoban_trace({"level": TWO, "depth": 8}, row)
    assert trace.first_dead_move == 2 and trace.disagreements() == []
    corner = trace.level.cols + 5  # row 2, col 6: the box pushed into the corner
    lines = trace_lines(trace)
    assert (
        "first dead move: move 3 ('R'), after which the level cannot be solved (first_dead_move = 2); frozen "
        "boxes: row 2 col 6"
    ) in lines
    assert [line for line in lines if "dead:" in line] == [
        "    3  R     box  102  dead: the level cannot be solved from here (frozen: row 2 col 6)"
    ]
    steps = trace.page().steps
    assert [s["frozen"] for s in steps] == [[], [], [], [corner], [corner], [corner]]
    assert [s["dead"] for s in steps] == [False, False, False, True, True, True]
    assert [s["push"] for s in steps][:4] == [-1, trace.level.cols + 3, trace.level.cols + 4, corner]
    page = trace_page(trace)
    assert page.count('class="dead"') == 1 and "the first dead move" in page
    kinds = trace.page().data["kinds"]
    assert len(kinds) == trace.level.cells and kinds[0] == 1 and kinds[trace.level.player] == 2
    wrong = viewer.sokoban_trace({"level": TWO, "depth": 8}, {**row, "first_dead_move": 1})
    assert wrong.disagreements() == ["first_dead_move: verdict 1, replay 2"]
    alive = viewer.sokoban_trace({"level": TWO, "depth": 8}, {**row, "moves": "RR"})
    assert alive.dead_line().startswith("first dead move: none") and not any(s["frozen"] for s in alive.page().steps)
    saved = viewer._DEAD
    viewer._DEAD = DeadMoves(oracle=lambda *a: None)
    try:
        unknown = viewer.sokoban_trace({"level": TWO, "depth": 8}, {**row, "first_dead_move": DEAD_UNKNOWN})
    finally:
        viewer._DEAD = saved
    assert unknown.dead_line().startswith("first dead move: unknown") and unknown.disagreements() == []


def test_a_batch_finds_what_answers_one_by_one_find():
    from fastspe.domains.sokoban.dead import is_solvable

    rng = np.random.default_rng(7)
    levels = [parse_level(t) for t in (CORRIDOR, TWO, "#######\n#     #\n# @   #\n# $$  #\n#  .. #\n#     #\n#######")]
    picks = rng.integers(0, len(levels), 120)
    plans = ["".join(rng.choice(list("UDLRRR"), rng.integers(0, 25))) for _ in picks]
    batch = DeadMoves().many([levels[i] for i in picks], plans)
    alone = [DeadMoves(oracle=is_solvable).first_dead_move(levels[i], p) for i, p in zip(picks, plans)]
    assert batch.tolist() == alone and (batch >= 0).sum() >= 10 and (batch == DEAD_NONE).sum() >= 10
    import numba

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:  # the same answers whatever the number of threads
        assert DeadMoves().many([levels[i] for i in picks], plans).tolist() == alone
    finally:
        numba.set_num_threads(threads)
