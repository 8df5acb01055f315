"""The push search (``kernels.push_search``, ``solve_level``, ``is_solvable``) against plain-Python twins: both
objectives agree with exhaustive searches without pruning on random small rooms and published levels, plans
replay, the freeze-deadlock pruning never cuts a plan, the assignment bound is the brute-force one."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.sokoban.kernels.push_search import INF, assignment_cost
from fastspe.domains.sokoban.level import parse_level
from fastspe.domains.sokoban.pack import pack_levels
from fastspe.domains.sokoban.solver import SearchProgress, SokobanUnsolved, is_solvable, solve_level
from fastspe.domains.sokoban.verify.bank import read_xsb, replay

from .naive_sokoban_bfs import naive_solve, naive_solve_pushes
from .sokoban_published import microban
from .test_sokoban_solver import TWO_BOXES, rooms

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _answers(text):
    """{objective: (moves, pushes) or the kind of SokobanUnsolved} of the solver, pruned and unpruned."""
    out = {}
    for objective in ("moves", "pushes"):
        for prune in (True, False):
            try:
                sol = solve_level(text, objective=objective, prune=prune)
            except SokobanUnsolved as exc:
                out[objective, prune] = exc.kind
                continue
            played = replay(read_xsb(parse_level(text).text), sol.moves.replace(",", ""))
            assert played == (sol.pushes, True), (text, objective, played)
            assert sol.length == len(sol.moves.replace(",", "")) and sol.objective == objective
            out[objective, prune] = (sol.length, sol.pushes)
    return out


def _agree(text):
    got = _answers(text)
    twins = {"moves": naive_solve(text), "pushes": naive_solve_pushes(text)}
    for (objective, prune), answer in got.items():
        want = twins[objective]
        if want is None:
            assert answer in ("dead", "unsolvable"), (text, objective, prune, answer)
        else:
            assert answer == want, (text, objective, prune, answer, want)
    assert is_solvable(text) == (twins["moves"] is not None), text


@settings(max_examples=150, **_SETTINGS)
@given(rooms())
def test_both_objectives_equal_the_twins(text):
    _agree(text)


@settings(max_examples=150, **_SETTINGS)
@given(rooms(most_boxes=5, side=5))
def test_crowded_rooms_pruning_never_cuts(text):
    """Many boxes in small rooms: freeze deadlocks are common; pruned and unpruned searches and the exhaustive
    twins agree on solvability and both optima."""
    _agree(text)


FROZEN = [
    # two boxes side by side against a wall, one off its goal: frozen
    ("#####\n#   #\n# $$#\n# ..#\n# @ #\n#####", "solvable"),
    ("######\n#    #\n# $$ #\n#    #\n#.. @#\n######", "solvable"),
    ("######\n#.   #\n#.## #\n#    #\n# $$ #\n##  @#\n######", "solvable"),
    ("#######\n#.   .#\n#  $$ #\n#  $$ #\n# @ ..#\n#######", "unsolvable"),  # 2x2 block: frozen
]


@pytest.mark.parametrize("text,_", FROZEN)
def test_hand_made_freezes(text, _):
    _agree(text)


def test_a_frozen_start_is_dead():
    with pytest.raises(SokobanUnsolved) as err:
        solve_level("#######\n#@...$#\n#   $$#\n#######")
    assert err.value.kind == "dead"
    assert not is_solvable("#######\n#@...$#\n#   $$#\n#######")


@settings(max_examples=200, **_SETTINGS)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.lists(
            st.lists(st.one_of(st.integers(0, 30), st.just(INF)), min_size=n, max_size=n), min_size=n, max_size=n
        )
    )
)
def test_assignment_cost_is_the_brute_force_least(matrix):
    n = len(matrix)
    push = np.array(matrix, dtype=np.int64)
    best = min(sum(push[i, p[i]] for i in range(n)) for p in itertools.permutations(range(n)))
    scratch = [np.zeros(n + 1, dtype=np.int64) for _ in range(4)]
    got = assignment_cost(
        np.arange(n, dtype=np.int64),
        n,
        push,
        *scratch[:3],
        scratch[3],
        np.zeros(n + 1, dtype=np.bool_),
        np.zeros(n + 1, dtype=np.int64),
    )
    assert min(got, INF) == min(best, INF)


def test_pushes_objective_trades_moves_for_pushes():
    """Microban 119 (the issue's example): 131 moves / 20 pushes against 145 moves / 18 pushes."""
    text = dict(microban())["119"]
    moves, pushes = solve_level(text), solve_level(text, objective="pushes")
    assert (moves.length, moves.pushes, pushes.length, pushes.pushes) == (131, 20, 145, 18)


def test_deterministic_and_bad_arguments():
    a, b = solve_level(TWO_BOXES, objective="pushes"), solve_level(parse_level(TWO_BOXES), objective="pushes")
    assert a.moves == b.moves and a.nodes == b.nodes
    with pytest.raises(Exception, match="objective"):
        solve_level(TWO_BOXES, objective="time")
    with pytest.raises(SokobanUnsolved) as err:
        solve_level(TWO_BOXES, node_limit=3, objective="pushes")
    assert err.value.kind == "node_limit" and "node limit" in str(err.value)
    with pytest.raises(SokobanUnsolved) as err:
        is_solvable(TWO_BOXES, node_limit=1)
    assert err.value.kind == "node_limit"


def _big_level():
    """A 32x32 room with 16 boxes: 15 on goals along the walls, one two pushes from its goal in the far corner."""
    grid = [["#"] * 32 for _ in range(32)]
    for r in range(1, 31):
        for c in range(1, 31):
            grid[r][c] = " "
    for k in range(15):
        grid[1 + 2 * k][1] = "*"
    grid[28][26], grid[28][28] = "$", "."
    grid[1][30] = "@"
    return "\n".join("".join(line) for line in grid)


def test_a_32x32_level_with_16_boxes_solves_packs_and_replays():
    from fastspe.domains.sokoban.kernels.replay import replay_levels

    text = _big_level()
    level = parse_level(text)
    assert (level.rows, level.cols, len(level.boxes)) == (32, 32, 16)
    for objective in ("moves", "pushes"):
        sol = solve_level(level, objective=objective)
        assert sol.pushes == 2
        assert replay(read_xsb(level.text), sol.moves.replace(",", "")) == (2, True)
    t = pack_levels([level])
    codes = np.array(["UDLR".index(m) for m in sol.moves.split(",")], dtype=np.uint8)
    out = replay_levels(
        np.zeros(1, np.int64),
        codes,
        np.array([0, len(codes)], np.int64),
        t.moves,
        t.push_distance,
        t.player,
        t.boxes,
        t.nboxes,
    )
    assert out[0][0] == 0 and out[3][0] == 0  # COMPLETE, h 0


@pytest.mark.slow
def test_progress_is_reported_on_long_solves():
    seen: list[SearchProgress] = []
    sol = solve_level(dict(microban())["111"], progress=seen.append)
    assert sol.length == 166 and seen and all(p.stored >= 0 for p in seen)


@pytest.mark.slow
def test_published_levels_agree_with_the_twins():
    """Every Microban level whose exhaustive twins stay within 300,000 states: both optima agree."""
    checked = 0
    for number, text in microban():
        try:
            level = parse_level(text)
        except Exception:
            continue
        if len(level.boxes) > 3:
            continue
        try:
            want = {"moves": naive_solve(text, 300_000), "pushes": naive_solve_pushes(text, 300_000)}
        except RuntimeError:
            continue
        for objective, answer in want.items():
            sol = solve_level(level, objective=objective)
            assert (sol.length, sol.pushes) == answer, (number, objective)
        checked += 1
    assert checked >= 20


_PUBLISHED = [text for _, text in microban()[:154]]


@settings(max_examples=150, **_SETTINGS)
@given(st.integers(0, len(_PUBLISHED) - 1), st.lists(st.sampled_from("UDLR"), max_size=400), st.booleans())
def test_big_levels_replay_as_the_independent_verifier_does(index, plan, solved):
    """Published levels (up to 16 boxes, over 128 cells): the replay kernel's seven outputs equal the independent
    verifier's, on random plans and on a plan that completes."""
    from fastspe.domains.sokoban.kernels.replay import ERROR_NAMES, replay_levels
    from fastspe.domains.sokoban.verify.replay import SokobanBoard, SokobanRoom, replay_sokoban

    text = parse_level(_PUBLISHED[index]).text
    if solved:
        plan = list(solve_level(dict(microban())["119"]).moves.replace(",", "") * 2) + plan
        text = parse_level(dict(microban())["119"]).text
    t = pack_levels([parse_level(text)])
    codes = np.array(["UDLR".index(a) for a in plan], dtype=np.uint8)
    out = replay_levels(
        np.zeros(1, np.int64),
        codes,
        np.array([0, len(codes)], np.int64),
        t.moves,
        t.push_distance,
        t.player,
        t.boxes,
        t.nboxes,
    )
    got = {
        "status": ("complete", "legal_noncompletion", "illegal")[int(out[0][0])],
        "error_kind": ERROR_NAMES[out[1][0]],
        "first_error": int(out[2][0]),
        "final_h": int(out[3][0]),
        "min_h": int(out[4][0]),
        "revisits": int(out[5][0]),
        "goal_midway": bool(out[6][0]),
    }
    assert got == replay_sokoban(SokobanBoard(SokobanRoom(text), "test", 1, 0), "".join(plan))


@settings(max_examples=100, **_SETTINGS)
@given(rooms(most_boxes=4, side=5))
def test_the_verifiers_fewest_pushes_equals_the_twin(text):
    from fastspe.domains.sokoban.verify.bank import fewest_pushes

    assert fewest_pushes(read_xsb(parse_level(text).text)) == naive_solve_pushes(text)


def test_cli_solve_objective(tmp_path, capsys):
    import json

    from fastspe.cli import main

    path = tmp_path / "m119.xsb"
    path.write_text(dict(microban())["119"])
    for objective, want in (("pushes", (145, 18)), ("moves", (131, 20))):
        assert main(["solve", "--domain", "sokoban", "--level", str(path), "--objective", objective]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["length"], out["pushes"], out["objective"]) == (*want, objective)
    assert main(["solve", "--domain", "sokoban", "--level", str(path), "--objective", "time"]) == 2


def test_is_solvable_on_a_state_mid_plan():
    """The dead-move check's use: the level's room with the boxes and player a plan has reached."""
    import dataclasses

    level = parse_level(TWO_BOXES)
    player, boxes = level.player, frozenset(level.boxes)
    for d in "LD":  # the player steps left and pushes the box below it against the bottom wall, off every goal
        player, boxes, _, error = level.step(player, boxes, "UDLR".index(d))
        assert not error
    after = dataclasses.replace(level, boxes=tuple(sorted(boxes)), player=player)
    assert is_solvable(level) and naive_solve(after.text) is None and not is_solvable(after)
