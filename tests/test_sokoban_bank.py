"""Sokoban banks: designs, reverse-play generation certified by the solver, and the independent verifier."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastspe.domains.sokoban.bank as sokoban
from fastspe.domains.designs import QuotaError
from fastspe.domains.sokoban.bank import (SOKOBAN_PAPER_DESIGN, build_sokoban_bank,
                                  load_sokoban_design, sokoban_design_from_dict, xsb_text)
from fastspe.domains.sokoban.columns import BANK_COLUMNS
from fastspe.domains.sokoban.level import parse_level
from fastspe.errors import UserError
from fastspe.domains.sokoban.solver import solve_level
from fastspe.domains.sokoban.verify.bank import fewest_moves, read_xsb, verify_sokoban_bank

from .naive_sokoban_bfs import naive_solve
from .threads import digests_by_thread_count

SMALL = {"seed": 11, "cells": [{"cohort": "primary", "boxes": 1, "depth": 6, "count": 3},
                               {"cohort": "primary", "boxes": 2, "depth": 10, "count": 3},
                               {"cohort": "primary", "boxes": 2, "depth": 14, "count": 2},
                               {"cohort": "stress", "boxes": 2, "depth": 14, "count": 2},
                               {"cohort": "primary", "boxes": 3, "depth": 12, "count": 2}]}


@pytest.fixture(scope="module")
def small_bank():
    return build_sokoban_bank(sokoban_design_from_dict(SMALL))


def test_the_bank_is_balanced_and_certified(small_bank):
    assert tuple(small_bank.column_names) == BANK_COLUMNS
    assert small_bank.schema.metadata[b"fastspe.domain"] == b"sokoban"
    rows = small_bank.to_pylist()
    assert [(r["cohort"], r["boxes"], r["depth"]) for r in rows] == [
        (c["cohort"], c["boxes"], c["depth"]) for c in SMALL["cells"] for _ in range(c["count"])]
    assert rows[0]["board_id"] == "primary-b1-d6-000" and rows[-1]["board_id"] == "primary-b3-d12-001"
    assert len({r["level"] for r in rows}) == len(rows)
    for r in rows:
        level = parse_level(r["level"])
        assert level.text == r["level"] and len(level.boxes) == r["boxes"]
        assert naive_solve(r["level"]) == (r["depth"], r["pushes"])  # the twin's BFS agrees on d* and pushes
        assert len(r["certificate"]) == r["depth"] and set(r["certificate"]) <= set("UDLR")


def test_the_verifier_passes_the_bank_and_proves_it(small_bank):
    skipped: list = []
    seen = []
    assert verify_sokoban_bank(small_bank.to_pandas(), progress=lambda a, b: seen.append((a, b)),
                               skipped=skipped) == []
    assert skipped == [] and seen[-1] == (small_bank.num_rows, small_bank.num_rows)
    # a bound too small to prove anything: the levels are replayed and checked, and named as not proved
    assert verify_sokoban_bank(small_bank.to_pandas(), max_states=1, skipped=skipped) == []
    assert skipped == small_bank.column("board_id").to_pylist()


def test_the_verifier_catches_tampering(small_bank):
    bank = small_bank.to_pandas()
    first = bank.iloc[0]
    bad = bank.copy()
    bad.loc[0, "depth"] = first["depth"] + 2
    bad.loc[1, "certificate"] = bank.loc[1, "certificate"][::-1]
    bad.loc[2, "pushes"] = bank.loc[2, "pushes"] + 1
    bad.loc[3, "boxes"] = 4
    bad.loc[4, "level"] = bank.loc[4, "level"].replace("@", "x")
    bad.loc[5, "level"] = bank.loc[6, "level"]
    bad.loc[5, "certificate"] = bank.loc[6, "certificate"]
    reasons = dict(verify_sokoban_bank(bad))
    assert "len(certificate)" in reasons[bank.loc[0, "board_id"]]
    assert bank.loc[1, "board_id"] in reasons
    assert "pushes" in reasons[bank.loc[2, "board_id"]]
    assert "boxes = 4" in reasons[bank.loc[3, "board_id"]]
    assert "'x'" in reasons[bank.loc[4, "board_id"]]
    assert "same level" in reasons[bank.loc[6, "board_id"]]


def test_the_verifier_finds_a_shorter_plan():
    # a legal certificate two moves too long (a step away and back first): the BFS finds the shorter plan
    text = "#######\n#     #\n# $.  #\n#  @$ #\n#   . #\n#######"
    best = fewest_moves(read_xsb(text))
    sol = solve_level(text)
    assert best == (sol.length, sol.pushes) == (8, 2)
    cert = "LR" + sol.moves.replace(",", "")
    bank = pd.DataFrame({"board_id": ["x"], "cohort": ["p"], "depth": [10], "level": [text], "boxes": [2],
                         "certificate": [cert], "pushes": [2]})
    assert dict(verify_sokoban_bank(bank)) == {"x": "the fewest moves are 8, not depth = 10"}


def test_bit_identical_for_a_seed(small_bank):
    again = build_sokoban_bank(sokoban_design_from_dict(SMALL))
    assert again.equals(small_bank)
    other = build_sokoban_bank(sokoban_design_from_dict({**SMALL, "seed": 12}))
    assert other.column("level").to_pylist() != small_bank.column("level").to_pylist()


def test_bit_identical_at_any_thread_count():
    script = ("import hashlib, json, numba\n"
              "from fastspe.domains.sokoban.bank import build_sokoban_bank, sokoban_design_from_dict\n"
              f"t = build_sokoban_bank(sokoban_design_from_dict({SMALL!r}))\n"
              "print(numba.get_num_threads(), hashlib.sha256(json.dumps(t.to_pylist()).encode()).hexdigest())\n")
    digests = digests_by_thread_count(script)
    assert digests["1"] == digests["2"]


def test_the_paper_design():
    cells = SOKOBAN_PAPER_DESIGN.cells
    primary = [c for c in cells if c.cohort == "primary"]
    assert sum(c.count for c in primary) == 320 and {c.count for c in cells} == {20}
    assert {(c.boxes, c.depth) for c in primary} == {(b, d) for b in (1, 2, 3, 4) for d in (10, 20, 30, 40)}
    assert SOKOBAN_PAPER_DESIGN.total == 400
    assert load_sokoban_design("sokoban-paper", seed=5).seed == 5


@pytest.mark.parametrize("spec, message", [
    ([], "JSON object"),
    ({"cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 1}]}, "no seed"),
    ({"seed": 1, "cells": []}, "non-empty"),
    ({"seed": 1, "rows": 4, "cells": [{}]}, "unknown keys"),
    ({"seed": -1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 1}]}, "seed"),
    ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5}]}, r"cells\[0\] is missing \['count'\]"),
    ({"seed": 1, "cells": [{"cohort": "p", "boxes": 5, "depth": 5, "count": 1}]}, r"cells\[0\].boxes"),
    ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 0, "count": 1}]}, r"cells\[0\].depth"),
    ({"seed": 1, "cells": [{"cohort": "p", "boxes": True, "depth": 5, "count": 1}]}, r"cells\[0\].boxes"),
    ({"seed": 1, "cells": [{"cohort": "a b", "boxes": 1, "depth": 5, "count": 1}]}, "cohort"),
    ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 1, "k": 2}]}, "unknown keys"),
    ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 1}] * 2}, "repeats"),
])
def test_design_errors_name_the_key(spec, message):
    with pytest.raises(UserError, match=message):
        sokoban_design_from_dict(spec)


def test_design_files(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps(SMALL))
    assert load_sokoban_design(str(path)) == sokoban_design_from_dict(SMALL)
    assert load_sokoban_design(str(path), seed=3).seed == 3
    with pytest.raises(UserError, match="neither"):
        load_sokoban_design(str(tmp_path / "missing.json"))


def test_an_impossible_cell_says_so(monkeypatch):
    # one box 119 moves from its goal: not in the two rooms tried
    monkeypatch.setattr(sokoban, "ROOMS_PER_LEVEL", 2)
    with pytest.raises(QuotaError, match="primary-b1-d119: only 0 of 1 levels after 2 rooms"):
        build_sokoban_bank(sokoban_design_from_dict({"seed": 1, "cells": [
            {"cohort": "primary", "boxes": 1, "depth": 119, "count": 1}]}))


def test_xsb_text_draws_arrays():
    level = parse_level("#####\n#@$.#\n#####")
    assert xsb_text(level.wall, level.goal, level.boxes, level.player, level.rows, level.cols) == level.text


def test_a_bank_from_given_levels():
    texts = ["#######\n#     #\n# $.  #\n#  @$ #\n#   . #\n#######", "#####\n#@$.#\n#####"]
    bank = sokoban.bank_from_levels(texts, cohort="micro")
    assert bank.column("board_id").to_pylist() == ["micro-000", "micro-001"]
    assert bank.column("depth").to_pylist() == [8, 1] and bank.column("pushes").to_pylist() == [2, 1]
    assert verify_sokoban_bank(bank.to_pandas()) == []
    with pytest.raises(UserError, match="level x: the level is dead"):
        sokoban.bank_from_levels(["#####\n#$  #\n# @.#\n#####"], ids=["x"])
    with pytest.raises(UserError, match="distinct"):
        sokoban.bank_from_levels(texts, ids=["a", "a"])


def test_the_verifier_takes_tables_and_names_missing_columns(small_bank):
    assert verify_sokoban_bank(small_bank) == []
    assert "lacks the columns ['pushes']" in verify_sokoban_bank(small_bank.drop(["pushes"]))[0][1]


def test_a_cell_too_shallow_for_its_boxes_says_so():
    """4 boxes at exactly 6 moves: no room of seed 1 gives one; the error names the cell and points both ways."""
    with pytest.raises(QuotaError, match=r"cell c-b4-d6: only 0 of 1 levels .* another depth .* very shallow ones"):
        build_sokoban_bank(sokoban_design_from_dict({"seed": 1, "cells": [
            {"cohort": "c", "boxes": 4, "depth": 6, "count": 1}]}))


# (4 boxes at depth 6 is too shallow to be reached by reverse play from many rooms: 8 of seeds 0-59 find no level
# in the 200 rooms a level may take, a QuotaError, so a random draw failed one suite run in five; depth 8 found one
# for every seed of 0-79)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**63 - 1), st.sampled_from([(1, 5), (1, 21), (2, 9), (2, 18), (3, 7), (3, 13), (4, 8)]))
def test_generated_levels_equal_the_twin(seed, cell):
    boxes, depth = cell
    bank = build_sokoban_bank(sokoban_design_from_dict({"seed": seed, "cells": [
        {"cohort": "c", "boxes": boxes, "depth": depth, "count": 1}]}))
    row = bank.to_pylist()[0]
    assert naive_solve(row["level"]) == (depth, row["pushes"])
    assert verify_sokoban_bank(bank) == []
