"""The exact Sokoban solver against its plain-Python BFS twin (tests/naive_sokoban_bfs.py) on random small rooms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fastspe.domains.sokoban.level import STEPS, parse_level
from fastspe.errors import UserError
from fastspe.domains.sokoban.kernels.search import FOUND, OVER_BOUND, search
from fastspe.domains.sokoban.solver import SokobanUnsolved, solve_level, solve_level_record, solve_levels
from fastspe.domains.sokoban.verify.bank import read_xsb, replay

from .naive_sokoban_bfs import naive_solve

# A two-box level that needs walking between pushes: 18 moves, 8 pushes (the twin agrees, below).
TWO_BOXES = "\n".join(["########", "#   .  #", "# $$ . #", "#  @ # #", "# $  . #", "#      #", "########"])
SIMPLE = "\n".join(["#######", "#     #", "# $.  #", "#  @$ #", "#   . #", "#######"])


@st.composite
def rooms(draw, most_boxes=3, side=5):
    """XSB text of a random room: up to side x side inside, random inner walls, 1..most_boxes boxes, as many goals,
    a player; sometimes with no outer wall on the right (the edge of the drawing is a wall too)."""
    rows, cols = draw(st.integers(1, side)), draw(st.integers(2, side))
    inside = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    walls = set(draw(st.lists(st.sampled_from(inside), max_size=len(inside) // 3, unique=True)))
    floor = [cell for cell in inside if cell not in walls]
    nboxes = draw(st.integers(1, most_boxes))
    assume(len(floor) >= nboxes + 1)
    order = draw(st.permutations(floor))
    boxes, player = order[:nboxes], order[nboxes]
    goals = draw(st.permutations(floor))[:nboxes]
    if draw(st.booleans()):  # reverse play from the solved state: solvable, mostly not in one move
        boxes, free = set(goals), set(floor)
        player = draw(st.sampled_from(sorted(free - boxes)))
        for d, walk in draw(st.lists(st.tuples(st.sampled_from(STEPS), st.booleans()), min_size=8, max_size=60)):
            to, behind = (player[0] + d[0], player[1] + d[1]), (player[0] - d[0], player[1] - d[1])
            if to in free and to not in boxes:
                if not walk and behind in boxes:
                    boxes = (boxes - {behind}) | {player}
                player = to
        boxes = sorted(boxes)
    grid = [["#"] * (cols + 2) for _ in range(rows + 2)]
    for r, c in floor:
        grid[r][c] = " "
    for r, c in goals:
        grid[r][c] = "."
    for r, c in boxes:
        grid[r][c] = "*" if (r, c) in goals else "$"
    grid[player[0]][player[1]] = "+" if player in goals else "@"
    if draw(st.booleans()):
        grid = [line[:-1] for line in grid]  # open on the right
    text = "\n".join("".join(line) for line in grid)
    try:
        parse_level(text)
    except UserError:  # a box or goal walled off from the player
        assume(False)
    return text


def _arrays(level):
    return (level.wall, level.goal, np.array(level.boxes, dtype=np.int64), level.player, level.rows, level.cols)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rooms())
def test_solver_equals_the_twin_bfs(text):
    expected = naive_solve(text)
    level = parse_level(text)
    if expected is None:
        with pytest.raises(SokobanUnsolved) as info:
            solve_level(level)
        assert info.value.kind in ("dead", "unsolvable")
        return
    sol = solve_level(level)
    assert (sol.length, sol.pushes) == expected
    moves = sol.moves.replace(",", "")
    assert len(moves) == sol.length
    pushes, solved = replay(read_xsb(level.text), moves)  # the certificate replays (the verifier's replay)
    assert solved and pushes == sol.pushes
    # the heuristic changes the order, never the answer: breadth-first order gives the same (moves, pushes)
    bfs = search(*_arrays(level), 10**7, 10**6, False)
    assert bfs[0] == FOUND and (bfs[1], bfs[2]) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rooms(most_boxes=4, side=4))
def test_four_boxes_equal_the_twin(text):
    expected = naive_solve(text)
    status, lengths, pushes, _, _ = solve_levels([parse_level(text)])
    assert (status[0] == FOUND) == (expected is not None)
    if expected is not None:
        assert (lengths[0], pushes[0]) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(rooms(), min_size=1, max_size=6))
def test_batched_search_equals_one_at_a_time(texts):
    levels = [parse_level(t) for t in texts]
    status, lengths, pushes, _, plans = solve_levels(levels, bound=200)
    for i, level in enumerate(levels):
        one = search(*_arrays(level), 10**7, 200, True)
        assert (status[i], lengths[i], pushes[i]) == one[:3]
        if one[0] == FOUND:
            assert plans[i, : one[1]].tolist() == one[3].tolist() and (plans[i, one[1] :] == -1).all()


def test_known_levels():
    for text in (SIMPLE, TWO_BOXES):
        sol = solve_level(text)
        assert (sol.length, sol.pushes) == naive_solve(text)
    assert (solve_level(SIMPLE).length, solve_level(TWO_BOXES).length) == (8, 18)
    assert solve_level(SIMPLE).moves == solve_level(parse_level(SIMPLE)).moves  # deterministic
    bfs = solve_level(TWO_BOXES, breadth_first=True)
    assert (bfs.length, bfs.pushes) == (18, 8) and bfs.nodes > solve_level(TWO_BOXES).nodes


def test_a_solved_level_is_refused():  # its d* would be 0: an empty answer would score as optimal
    with pytest.raises(UserError, match="solved at the start"):
        solve_level("#####\n#@* #\n#####")


def test_dead_unsolvable_and_node_limit_say_so():
    with pytest.raises(SokobanUnsolved, match="dead from the start") as dead:
        solve_level("#####\n#$  #\n# @.#\n#####")  # a box in a corner off its goal
    assert dead.value.kind == "dead"
    # two boxes frozen side by side in a corridor one wide, off their goals: dead by the freeze pruning
    with pytest.raises(SokobanUnsolved, match="dead from the start"):
        solve_level("#######\n#@$$..#\n#######")
    # each box alone can reach a goal, but in a corridor one wide the first box cannot push the second
    with pytest.raises(SokobanUnsolved, match="no solution") as stuck:
        solve_level("########\n#@$ $..#\n########")
    assert stuck.value.kind == "unsolvable"
    with pytest.raises(SokobanUnsolved, match="node limit") as limit:
        solve_level(TWO_BOXES, node_limit=5)
    assert limit.value.kind == "node_limit"
    with pytest.raises(UserError, match="node limit"):
        solve_level(SIMPLE, node_limit=0)


def test_the_bound_stops_the_search_early():
    level = parse_level(TWO_BOXES)
    assert search(*_arrays(level), 10**7, 17, True)[0] == OVER_BOUND
    assert search(*_arrays(level), 10**7, 18, True)[:2] == (FOUND, 18)


def test_records():
    out = solve_level_record({"id": "a", "level": SIMPLE, "length": 99})
    assert out["id"] == "a" and out["length"] == 8 and out["pushes"] == 2 and len(out["moves"].split(",")) == 8
    assert set(out) == {"id", "level", "length", "pushes", "moves", "objective", "nodes", "seconds"}
    assert out["objective"] == "moves"
    assert solve_level_record({"id": "a", "level": SIMPLE}, objective="pushes")["objective"] == "pushes"
    bad = solve_level_record({"id": "b", "level": "#####\n#$  #\n# @.#\n#####"})
    assert "dead" in bad["error"] and "length" not in bad
    assert "line 1" in solve_level_record({"id": "c", "level": "#x#"})["error"]
    assert "error" in solve_level_record({"id": "d"}) and "error" in solve_level_record([1])
