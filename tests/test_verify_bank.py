"""The independent verifier accepts sound banks and names each tampered row."""

from __future__ import annotations

import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.domains.sliding.verify.bank import verify_bank


@pytest.fixture()
def bank():
    return build_bank(paper_design()).iloc[:60].copy()


def _tamper(bank, row, column, value):
    if isinstance(value, list):  # boards are Arrow-backed int8 lists: edit them as a plain object column
        bank[column] = bank[column].astype(object)
    bank.at[bank.index[row], column] = value
    return bank.iloc[row]["board_id"]


def test_sound_bank_passes(bank):
    assert verify_bank(bank) == []


def test_swapped_tile(bank):
    board = list(bank.iloc[4]["initial"])
    a, b = [i for i, v in enumerate(board) if v > 0][:2]
    board[a], board[b] = board[b], board[a]
    bid = _tamper(bank, 4, "initial", board)
    assert [f[0] for f in verify_bank(bank)] == [bid]


def test_shortened_certificate(bank):
    bid = _tamper(bank, 7, "certificate", bank.iloc[7]["certificate"][:-1])
    failures = verify_bank(bank)
    assert failures == [(bid, "h = 10, depth = 10 and len(certificate) = 9 differ")]


def test_wrong_depth(bank):
    bid = _tamper(bank, 30, "depth", 21)
    assert [f[0] for f in verify_bank(bank)] == [bid]


def test_wrong_h_and_depth_together(bank):
    _tamper(bank, 2, "depth", 12)
    bid = _tamper(bank, 2, "h", 12)
    assert verify_bank(bank) == [(bid, "h = 12, depth = 12 and len(certificate) = 10 differ")]


def test_wrong_goal(bank):
    goal = list(bank.iloc[9]["goal"])
    goal[0], goal[1] = goal[1], goal[0]
    bid = _tamper(bank, 9, "goal", goal)
    assert verify_bank(bank)[0][0] == bid and "goal" in verify_bank(bank)[0][1]


def test_certificate_that_misses_the_goal(bank):
    cert = bank.iloc[12]["certificate"]
    bid = _tamper(bank, 12, "certificate", cert[::-1])
    failures = verify_bank(bank)
    assert [f[0] for f in failures] == [bid]


def test_repeated_board_and_id(bank):
    _tamper(bank, 13, "initial", list(bank.iloc[11]["initial"]))
    bank.at[bank.index[13], "certificate"] = bank.iloc[11]["certificate"]
    bank.at[bank.index[14], "board_id"] = bank.iloc[15]["board_id"]
    failures = dict(verify_bank(bank))
    assert "the same initial board as" in failures[bank.iloc[13]["board_id"]]
    assert failures[bank.iloc[15]["board_id"]] == "board_id appears more than once"
