"""Retreat cohorts: design cells with d* - h > 0, built through an exact solver (here the plain-Python
BFS of ``tests.naive_solver`` in place of ``fastspe.domains.sliding.planners.solver``), checked, verified and tabulated."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import fastspe.domains.sliding.bank.search as bank_search
import fastspe.domains.sliding.verify.bank as verify_module
from fastspe.domains.designs import QuotaError
from fastspe.domains.sliding.bank.build import build_bank, build_bank_table
from fastspe.boundary.banks import bank_to_table, read_bank, write_bank
from fastspe.boundary.banks import check_bank_table
from fastspe.boundary.errors import InputError
from fastspe.domains.sliding.bank.design import DesignCell, design_from_dict
from fastspe.domains.sliding.kernels.walks import propose_random_walks
from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.retreat_table import bank_retreats, retreat_table
from fastspe.domains.sliding.verify.bank import verify_bank
from fastspe.domains.sliding.verify.optimal import optimality

from . import naive_bank, naive_solver
from .test_metrics import numbered, verdict

SPEC = {
    "seed": 11,
    "rows": 3,
    "cols": 3,
    "cells": [
        {"cohort": "primary", "depth": 12, "count": 4},
        {"cohort": "retreat", "depth": 12, "retreat": 0, "count": 3},
        {"cohort": "retreat", "depth": 12, "retreat": 2, "count": 6},
        {"cohort": "retreat", "depth": 16, "retreat": 4, "count": 6},
        {"cohort": "retreat", "blocks": [2], "depth": 14, "retreat": 4, "count": 3},
    ],
}


@pytest.fixture(autouse=True)
def naive_oracle(monkeypatch):
    monkeypatch.setattr(bank_search, "_oracle", lambda: naive_solver.solve_boards)


def _build(spec=SPEC, progress=None) -> pa.Table:
    return build_bank_table(design_from_dict(spec), progress)


@pytest.fixture(scope="module")
def retreat_bank() -> pd.DataFrame:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bank_search, "_oracle", lambda: naive_solver.solve_boards)
        return build_bank(design_from_dict(SPEC))


# -- design ----------------------------------------------------------------------------------------


def _cell_error(**cell) -> str:
    spec = {"seed": 1, "rows": 3, "cols": 3, "cells": [{"cohort": "r", "depth": 12, "count": 1, **cell}]}
    with pytest.raises(ValueError) as err:
        design_from_dict(spec)
    return str(err.value)


def test_design_refuses_bad_retreats():
    assert "cells[0].retreat 3 is odd" in _cell_error(retreat=3)
    assert "cells[0].retreat must be an even integer >= 0" in _cell_error(retreat=-2)
    assert "cells[0].retreat must be an even integer >= 0" in _cell_error(retreat=2.0)
    assert "cells[0].retreat must be an even integer >= 0" in _cell_error(retreat=True)
    assert "must be below depth 12" in _cell_error(retreat=12)


def test_design_reads_retreat_cells():
    design = design_from_dict(SPEC)
    assert [c.retreat for c in design.cells] == [None, 0, 2, 4, 4]
    assert design.cells[2].name == "retreat-k0-d12-r2-bnone"
    assert design.cells[0].name == "primary-k0-d12-bnone"
    # the same cohort, layout and depth at two retreats are two cells; the same retreat twice is refused
    cells = [
        {"cohort": "r", "depth": 12, "retreat": 2, "count": 1},
        {"cohort": "r", "depth": 12, "retreat": 2, "count": 1},
    ]
    with pytest.raises(ValueError, match=r"cells\[1\] repeats .* retreat 2"):
        design_from_dict({"seed": 1, "rows": 3, "cols": 3, "cells": cells})


# -- the walk kernel and its twin ------------------------------------------------------------------


def naive_random_walk(layout: Layout, length: int, seed: int, stream: int, index: int) -> list[int]:
    key = naive_bank.stream_key(seed, stream, index)
    nbr = naive_bank.neighbours(layout.rows, layout.cols, set(layout.blocks))
    board = [int(v) for v in layout.goal]
    blank, back = board.index(0), -1
    for step in range(length):
        options = [t for t in nbr[blank] if t >= 0 and t != back]
        target = options[naive_bank.random_below(key, step, len(options))] if options else back
        board[blank], board[target] = board[target], 0
        back, blank = blank, target
    return board


@pytest.mark.parametrize("blocks", [(), (2,), (4,)])
def test_random_walk_kernel_matches_twin(blocks):
    layout = Layout(3, 3, blocks)
    boards = propose_random_walks(layout.goal, layout.moves, 13, 5, 2, 100, 40)
    assert [b.tolist() for b in boards] == [naive_random_walk(layout, 13, 5, 2, 100 + i) for i in range(40)]


# -- the bank --------------------------------------------------------------------------------------


def test_every_board_is_consistent_and_optimal(retreat_bank):
    bank = retreat_bank
    assert list(bank.columns[-2:]) == ["retreat", "certificate_kind"]
    search = bank["certificate_kind"] == "search"
    # retreat 0 cells are h-walks (d* = h needs no search): 4 primary + 3 retreat-0 boards
    assert search.sum() == 15 and (bank.loc[search, "retreat"] > 0).all()
    assert (bank.loc[~search, "retreat"] == 0).all()
    for row in bank.itertuples():
        layout = Layout(int(row.rows), int(row.cols), tuple(row.blocks))
        board = tuple(int(v) for v in row.initial)
        assert layout.h(np.array(board)) == row.h
        assert (
            row.retreat
            == row.depth - row.h
            == (0 if row.certificate_kind == "h-walk" else int(row.board_id.split("-r")[1].split("-")[0]))
        )
        assert len(row.certificate) == row.depth
        assert naive_solver.apply_plan(
            board, row.certificate, layout.rows, layout.cols, layout.blocks
        ) == naive_solver.goal_of(layout.rows, layout.cols, layout.blocks)
        assert naive_solver.distances_to_goal(layout.rows, layout.cols, layout.blocks)[board] == row.depth
    key = bank["initial"].map(lambda b: tuple(b)).astype(str) + bank["blocks"].astype(str)
    assert not key.duplicated().any()  # distinct, also across the h-walk and retreat-0 cells at depth 12
    assert (bank.groupby("board_id").size() == 1).all()


def test_same_seed_same_bytes(tmp_path, retreat_bank):
    write_bank(retreat_bank, tmp_path / "a.parquet")
    write_bank(_build(), tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    back = read_bank(tmp_path / "a.parquet")
    pd.testing.assert_frame_equal(
        back[["board_id", "h", "depth", "retreat", "certificate_kind"]],
        retreat_bank[["board_id", "h", "depth", "retreat", "certificate_kind"]],
    )


def test_batch_sizes_do_not_change_the_bank(monkeypatch, retreat_bank):
    monkeypatch.setattr(bank_search, "MIN_BATCH", 1)
    monkeypatch.setattr(bank_search, "MAX_BATCH", 3)
    monkeypatch.setattr(bank_search, "FIRST_CHUNK", 7)
    assert _build().equals(bank_to_table(retreat_bank))


def test_progress_reaches_the_total():
    seen = []
    _build(progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (22, 22) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_quota_error_names_the_cell():
    cell = DesignCell("r", Layout(3, 3, ()), 20, 50, retreat=6)
    with pytest.raises(QuotaError, match=r"cell r-k0-d20-r6-bnone: found \d+ distinct boards with d\* = 20 and h = 14"):
        bank_search.build_search_cell(cell, 1, 0, cap=300)


def test_a_cell_with_no_such_boards_fails():
    # blocks {5,10} at d* = 14 have boards with retreat 0 and 4 only (a full BFS of the layout says so)
    spec = {"seed": 5, "cells": [{"cohort": "retreat", "blocks": [5, 10], "depth": 14, "retreat": 2, "count": 1}]}
    with pytest.raises(
        QuotaError,
        match=r"cell retreat-k2-d14-r2-b5.10: found 0 distinct boards .* in 10,000,000 "
        r"random walks \(0 solved\)",
    ):
        build_bank(design_from_dict(spec))


def test_old_banks_still_read(tmp_path):
    plain = _build({"seed": 1, "rows": 3, "cols": 3, "cells": [{"cohort": "primary", "depth": 10, "count": 5}]})
    assert "retreat" not in plain.column_names and "certificate_kind" not in plain.column_names
    write_bank(plain, tmp_path / "old.jsonl")
    bank = read_bank(tmp_path / "old.jsonl")
    assert bank_retreats(bank)["retreat"].tolist() == [0] * 5 and not bank_retreats(bank)["searched"].any()
    assert verify_bank(bank) == [] and optimality(bank, []).unproven == []


def test_jsonl_round_trip(tmp_path, retreat_bank):
    write_bank(retreat_bank, tmp_path / "r.jsonl")
    back = read_bank(tmp_path / "r.jsonl")
    assert back["retreat"].tolist() == retreat_bank["retreat"].tolist()
    assert back["certificate_kind"].tolist() == retreat_bank["certificate_kind"].tolist()


def test_a_4x4_retreat_bank(tmp_path):
    spec = {
        "seed": 5,
        "cells": [
            {"cohort": "retreat", "depth": 12, "retreat": 4, "count": 8},
            {"cohort": "retreat", "blocks": [5, 10], "depth": 14, "retreat": 4, "count": 8},
        ],
    }
    bank = build_bank(design_from_dict(spec))
    for row in bank.itertuples():
        board, blocks = tuple(int(v) for v in row.initial), tuple(row.blocks)
        assert naive_solver.distances_to_goal(4, 4, blocks)[board] == row.depth == row.h + row.retreat
        assert naive_solver.apply_plan(board, row.certificate, 4, 4, blocks) == naive_solver.goal_of(4, 4, blocks)
    assert verify_bank(bank) == []


def test_cli_builds_and_verifies_a_retreat_bank(tmp_path, capsys):
    from fastspe.cli import main

    design = tmp_path / "retreat.json"
    design.write_text(json.dumps(SPEC))
    out = tmp_path / "retreat.parquet"
    assert main(["bank", "build", "--design", str(design), "--out", str(out)]) == 0
    assert main(["bank", "verify", str(out)]) == 0
    assert "all 22 boards verified" in capsys.readouterr().out
    assert read_bank(out)["certificate_kind"].value_counts().to_dict() == {"search": 15, "h-walk": 7}


# -- the bank check --------------------------------------------------------------------------------


def _edited(bank: pd.DataFrame, row: int, **values) -> pa.Table:
    bank = bank.copy()
    for column, value in values.items():
        bank.at[bank.index[row], column] = value
    return bank_to_table(bank)


def _search_row(bank) -> int:
    return int(np.flatnonzero((bank["certificate_kind"] == "search").to_numpy() & (bank["retreat"] > 0).to_numpy())[0])


def test_check_allows_h_below_depth_only_for_search(retreat_bank):
    i = _search_row(retreat_bank)
    bid = retreat_bank["board_id"].iloc[i]
    with pytest.raises(
        InputError, match=rf"row {i + 1} \(board_id '{bid}'\): depth is \d+ but h is \d+: an h-certified"
    ):
        _edited(retreat_bank, i, certificate_kind="h-walk")
    with pytest.raises(InputError, match=rf"row {i + 1} \(board_id '{bid}'\): retreat is 0 but depth - h is"):
        _edited(retreat_bank, i, retreat=0)
    with pytest.raises(InputError, match=r"certificate_kind 'bfs' is not one of h-walk, search"):
        _edited(retreat_bank, i, certificate_kind="bfs")
    cert = retreat_bank["certificate"].iloc[i]
    with pytest.raises(InputError, match=r"differ in parity"):
        _edited(
            retreat_bank, i, depth=len(cert) + 1, certificate=cert + "U", retreat=retreat_bank["retreat"].iloc[i] + 1
        )
    with pytest.raises(InputError, match=r"retreat is missing \(null\)"):
        _edited(retreat_bank, i, retreat=None)


def test_check_keeps_h_walk_rules(retreat_bank):
    h_walk = bank_to_table(retreat_bank).filter(
        pa.compute.equal(bank_to_table(retreat_bank)["certificate_kind"], "h-walk")
    )
    table = h_walk.drop_columns(["retreat", "certificate_kind"])
    check_bank_table(table)
    bad = table.set_column(table.schema.get_field_index("h"), "h", pa.array([10] + [12] * (len(table) - 1), pa.int64()))
    with pytest.raises(
        InputError, match=r"row 1 \(board_id 'primary-k0-d12-bnone-000'\): h is 10 but h\(initial\) is 12"
    ):
        check_bank_table(bad)


# -- bank verify -----------------------------------------------------------------------------------


def test_verify_passes_the_retreat_bank(retreat_bank):
    assert verify_bank(retreat_bank) == []
    assert optimality(retreat_bank, []).unproven == []


def _inverse(letter: str) -> str:
    return {"U": "D", "D": "U", "L": "R", "R": "L"}[letter]


def _detour(bank: pd.DataFrame, i: int) -> pd.DataFrame:
    """Row i with a legal plan two moves longer than optimal (a step out and back first)."""
    row = bank.iloc[i]
    layout = Layout(int(row["rows"]), int(row["cols"]), tuple(row["blocks"]))
    board = tuple(int(v) for v in row["initial"])
    step = next(m for m in "UDLR" if naive_solver._move(board, layout.rows, layout.cols, layout.blocks, m))
    bank = bank.copy()
    j = bank.index[i]
    bank.at[j, "certificate"] = step + _inverse(step) + row["certificate"]
    bank.at[j, "depth"] = row["depth"] + 2
    bank.at[j, "retreat"] = row["retreat"] + 2
    return bank


def test_verify_catches_a_longer_plan(retreat_bank):
    i = _search_row(retreat_bank)
    bad = _detour(retreat_bank, i)
    depth = int(retreat_bank["depth"].iloc[i])
    assert verify_bank(bad) == [
        (
            bad["board_id"].iloc[i],
            f"a plan of {depth} moves exists: the certificate's {depth + 2} moves are not optimal",
        )
    ]


def test_verify_states_the_bound(monkeypatch, retreat_bank):
    monkeypatch.setattr(verify_module, "OPTIMALITY_BOUND", 14)
    i = int(np.flatnonzero((retreat_bank["depth"] == 16).to_numpy())[0])
    bad = _detour(retreat_bank, i)
    assert verify_bank(bad) == []  # depth 18 > 14: not proved optimal by the BFS, and said so
    assert sorted(d for _, d in optimality(bad, []).unproven) == [16] * 5 + [18]
    depth = int(retreat_bank["depth"].iloc[i])
    assert optimality(bad, [], prove_depth=18).refuted == [
        (
            bad["board_id"].iloc[i],
            f"a plan of {depth} moves exists: the certificate's {depth + 2} moves are not optimal (IDA* proof)",
        )
    ]


def test_verify_catches_wrong_h_and_kind(retreat_bank):
    i = _search_row(retreat_bank)
    bid = retreat_bank["board_id"].iloc[i]
    row = retreat_bank.iloc[i]
    wrong_h = retreat_bank.copy()
    wrong_h.at[wrong_h.index[i], "h"] = row["h"] + 2
    wrong_h.at[wrong_h.index[i], "retreat"] = row["retreat"] - 2
    assert verify_bank(wrong_h) == [(bid, f"h(initial) is {row['h']}, not the recorded {row['h'] + 2}")]
    wrong_kind = retreat_bank.copy()
    wrong_kind.at[wrong_kind.index[i], "certificate_kind"] = "h-walk"
    assert verify_bank(wrong_kind) == [
        (bid, f"h = {row['h']}, depth = {row['depth']} and len(certificate) = {row['depth']} differ")
    ]
    wrong_retreat = retreat_bank.copy()
    wrong_retreat.at[wrong_retreat.index[i], "retreat"] = 0
    assert verify_bank(wrong_retreat) == [(bid, f"retreat = 0 but depth - h = {row['retreat']}")]


# -- the retreat table -----------------------------------------------------------------------------


def test_retreat_table_by_hand():
    bank = pd.DataFrame(
        {
            "board_id": ["a", "b", "c", "d", "e"],
            "depth": [12, 12, 12, 16, 20],
            "retreat": [0, 2, 2, 4, 0],
            "certificate_kind": ["h-walk", "search", "search", "search", "h-walk"],
        }
    )
    rows = [
        verdict("M", "a", 12, "complete", 12),
        verdict("M", "a", 12, "illegal", 3),  # retreat 0
        verdict("M", "b", 12, "complete", 24),
        verdict("M", "c", 12, "legal_noncompletion", 5),  # retreat 2
        verdict("M", "c", 12, "complete", 16),
        verdict("M", "d", 16, "complete", 16),  # depth 16, retreat 4
        verdict("M", "e", 20, "complete", 20),  # depth 20 has no search boards: left out
        verdict("X", "a", 12, "complete", 12),  # a condition not asked for
    ]
    table = retreat_table(numbered(rows), bank, ["M"])
    frame = table.frame
    assert frame[["depth", "retreat", "condition", "N"]].values.tolist() == [
        [12, 0, "M", 2],
        [12, 2, "M", 3],
        [16, 4, "M", 1],
    ]
    assert frame["C"].tolist() == pytest.approx([0.5, 2 / 3, 1.0])
    assert frame["E"].tolist() == pytest.approx([1.0, (0.5 + 0.75) / 2, 1.0])
    assert frame["SPE"].tolist() == pytest.approx([0.5, (0.5 + 0.75) / 3, 1.0])
    assert table.name == "by_retreat" and table.formatted()["C"].tolist() == ["0.500", "0.667", "1.000"]


def test_retreat_table_order_and_absence():
    bank = pd.DataFrame(
        {"board_id": ["a", "b"], "depth": [12, 12], "retreat": [0, 2], "certificate_kind": ["h-walk", "search"]}
    )
    rows = [verdict(c, b, 12, "complete", 12 if b == "a" else 14) for c in ("A", "B") for b in ("a", "b")]
    frame = retreat_table(numbered(rows), bank, ["B", "A"]).frame
    assert frame[["retreat", "condition"]].values.tolist() == [[0, "B"], [0, "A"], [2, "B"], [2, "A"]]
    assert retreat_table(numbered(rows), bank.drop(columns=["retreat", "certificate_kind"]), ["A"]) is None
    with pytest.raises(InputError, match="board_id 'b' is not in the bank"):
        retreat_table(numbered(rows), bank.iloc[:1].assign(certificate_kind="search"), ["A"])


def test_the_report_shows_the_retreat_table(tmp_path, retreat_bank, capsys):
    from fastspe.domains.sliding.planners.baselines import baseline_responses
    from fastspe.boundary.verdict_files import write_verdicts
    from fastspe.cli import main
    from fastspe.scoring.score import score_responses

    write_bank(retreat_bank, tmp_path / "bank.parquet")
    answers = pd.concat([baseline_responses(retreat_bank, p) for p in ("oracle", "greedy")], ignore_index=True)
    write_verdicts(score_responses(retreat_bank, answers), tmp_path / "v.parquet")
    assert (
        main(
            [
                "report",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--verdicts",
                str(tmp_path / "v.parquet"),
                "--out",
                str(tmp_path / "rep"),
                "--draws",
                "100",
                "--no-figures",
            ]
        )
        == 0
    )
    table = pd.read_csv(tmp_path / "rep" / "tables" / "by_retreat.csv")
    assert {"retreat", "depth", "condition"} <= set(table.columns)
    assert set(table["retreat"]) >= {0, 2, 4}
    oracle = table[table["condition"] == "baseline:oracle"]
    assert (oracle["C"] == 1.0).all()  # the certificate is optimal at every retreat
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "### Results by forced heuristic retreat" in md and "`tables/by_retreat.csv`" in md
    capsys.readouterr()
    assert main(["bank", "verify", str(tmp_path / "bank.parquet")]) == 0
    assert (
        "search boards: plans optimal (proven: 15 by BFS up to d* = 30); retreat = depth - h" in capsys.readouterr().out
    )
