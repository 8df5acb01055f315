"""Sokoban banks: designs, reverse-play generation certified by the solver, and the independent verifier."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastspe.domains.sokoban.bank as sokoban
from fastspe.domains.designs import QuotaError
from fastspe.domains.sokoban.bank import (
    SOKOBAN_PAPER_DESIGN,
    build_sokoban_bank,
    load_sokoban_design,
    sokoban_design_from_dict,
    xsb_text,
)
from fastspe.domains.sokoban.templates import ROOM_TEMPLATES
from fastspe.domains.sokoban.columns import BANK_COLUMNS
from fastspe.domains.sokoban.level import parse_level
from fastspe.errors import UserError
from fastspe.domains.sokoban.solver import solve_level
from fastspe.domains.sokoban.verify.bank import fewest_moves, read_xsb, verify_sokoban_bank

from .naive_sokoban_bfs import naive_solve
from .threads import digests_by_thread_count

SMALL = {
    "seed": 11,
    "cells": [
        {"cohort": "primary", "boxes": 1, "depth": 6, "count": 3},
        {"cohort": "primary", "boxes": 2, "depth": 10, "count": 3},
        {"cohort": "primary", "boxes": 2, "depth": 14, "count": 2},
        {"cohort": "stress", "boxes": 2, "depth": 14, "count": 2},
        {"cohort": "primary", "boxes": 3, "depth": 12, "count": 2},
    ],
}


@pytest.fixture(scope="module")
def small_bank():
    return build_sokoban_bank(sokoban_design_from_dict(SMALL))


def test_the_bank_is_balanced_and_certified(small_bank):
    assert tuple(small_bank.column_names) == BANK_COLUMNS
    assert small_bank.schema.metadata[b"fastspe.domain"] == b"sokoban"
    rows = small_bank.to_pylist()
    assert [(r["cohort"], r["boxes"], r["depth"]) for r in rows] == [
        (c["cohort"], c["boxes"], c["depth"]) for c in SMALL["cells"] for _ in range(c["count"])
    ]
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
    assert verify_sokoban_bank(small_bank.to_pandas(), progress=lambda a, b: seen.append((a, b)), skipped=skipped) == []
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
    bank = pd.DataFrame(
        {
            "board_id": ["x"],
            "cohort": ["p"],
            "depth": [10],
            "level": [text],
            "boxes": [2],
            "certificate": [cert],
            "pushes": [2],
        }
    )
    assert dict(verify_sokoban_bank(bank)) == {"x": "the fewest moves are 8, not depth = 10"}


def test_bit_identical_for_a_seed(small_bank):
    again = build_sokoban_bank(sokoban_design_from_dict(SMALL))
    assert again.equals(small_bank)
    other = build_sokoban_bank(sokoban_design_from_dict({**SMALL, "seed": 12}))
    assert other.column("level").to_pylist() != small_bank.column("level").to_pylist()


def test_bit_identical_at_any_thread_count():
    script = (
        "import hashlib, json, numba\n"
        "from fastspe.domains.sokoban.bank import build_sokoban_bank, sokoban_design_from_dict\n"
        f"t = build_sokoban_bank(sokoban_design_from_dict({SMALL!r}))\n"
        "print(numba.get_num_threads(), hashlib.sha256(json.dumps(t.to_pylist()).encode()).hexdigest())\n"
    )
    digests = digests_by_thread_count(script)
    assert digests["1"] == digests["2"]


def test_the_paper_design():
    cells = SOKOBAN_PAPER_DESIGN.cells
    primary = [c for c in cells if c.cohort == "primary"]
    assert sum(c.count for c in primary) == 320 and {c.count for c in cells} == {20}
    assert {(c.boxes, c.depth) for c in primary} == {(b, d) for b in (1, 2, 3, 4) for d in (10, 20, 30, 40)}
    assert SOKOBAN_PAPER_DESIGN.total == 400
    assert load_sokoban_design("sokoban-paper", seed=5).seed == 5
    # every cell over four templates, five levels each, with a push floor rising with d*
    assert all(len(c.templates) == 4 and c.min_pushes == c.depth * 3 // 10 for c in cells)
    v1 = load_sokoban_design("sokoban-paper-v1")  # the first default: carved rooms, no floor
    assert [(c.cohort, c.boxes, c.depth, c.count) for c in v1.cells] == [
        (c.cohort, c.boxes, c.depth, c.count) for c in cells
    ]
    assert all(c.templates == () and c.min_pushes == 0 for c in v1.cells)


@pytest.mark.parametrize(
    "spec, message",
    [
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
        ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "count": 1}]}, "exactly one of depth .* and pushes"),
        ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "pushes": 2, "count": 1}]}, "exactly one"),
        ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "pushes": 0, "count": 1}]}, r"cells\[0\].pushes"),
        (
            {"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "pushes": 3, "count": 1, "min_pushes": 2}]},
            "min_pushes goes with depth",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 1, "min_pushes": 6}]},
            r"min_pushes must be an integer in 0..depth \(5\)",
        ),
        (
            {
                "seed": 1,
                "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 3, "templates": ["zigzag", "alcoves"]}],
            },
            "multiple of the 2 templates",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 2, "templates": ["hall"]}]},
            "unknown templates",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 2, "templates": []}]},
            "non-empty list",
        ),
        (
            {"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "depth": 5, "count": 2, "templates": ["zigzag"] * 2}]},
            "twice",
        ),
        ({"seed": 1, "cells": [{"cohort": "p", "boxes": 1, "pushes": 5, "count": 1}] * 2}, "repeats .* pushes 5"),
    ],
)
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
        build_sokoban_bank(
            sokoban_design_from_dict(
                {"seed": 1, "cells": [{"cohort": "primary", "boxes": 1, "depth": 119, "count": 1}]}
            )
        )


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
        build_sokoban_bank(
            sokoban_design_from_dict({"seed": 1, "cells": [{"cohort": "c", "boxes": 4, "depth": 6, "count": 1}]})
        )


# (4 boxes at depth 6 is too shallow to be reached by reverse play from many rooms: 8 of seeds 0-59 find no level
# in the 200 rooms a level may take, a QuotaError, so a random draw failed one suite run in five; depth 8 found one
# for every seed of 0-79)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**63 - 1), st.sampled_from([(1, 5), (1, 21), (2, 9), (2, 18), (3, 7), (3, 13), (4, 8)]))
def test_generated_levels_equal_the_twin(seed, cell):
    boxes, depth = cell
    bank = build_sokoban_bank(
        sokoban_design_from_dict({"seed": seed, "cells": [{"cohort": "c", "boxes": boxes, "depth": depth, "count": 1}]})
    )
    row = bank.to_pylist()[0]
    assert naive_solve(row["level"]) == (depth, row["pushes"])
    assert verify_sokoban_bank(bank) == []


# a design of every new kind of cell: depth cells with a push floor over templates, a pushes cell, and a carved cell
PLANNED = {
    "seed": 5,
    "cells": [
        {"cohort": "primary", "boxes": 1, "depth": 16, "count": 4, "min_pushes": 5, "templates": ["zigzag", "alcoves"]},
        {
            "cohort": "primary",
            "boxes": 2,
            "depth": 14,
            "count": 4,
            "min_pushes": 4,
            "templates": ["galleries", "zigzag"],
        },
        {"cohort": "pushes", "boxes": 2, "pushes": 6, "count": 2, "templates": ["two-rooms", "alcoves"]},
        {"cohort": "carved", "boxes": 1, "depth": 12, "count": 2, "min_pushes": 4},
    ],
}


@pytest.fixture(scope="module")
def planned_bank():
    return build_sokoban_bank(sokoban_design_from_dict(PLANNED)).to_pandas()


def _floor(text: str) -> frozenset:
    """The cells the player can reach (boxes ignored): a room's floor (the bank's text leaves out walls that no
    floor touches, so rooms are compared by their floor)."""
    grid = text.split("\n")
    at = lambda r, q: grid[r][q] if 0 <= r < len(grid) and 0 <= q < len(grid[r]) else "#"  # noqa: E731
    start = next((r, q) for r, line in enumerate(grid) for q, ch in enumerate(line) if ch in "@+ ")
    if any(ch in "@+" for line in grid for ch in line):
        start = next((r, q) for r, line in enumerate(grid) for q, ch in enumerate(line) if ch in "@+")
    seen, todo = {start}, [start]
    while todo:
        r, q = todo.pop()
        for nxt in ((r - 1, q), (r + 1, q), (r, q - 1), (r, q + 1)):
            if nxt not in seen and at(*nxt) != "#":
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


def _template_of(text: str) -> str | None:
    """The template whose room the level is (None: a carved room)."""
    return next((name for name, room in ROOM_TEMPLATES.items() if _floor(room) == _floor(text)), None)


def test_push_floors_and_pushes_cells_are_respected(planned_bank):
    cells = {c["cohort"] + str(c["boxes"]): c for c in PLANNED["cells"]}
    assert len(planned_bank) == sum(c["count"] for c in PLANNED["cells"])
    for r in planned_bank.itertuples():
        cell = cells[r.cohort + str(r.boxes)]
        assert naive_solve(r.level) == (r.depth, r.pushes)  # the twin's BFS agrees on d* and pushes
        if "pushes" in cell:
            assert r.pushes == cell["pushes"] and r.board_id.startswith("pushes-b2-p6-")
        else:
            assert r.depth == cell["depth"] and r.pushes >= cell["min_pushes"]
    assert verify_sokoban_bank(planned_bank) == []


def test_templates_are_balanced_per_cell(planned_bank):
    for cell in PLANNED["cells"]:
        rows = planned_bank[(planned_bank.cohort == cell["cohort"]) & (planned_bank.boxes == cell["boxes"])]
        got = [_template_of(text) for text in rows.level]
        if "templates" in cell:  # the same number in each, template by template in the cell's order
            per = cell["count"] // len(cell["templates"])
            assert got == [t for t in cell["templates"] for _ in range(per)]
        else:
            assert got == [None] * cell["count"]


def test_a_planned_design_is_bit_identical_for_a_seed_at_any_thread_count(planned_bank):
    assert build_sokoban_bank(sokoban_design_from_dict(PLANNED)).to_pandas().equals(planned_bank)
    script = (
        "import hashlib, json, numba\n"
        "from fastspe.domains.sokoban.bank import build_sokoban_bank, sokoban_design_from_dict\n"
        f"t = build_sokoban_bank(sokoban_design_from_dict({PLANNED!r}))\n"
        "print(numba.get_num_threads(), hashlib.sha256(json.dumps(t.to_pylist()).encode()).hexdigest())\n"
    )
    digests = digests_by_thread_count(script)
    assert digests["1"] == digests["2"]


# sha256 of json.dumps(bank.to_pylist()) as built before designs had floors and templates (fastspe 27614ba): a
# design of carved rooms with no floor builds the same bank today
SMALL_DIGEST = "e62b9b85e85ee4a59564eca5fc3bd19193dab501ee1f45b8e6a7c68715f88898"
V1_DIGEST = "f5b4c3e9a3732ac445ff4821da3a7d053fad4a6742205fa9d9ca3401dd6ff44b"


def _digest(table) -> str:
    return hashlib.sha256(json.dumps(table.to_pylist()).encode()).hexdigest()


def test_an_old_design_builds_the_same_bank(small_bank):
    assert _digest(small_bank) == SMALL_DIGEST


@pytest.mark.slow
def test_the_first_default_design_builds_the_same_bank():
    assert _digest(build_sokoban_bank(load_sokoban_design("sokoban-paper-v1"))) == V1_DIGEST


@pytest.mark.slow
def test_greedy_spe_falls_with_depth_on_the_default_design():
    """The default design's point: the greedy baseline's SPE falls strictly from the shallowest to the deepest
    primary d*, pooled over box counts and within each box count; no level has fewer pushes than its floor."""
    from fastspe.domains.sokoban.baselines import sokoban_baseline_responses
    from fastspe.scoring.score import score_responses
    from fastspe.stats.metrics import compute_metrics

    table = build_sokoban_bank(SOKOBAN_PAPER_DESIGN)
    bank = table.to_pandas()
    floors = {(c.cohort, c.boxes, c.depth): c.min_pushes for c in SOKOBAN_PAPER_DESIGN.cells}
    assert all(r.pushes >= floors[r.cohort, r.boxes, r.depth] for r in bank.itertuples())
    verdicts = score_responses(table, sokoban_baseline_responses(bank, "greedy"))
    primary = verdicts[verdicts.cohort == "primary"]
    pooled = compute_metrics(primary, by=["depth"], domain="sokoban").sort_values("depth")
    assert list(pooled.depth) == [10, 20, 30, 40]
    assert all(a > b for a, b in zip(pooled.SPE, pooled.SPE[1:])), pooled.SPE.tolist()
    cells = compute_metrics(primary, by=["boxes", "depth"], domain="sokoban").sort_values(["boxes", "depth"])
    for boxes, spe in cells.groupby("boxes").SPE:
        assert all(a > b for a, b in zip(spe, spe[1:])), (boxes, spe.tolist())


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(0, 2**63 - 1),
    st.sampled_from(sorted(ROOM_TEMPLATES)),
    st.sampled_from(
        [
            {"boxes": 1, "depth": 14, "min_pushes": 4},
            {"boxes": 2, "depth": 12, "min_pushes": 4},
            {"boxes": 1, "pushes": 5},
            {"boxes": 2, "pushes": 4},
            {"boxes": 3, "depth": 10},
        ]
    ),
)
def test_levels_in_templates_equal_the_twin(seed, template, cell):
    """Whatever the seed and room: d* and the pushes the reverse play counted are the twin BFS's."""
    bank = build_sokoban_bank(
        sokoban_design_from_dict(
            {"seed": seed, "cells": [{"cohort": "c", "count": 1, "templates": [template], **cell}]}
        )
    )
    row = bank.to_pylist()[0]
    assert naive_solve(row["level"]) == (row["depth"], row["pushes"]) and _template_of(row["level"]) == template
    assert row["pushes"] == cell["pushes"] if "pushes" in cell else row["depth"] == cell["depth"]
    assert row["pushes"] >= cell.get("min_pushes", 0)
