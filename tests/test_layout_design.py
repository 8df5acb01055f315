"""Layouts, board validation and design files give clear errors."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from fastspe.domains.sliding.bank.design import (
    PAPER_SEED,
    design_from_dict,
    load_design,
    max_distinct_boards,
    paper_design,
)
from fastspe.domains.sliding.layout import Layout


def test_goal_lists_tiles_over_free_cells_blank_last():
    layout = Layout(4, 4, (5, 10))
    assert layout.goal.tolist() == [1, 2, 3, 4, 5, -1, 6, 7, 8, 9, -1, 10, 11, 12, 13, 0]
    assert layout.tiles == 13 and layout.k == 2 and layout.tag == "b5.10"
    assert Layout().tag == "bnone"
    assert Layout(3, 5, (14,)).goal[-2:].tolist() == [0, -1]


@pytest.mark.parametrize(
    "args, message",
    [
        ((1, 4, ()), "rows must be between 2 and 8"),
        ((4, 9, ()), "cols must be between 2 and 8"),
        ((4, 4, (16,)), "outside 0..15"),
        ((4, 4, (5, 5)), "repeat"),
        ((4, 4, (1, 4)), "not connected"),
        ((2, 2, (0, 1, 2)), "at least 2 free cells"),
        ((4, 4, "5"), "blocks must be a list"),
    ],
)
def test_bad_layouts(args, message):
    with pytest.raises((ValueError, TypeError), match=message):
        Layout(*args)


@pytest.mark.parametrize(
    "board, message",
    [
        (list(range(1, 16)), "has 15 cells"),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15], r"no blank \(0\); repeated values \[15\]"),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 0], r"missing tiles \[15\]; values out of range \[16\]"),
        ([1, 2, 3, 4, 5, -1, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0], "blocked cells"),
        ([2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0], "unsolvable"),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "x"], "must be an integer"),
    ],
)
def test_bad_boards(board, message):
    with pytest.raises(ValueError, match=message):
        Layout().validate_board(board)


def test_parity_accepts_reachable_boards():
    layout = Layout(4, 4, (6,))
    board = layout.goal.copy()
    # move the blank up twice along column 3: a reachable board
    for t in (11, 7):
        blank = int(np.flatnonzero(board == 0)[0])
        board[blank], board[t] = board[t], 0
    assert layout.validate_board(board).tolist() == board.tolist()
    assert layout.h(board) == 2


def test_paper_design_matches_appendix_a():
    design = paper_design()
    assert design.seed == PAPER_SEED == 20261010
    assert design.total == 400
    primary = [c for c in design.cells if c.cohort == "primary"]
    stress = [c for c in design.cells if c.cohort == "stress"]
    assert sum(c.count for c in primary) == 320 and sum(c.count for c in stress) == 80
    assert {c.depth for c in stress} == {50, 60} and {c.layout.k for c in stress} == {2, 3}
    assert {c.layout.blocks for c in primary if c.layout.k == 3} == {(5, 6, 9), (5, 6, 10), (5, 9, 10), (6, 9, 10)}


def test_design_file(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(
        json.dumps(
            {
                "seed": 7,
                "rows": 4,
                "cols": 4,
                "cells": [{"cohort": "primary", "blocks": [5, 10], "depth": 30, "count": 1000}],
            }
        )
    )
    design = load_design(str(path))
    assert design.seed == 7 and design.cells[0].layout.blocks == (5, 10) and design.total == 1000
    assert load_design(str(path), seed=9).seed == 9


@pytest.mark.parametrize(
    "spec, message",
    [
        ([], "JSON object"),
        ({"cells": [{"cohort": "a", "depth": 3, "count": 1}]}, "no seed"),
        ({"seed": -1, "cells": []}, "seed must be an integer"),
        ({"seed": 1, "cells": []}, "non-empty list"),
        ({"seed": 1, "colour": 2, "cells": []}, r"unknown keys \['colour'\]"),
        ({"seed": 1, "cells": [{"cohort": "a", "depth": 3}]}, r"cells\[0\] is missing \['count'\]"),
        ({"seed": 1, "cells": [{"cohort": "a", "depth": 0, "count": 1}]}, r"cells\[0\].depth must be an integer >= 1"),
        ({"seed": 1, "cells": [{"cohort": "a b", "depth": 3, "count": 1}]}, r"cells\[0\].cohort"),
        (
            {"seed": 1, "cells": [{"cohort": "a", "blocks": [1, 4], "depth": 3, "count": 1}]},
            r"cells\[0\]: .*not connected",
        ),
        ({"seed": 1, "cells": [{"cohort": "a", "depth": 999, "count": 1}]}, "exceeds the largest possible h"),
        (
            {"seed": 1, "cells": [{"cohort": "a", "depth": 3, "count": 1}, {"cohort": "a", "depth": 3, "count": 2}]},
            r"cells\[1\] repeats",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "a", "depth": True, "count": 1}]},
            r"cells\[0\].depth must be an integer >= 1, got True",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "a", "depth": 3, "count": 2.5}]},
            r"cells\[0\].count must be an integer >= 1, got 2.5",
        ),
        ({"seed": 1, "cells": [{"cohort": "a", "depth": 3, "count": 1e12}]}, r"cells\[0\].count must be an integer"),
        (
            {"seed": 1, "cells": [{"cohort": "a", "depth": "3", "count": 1}]},
            r"cells\[0\].depth must be an integer >= 1, got '3'",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "a", "depth": None, "count": 1}]},
            r"cells\[0\].depth must be an integer >= 1, got None",
        ),
        ({"seed": 1, "cells": [{"cohort": None, "depth": 3, "count": 1}]}, r"cells\[0\].cohort"),
        (
            {"seed": 1, "cells": [{"cohort": "a", "blocks": [5, True], "depth": 3, "count": 1}]},
            r"cells\[0\].blocks\[1\] must be an integer",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "a", "blocks": [5.0], "depth": 3, "count": 1}]},
            r"cells\[0\].blocks\[0\] must be an integer",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "a", "blocks": None, "depth": 3, "count": 1}]},
            r"cells\[0\].blocks must be a list",
        ),
        (
            {"seed": 1, "rows": 4.0, "cells": [{"cohort": "a", "depth": 3, "count": 1}]},
            r"d.json: rows must be an integer, got 4.0",
        ),
        (
            {"seed": 1, "cols": True, "cells": [{"cohort": "a", "depth": 3, "count": 1}]},
            r"d.json: cols must be an integer, got True",
        ),
        ({"seed": True, "cells": [{"cohort": "a", "depth": 3, "count": 1}]}, "seed must be an integer"),
        (
            {"seed": 1, "cells": [{"cohort": "a", "blocks": [5, 10], "depth": 10, "count": 21}]},
            r"cells\[0\].count 21 exceeds the at most 20 distinct boards that blocks \[5, 10\] can have at depth 10",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "a", "depth": 40, "count": 10**12}]},
            r"cells\[0\].count 1,000,000,000,000 exceeds",
        ),
        (
            {
                "seed": 1,
                "cells": [
                    {"cohort": "a", "depth": 40, "count": 60_000_000},
                    {"cohort": "b", "depth": 40, "count": 60_000_000},
                ],
            },
            "120,000,000 boards in all",
        ),
    ],
)
def test_bad_designs(spec, message):
    with pytest.raises(ValueError, match=message):
        design_from_dict(spec, source="d.json")


def test_design_file_not_json(tmp_path):
    path = tmp_path / "d.json"
    path.write_text('{"seed": 1,\n "cells": [}')
    with pytest.raises(ValueError, match=r"d.json: not valid JSON \(line 2"):
        load_design(str(path))
    with pytest.raises(ValueError, match="neither 'paper' nor an existing JSON file"):
        load_design(str(tmp_path / "missing.json"))


def test_impossible_count_is_refused_at_once(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(
        json.dumps({"seed": 1, "cells": [{"cohort": "a", "blocks": [5, 10], "depth": 30, "count": 10**12}]})
    )
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"cells\[0\].count 1,000,000,000,000 exceeds"):
        load_design(str(path))
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("blocks, depth", [((5, 10), 6), ((), 5), ((5, 6, 9), 7), ((6,), 4)])
def test_board_bound_holds_against_enumeration(blocks, depth):
    # Every board reachable by d h-raising steps, enumerated breadth-first: never more than the bound.
    layout = Layout(4, 4, blocks)
    goal = layout.goal
    frontier = {tuple(goal.tolist())}
    for _ in range(depth):
        nxt = set()
        for board in frontier:
            arr = np.array(board, dtype=np.int8)
            blank = int(np.flatnonzero(arr == 0)[0])
            for cell in range(layout.cells):
                if arr[cell] > 0 and layout.distances[blank, cell] == 1:
                    moved = arr.copy()
                    moved[blank], moved[cell] = moved[cell], 0
                    if layout.h(moved) == layout.h(arr) + 1:
                        nxt.add(tuple(moved.tolist()))
        frontier = nxt
    assert 0 < len(frontier) <= max_distinct_boards(layout, depth)
