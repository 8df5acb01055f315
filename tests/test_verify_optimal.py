"""``bank verify`` says which search certificates it proved optimal: deep boards are named UNPROVEN
(exit 3) unless the plain-Python IDA* proves them; a false, longer certificate on a deep board is
caught by that proof. The IDA* is checked against a full breadth-first search of 3 x 3 layouts."""

from __future__ import annotations

import random

import pandas as pd
import pytest

import fastspe.domains.sliding.bank.search as bank_search
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.cli import main
from fastspe.domains.sliding.bank.design import design_from_dict
from fastspe.domains.sliding.verify.bank import OPTIMALITY_BOUND, verify_bank
from fastspe.domains.sliding.verify.optimal import optimality, shorter_plan

from . import naive_solver

SPEC = {
    "seed": 11,
    "rows": 3,
    "cols": 3,
    "cells": [
        {"cohort": "primary", "depth": 12, "count": 3},
        {"cohort": "retreat", "depth": 12, "retreat": 2, "count": 3},
    ],
}


@pytest.mark.parametrize("blocks", [(), (2,)])
def test_ida_matches_breadth_first_search(blocks):
    dist = naive_solver.distances_to_goal(3, 3, blocks)
    deepest = max(dist.values())
    boards = random.Random(7).sample(sorted(dist), 60) + [b for b, d in dist.items() if d >= deepest - 1]
    for board in boards:
        d = dist[board]
        assert shorter_plan(board, 3, 3, blocks, d + 4) == d
        assert shorter_plan(board, 3, 3, blocks, d - 2) is None  # proves the plan of d moves optimal
        assert shorter_plan(board, 3, 3, blocks, d - 1) is None


def _deep_row(template: pd.Series, board: tuple, plan: str, board_id: str) -> dict:
    """A search-certified row for ``board`` with ``plan`` as its certificate (true or not)."""
    dist = naive_solver.distances_to_goal(3, 3, ())
    h = sum(abs(c // 3 - (v - 1) // 3) + abs(c % 3 - (v - 1) % 3) for c, v in enumerate(board) if v > 0)
    assert naive_solver.apply_plan(board, plan, 3, 3, ()) == naive_solver.goal_of(3, 3, ()) and dist[board] <= len(plan)
    return {
        **template.to_dict(),
        "board_id": board_id,
        "initial": list(board),
        "certificate": plan,
        "depth": len(plan),
        "h": h,
        "retreat": len(plan) - h,
        "certificate_kind": "search",
    }


@pytest.fixture(scope="module")
def bank_with_deep_boards(tmp_path_factory) -> dict:
    """A 3 x 3 retreat bank plus a true deep certificate (d* = 31) and a false one (d* = 29, certified
    with 31 moves: a step out and back first); three bank files: proper, false, both."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bank_search, "_oracle", lambda: naive_solver.solve_boards)
        bank = build_bank(design_from_dict(SPEC))
    dist = naive_solver.distances_to_goal(3, 3, ())
    template = bank[bank["certificate_kind"] == "search"].iloc[0]
    true_board = min(b for b, d in dist.items() if d == 31)
    shallow = min(b for b, d in dist.items() if d == 29)
    plan = naive_solver.optimal_plan(shallow, 3, 3, ())
    step = next(m for m in "UDLR" if naive_solver._move(shallow, 3, 3, (), m))
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}[step]
    rows = {
        "true": _deep_row(template, true_board, naive_solver.optimal_plan(true_board, 3, 3, ()), "deep-true"),
        "false": _deep_row(template, shallow, step + back + plan, "deep-false"),
    }
    folder = tmp_path_factory.mktemp("deep")
    files = {}
    for name, extra in {"proper": ["true"], "false": ["false"], "both": ["true", "false"]}.items():
        frame = pd.concat([bank.astype({"initial": object}), pd.DataFrame([rows[r] for r in extra])], ignore_index=True)
        files[name] = folder / f"{name}.parquet"
        write_bank(frame, files[name])
        files[f"{name}-frame"] = frame
    return files


def test_the_library_names_unproven_and_refutes_on_request(bank_with_deep_boards):
    bank = bank_with_deep_boards["both-frame"]
    assert OPTIMALITY_BOUND == 30 and verify_bank(bank) == []  # both replay: the BFS bound cannot see the lie
    status = optimality(bank, [])
    assert status.unproven == [("deep-true", 31), ("deep-false", 31)] and not status.by_ida and not status.refuted
    assert len(status.by_bfs) == 3
    ticks = []
    status = optimality(bank, [], prove_depth=31, progress=lambda done, total, **c: ticks.append((done, total)))
    assert status.by_ida == ["deep-true"] and status.unproven == []
    assert status.refuted == [
        ("deep-false", "a plan of 29 moves exists: the certificate's 31 moves are not optimal (IDA* proof)")
    ]
    assert ticks[0] == (0, 2) and ticks[-1] == (2, 2)
    assert optimality(bank, [], prove_ids=["deep-true"]).unproven == [("deep-false", 31)]
    assert optimality(bank, [("deep-false", "x")]).unproven == [("deep-true", 31)]  # failed boards are not counted
    with pytest.raises(ValueError, match="--prove-board 'primary-k0-d12-bnone-000' is not a search-certified board"):
        optimality(bank, [], prove_ids=["primary-k0-d12-bnone-000"])


def test_cli_a_false_deep_certificate_is_not_passed(bank_with_deep_boards, capsys):
    path = str(bank_with_deep_boards["false"])
    assert main(["bank", "verify", path]) == 3
    out, err = capsys.readouterr()
    assert "UNPROVEN deep-false: d* = 31 > 30" in out
    assert (
        "3 search boards: plans optimal (proven: 3 by BFS up to d* = 30); 1 not proven optimal (d* > 30): deep-false"
        in out
        and out.startswith("UNPROVEN")
        and "NOT PROVEN: all 7 boards pass" in out
    )
    assert "--prove-depth 31" in err and "--accept-unproven" in err
    assert main(["bank", "verify", path, "--accept-unproven"]) == 0
    assert "ok (unproven accepted)" in capsys.readouterr().out
    assert main(["bank", "verify", path, "--prove-depth", "31"]) == 1
    out, err = capsys.readouterr()
    assert "FAIL deep-false: a plan of 29 moves exists: the certificate's 31 moves are not optimal" in out
    assert "1 of 7 boards failed verification" in err
    assert main(["bank", "verify", path, "--prove-board", "deep-false", "--accept-unproven"]) == 1


def test_cli_a_proper_deep_bank(bank_with_deep_boards, capsys):
    path = str(bank_with_deep_boards["proper"])
    assert main(["bank", "verify", path]) == 3
    assert "UNPROVEN deep-true" in capsys.readouterr().out
    assert main(["bank", "verify", path, "--prove-board", "deep-true"]) == 0
    out = capsys.readouterr().out
    assert (
        "ok: all 7 boards verified" in out
        and "4 search boards: plans optimal (proven: 3 by BFS up to d* = 30, 1 by IDA*)" in out
        and "UNPROVEN" not in out
    )
    both = str(bank_with_deep_boards["both"])
    assert main(["bank", "verify", both, "--prove-board", "deep-true"]) == 3  # the other one stays unproven
    assert "1 not proven optimal (d* > 30): deep-false" in capsys.readouterr().out
    assert main(["bank", "verify", path, "--prove-board", "nope"]) == 2
    assert "--prove-board 'nope' is not a search-certified board of this bank" in capsys.readouterr().err


def test_a_4x4_deep_board_with_a_longer_certificate(tmp_path, capsys):
    from fastspe.domains.sliding.bank.design import paper_design

    bank = build_bank(paper_design()).iloc[::20].copy()  # 20 boards, d* from 10 to 60
    bank["certificate_kind"], bank["retreat"] = "search", 0
    i = int((bank["depth"] == 40).to_numpy().argmax())
    row = bank.iloc[i]
    board = tuple(int(v) for v in row["initial"])
    blocks = tuple(row["blocks"])
    step = next(m for m in "UDLR" if naive_solver._move(board, 4, 4, blocks, m))
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}[step]
    j = bank.index[i]
    bank.at[j, "certificate"] = step + back + row["certificate"]
    bank.at[j, "depth"], bank.at[j, "retreat"] = 42, 2
    write_bank(bank, tmp_path / "bank.parquet")
    deep = int((bank["depth"] > 30).sum())
    assert main(["bank", "verify", str(tmp_path / "bank.parquet")]) == 3
    out = capsys.readouterr().out
    assert f"UNPROVEN {row['board_id']}: d* = 42" in out and f"{deep} not proven optimal (d* > 30)" in out
    assert main(["bank", "verify", str(tmp_path / "bank.parquet"), "--prove-board", row["board_id"]]) == 1
    assert f"FAIL {row['board_id']}: a plan of 40 moves exists" in capsys.readouterr().out
