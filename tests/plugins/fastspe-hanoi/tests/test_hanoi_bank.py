"""Designs, the builder, the bank check every reader relies on, and the independent bank verifier."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from fastspe.boundary.errors import InputError
from fastspe.domains.designs import QuotaError
from fastspe.errors import UserError
from fastspe_hanoi import DOMAIN
from fastspe_hanoi.bank import build_bank
from fastspe_hanoi.design import HanoiCell, HanoiDesign, design_from_dict, load_design, paper_design
from fastspe_hanoi.verify.bank import verify_hanoi_bank
from fastspe_hanoi.verify.replay import distances, read_stacks

DESIGN = HanoiDesign(
    11,
    (
        HanoiCell("primary", 5, "classic", 15, 12),
        HanoiCell("primary", 4, "adjacent", 40, 1),
        HanoiCell("other", 5, "classic", 15, 4),
        HanoiCell("other", 6, "classic", 21, 5),
    ),
)


def with_column(table: pa.Table, name: str, values) -> pa.Table:
    return table.set_column(table.column_names.index(name), name, pa.array(values, table.schema.field(name).type))


# ---- designs and the builder -----------------------------------------------------------------------------------


def test_the_paper_design_builds_one_state_per_rule_in_every_stratum():
    bank = DOMAIN.demo_bank()
    assert bank.num_rows == paper_design().total == 32
    frame = bank.to_pandas()
    assert (frame.groupby(["cohort", "disks", "depth"])["rule"].apply(sorted) == [["adjacent", "classic"]] * 16).all()
    assert bank.equals(build_bank(load_design(None))) and bank.equals(build_bank(load_design("paper")))


def test_a_build_is_deterministic_distinct_and_at_its_depths():
    bank = build_bank(DESIGN)
    assert bank.equals(build_bank(DESIGN))  # same seed: the same bytes
    other = build_bank(HanoiDesign(12, DESIGN.cells))
    assert not bank.column("start").equals(other.column("start"))  # the seed draws (16 of 16 states: 12 + 4 ...)
    ids = bank.column("board_id").to_pylist()
    assert len(set(ids)) == len(ids) == DESIGN.total
    assert ids[0] == "primary-n5-classic-d15-000" and ids[12] == "primary-n4-adjacent-d40-000"
    rows = bank.to_pylist()
    assert len({(r["rule"], r["start"]) for r in rows}) == len(rows)  # across cells too (primary and other share)
    for r in rows:
        assert distances(r["disks"], r["rule"])[read_stacks(r["start"])] == r["depth"]
        assert len(r["certificate"]) == r["depth"]
    DOMAIN.check_bank(bank)


def test_a_cell_asking_for_more_states_than_its_depth_holds_is_refused():
    # 5 disks, classic, d* = 15: 2**4 = 16 states; 12 + 4 are all of them, one more is too many
    with pytest.raises(
        QuotaError,
        match=r"other-n5-classic-d15: only 4 states of 5 disks are 15 moves from the goal under "
        r"classic \(less those earlier cells took\), fewer than the 5 asked for",
    ):
        build_bank(
            HanoiDesign(1, (HanoiCell("primary", 5, "classic", 15, 12), HanoiCell("other", 5, "classic", 15, 5)))
        )
    with pytest.raises(QuotaError, match="only 1 state "):
        build_bank(HanoiDesign(1, (HanoiCell("primary", 3, "adjacent", 9, 2),)))


@pytest.mark.parametrize(
    "cell, message",
    [
        ({"cohort": "p", "disks": 11, "rule": "classic", "depth": 3, "count": 1}, r"cells\[0\].disks must be .* 1..10"),
        (
            {"cohort": "p", "disks": 3, "rule": "classic", "depth": 8, "count": 1},
            r"depth must be .* 0..7 \(the deepest",
        ),
        (
            {"cohort": "p", "disks": 3, "rule": "diagonal", "depth": 3, "count": 1},
            "rule must be one of classic, adjacent",
        ),
        ({"cohort": "p q", "disks": 3, "rule": "classic", "depth": 3, "count": 1}, "cohort must be"),
        ({"cohort": "p", "disks": 3, "rule": "classic", "depth": 3}, r"missing \['count'\]"),
        ({"cohort": "p", "disks": 3, "rule": "classic", "depth": 3, "count": 1, "k": 2}, r"unknown keys \['k'\]"),
    ],
)
def test_design_files_are_checked(tmp_path, cell, message):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"seed": 1, "cells": [cell]}))
    with pytest.raises(UserError, match=message):
        load_design(str(path))


def test_a_design_file_and_the_seed_override(tmp_path):
    spec = {"seed": 3, "cells": [{"cohort": "p", "disks": 3, "rule": "adjacent", "depth": 26, "count": 1}]}
    path = tmp_path / "d.json"
    path.write_text(json.dumps(spec))
    assert load_design(str(path)) == design_from_dict(spec) == HanoiDesign(3, (HanoiCell("p", 3, "adjacent", 26, 1),))
    assert load_design(str(path), seed=9).seed == 9
    with pytest.raises(UserError, match="repeats cohort"):
        design_from_dict({"seed": 1, "cells": spec["cells"] * 2})


# ---- the check every reader relies on --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bank():
    return build_bank(DESIGN)


@pytest.mark.parametrize(
    "column, row, value, message",
    [
        ("depth", 3, 14, "depth is 14 but the certificate has 15 moves"),
        ("start", 5, "AAAA", "start 'AAAA' gives 4 disks, the row says 5"),
        ("start", 6, "AXAAA", "holds a letter that is not a peg"),
        ("rule", 7, "diagonal", "rule is 'diagonal', must be one of classic, adjacent"),
        ("disks", 8, 0, "disks is 0, must be 1..10"),
        ("certificate", 9, "abcdefabcdefabz", "a character that is not an action symbol"),
        ("board_id", 10, "primary-n5-classic-d15-000", "appears more than once"),
        ("board_id", 11, None, "board_id is missing"),
    ],
)
def test_the_check_names_the_row_and_board_of_a_damaged_row(bank, column, row, value, message):
    values = bank.column(column).to_pylist()
    values[row] = value
    damaged = with_column(bank, column, values)
    with pytest.raises(InputError, match=message) as err:
        DOMAIN.check_bank(damaged, source="b.parquet")
    board = damaged.column("board_id")[row].as_py()
    assert f"b.parquet: row {row + 1}" in str(err.value)
    assert board is None or f"(board_id {board!r})" in str(err.value) or "board_id" in str(err.value)


def test_the_check_refuses_a_depth_that_is_not_the_start_distance(bank):
    # a start of the same length at another distance, its certificate the right length but for another state
    rows = bank.to_pylist()
    rows[2]["start"] = rows[2]["start"][:-1] + ("A" if rows[2]["start"][-1] != "A" else "B")
    damaged = pa.Table.from_pylist(rows, schema=bank.schema)
    with pytest.raises(
        InputError,
        match=r"row 3 \(board_id 'primary-n5-classic-d15-002'\): depth is 15 but the "
        r"start is \d+ moves from the goal",
    ):
        DOMAIN.check_bank(damaged, source="b.parquet")


def test_the_schema_check_alone_and_missing_columns(bank):
    wrong_depth = with_column(bank, "depth", [1] * bank.num_rows)
    assert DOMAIN.check_bank(wrong_depth, meaning=False).num_rows == bank.num_rows  # bank verify names the rows
    with pytest.raises(InputError, match=r"not a Hanoi bank: its rows lack columns \['start'\]"):
        DOMAIN.check_bank(bank.drop_columns(["start"]))
    with pytest.raises(InputError, match="column depth must be integers"):
        DOMAIN.check_bank(bank.set_column(4, "depth", pa.array(["15"] * bank.num_rows)))


# ---- the independent verifier ----------------------------------------------------------------------------------


def test_verify_passes_a_built_bank(bank):
    assert verify_hanoi_bank(bank) == []
    assert verify_hanoi_bank(DOMAIN.demo_bank()) == []


def test_verify_names_a_tampered_certificate_and_depth(bank):
    rows = bank.to_pylist()
    rows[0]["certificate"] = rows[0]["certificate"][::-1]  # the same moves backwards: illegal at once
    rows[1]["depth"] += 2
    rows[1]["certificate"] += "ac"  # length right, depth wrong
    rows[2]["certificate"] = rows[2]["certificate"][:-2] + "ff"  # legal? not to the goal
    rows[3]["board_id"] = rows[4]["board_id"]
    rows[12]["start"] = "CAB"
    failures = dict(verify_hanoi_bank(pa.Table.from_pylist(rows, schema=bank.schema)))
    assert failures.keys() == {
        "primary-n5-classic-d15-000",
        "primary-n5-classic-d15-001",
        "primary-n5-classic-d15-002",
        "primary-n5-classic-d15-004",
        "primary-n4-adjacent-d40-000",
    }
    assert "certificate move 1" in failures["primary-n5-classic-d15-000"]
    assert failures["primary-n5-classic-d15-001"] == (
        "depth is 17 but a breadth-first search puts the start 15 moves from the goal"
    )
    assert "board_id repeats row 4" in failures["primary-n5-classic-d15-004"]
    assert failures["primary-n4-adjacent-d40-000"] == "start 'CAB' is not 4 peg letters A, B, C"
