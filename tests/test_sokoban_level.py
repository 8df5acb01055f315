"""Sokoban level parsing: the XSB characters, the room, the canonical text, errors naming line and column."""

from __future__ import annotations

import numpy as np
import pytest

from fastspe.domains.sokoban.level import DEAD_PUSHES, parse_level
from fastspe.errors import UserError

SIMPLE = "#####\n#@$.#\n#####"


def test_simple_level_fields():
    lv = parse_level(SIMPLE)
    assert (lv.rows, lv.cols) == (3, 5)
    assert lv.player == 6 and lv.boxes == (7,) and lv.goals == (8,)
    assert lv.wall.tolist() == [True] * 5 + [True, False, False, False, True] + [True] * 5
    assert lv.text == SIMPLE and lv.size == "3x5" and not lv.solved
    assert lv.push_distance[7] == 1 and lv.push_distance[8] == 0 and lv.h() == 1
    assert lv.push_distance[6] == DEAD_PUSHES  # pushing right from cell 6 needs the player on cell 5, a wall


def test_every_character():
    lv = parse_level("######\n#+*$ #\n#-_$.#\n######")
    assert lv.player == 7 and lv.goal[7] and lv.goal[8]
    assert lv.boxes == (8, 9, 15) and lv.goals == (7, 8, 16)
    assert lv.text == "######\n#+*$ #\n#  $.#\n######"  # - and _ are floor, written as spaces


def test_canonical_text_crops_pads_and_round_trips():
    raw = "\n\n   #####\r\n   #@$.#\n   #####\n\n"
    lv = parse_level(raw)
    assert lv.text == "#####\n#@$.#\n#####" and (lv.rows, lv.cols) == (3, 5)
    assert parse_level(lv.text) == lv and hash(parse_level(lv.text)) == hash(lv)


def test_outside_floor_is_wall_and_thick_walls_thin_out():
    lv = parse_level("  ####\n###  #\n#@$. #\n######\n######")
    assert lv.wall[0] and lv.wall[1]
    assert lv.text == "  ####\n###  #\n#@$. #\n######"  # the last row touches no room cell
    assert parse_level(lv.text) == lv


def test_moves_table():
    lv = parse_level("####\n#@ #\n#$.#\n####")
    assert lv.moves[5].tolist() == [-1, 9, -1, 6]  # U wall, D box cell, L wall, R floor


def test_push_distances_to_each_goal():
    lv = parse_level("#######\n#@ $  #\n#. $ .#\n#######")
    assert lv.goals == (15, 19) and lv.boxes == (10, 17)
    # a box on row 1 cannot come down (the player would stand on the top wall)
    assert lv.goal_push_distances[:, 10].tolist() == [-1, -1] and lv.push_distance[10] == DEAD_PUSHES
    # along row 2 a box moves left or right with the player beside it
    assert lv.goal_push_distances[:, 17].tolist() == [2, 2]
    assert lv.goal_push_distances[:, 16].tolist() == [1, 3] and lv.push_distance[16] == 1
    assert lv.h() == DEAD_PUSHES + 2


def test_push_distance_bfs_example():
    lv = parse_level("######\n#    #\n# $  #\n#   .#\n#@   #\n######")
    g = lv.goals[0]
    assert g == 3 * 6 + 4
    assert lv.goal_push_distances[0, 2 * 6 + 2] == 3  # one down, two right
    assert lv.push_distance[1 * 6 + 1] == DEAD_PUSHES  # a corner
    assert lv.push_distance[g] == 0


def test_boxes_on_goals_have_h_zero():
    lv = parse_level("#####\n#@$.#\n#####")
    assert lv.h(lv.goals) == 0 and lv.h() == 1


@pytest.mark.parametrize(
    "text,needle",
    [
        ("#####\n#@$x#\n#####", "line 2, column 4: 'x'"),
        ("#####\n#@$.#\n#@  #\n#####", "line 3, column 2: a second player (the first is at line 2, column 2)"),
        ("#####\n# $.#\n#####", "no player"),
        ("#####\n#@ .#\n#####", "0 boxes"),
        ("#" * 20 + "\n#@" + "$" * 17 + "#\n#" + "." * 17 + "  #\n" + "#" * 20, "17 boxes"),
        ("#####\n#@$$#\n#.  #\n#####", "2 boxes and 1 goal;"),
        ("####\n#@.#\n####\n#$ #\n####", "line 4, column 2: a box the player cannot reach"),
        ("\n\n", "empty"),
        ("#" * 33 + "\n#@$." + " " * 28 + "#\n" + "#" * 33, "33"),
    ],
)
def test_errors_name_what_is_wrong(text, needle):
    with pytest.raises(UserError) as info:
        parse_level(text)
    assert needle in str(info.value), str(info.value)


def test_not_text_is_a_type_error():
    with pytest.raises(UserError):
        parse_level(b"#@$.#")


def test_arrays_are_read_only():
    lv = parse_level(SIMPLE)
    with pytest.raises(ValueError):
        lv.wall[0] = False
    assert isinstance(lv.goal, np.ndarray)


def test_prompt_is_versioned_hashed_and_draws_the_canonical_level():
    import hashlib

    from fastspe.domains.sokoban.prompt import PROMPT_SHA256, PROMPT_TEMPLATE, PROMPT_VERSION, render_prompt

    assert PROMPT_VERSION == "sokoban/1"
    assert PROMPT_SHA256 == hashlib.sha256(PROMPT_TEMPLATE.encode()).hexdigest()
    text = render_prompt("\n  #####\n  #@$.#\n  #####\n")
    assert text.startswith("You are solving a 3-by-5 Sokoban level.\n")
    assert text.endswith("Return only MOVES: followed by comma-separated U,D,L,R.\nLevel:\n#####\n#@$.#\n#####")
    with pytest.raises(UserError, match="no player"):
        render_prompt("#####\n# $.#\n#####")


def test_replace_makes_a_level_with_another_start():
    import dataclasses

    lv = parse_level("######\n#@$ .#\n######")
    moved = dataclasses.replace(lv, boxes=(9,), player=8)
    assert moved.text == "######\n# @$.#\n######" and moved.h() == 1 and lv.h() == 2
