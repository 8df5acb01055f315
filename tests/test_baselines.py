"""Baseline planners: what each one promises, replayed with the plain-Python twin's rules."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import numpy as np
import pandas as pd
import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.planners.baselines import PLANNERS, answer_texts, baseline_responses, planner_name
from fastspe.domains.baselines import RESPONSE_COLUMNS
from fastspe.domains.sliding.bank.design import paper_design

from .naive_planners import Grid, replay

ANSWER = re.compile(r"^MOVES: [UDLR](,[UDLR])*$")


@lru_cache(maxsize=None)
def bank():
    return build_bank(paper_design())


@lru_cache(maxsize=None)
def responses(planner, trials=3, seed=0):
    return baseline_responses(bank(), planner, trials=trials, seed=seed)


@lru_cache(maxsize=None)
def grid(rows, cols, blocks):
    return Grid(rows, cols, blocks)


@lru_cache(maxsize=None)
def outcomes(planner):
    """(board row, letters, status, final board) for every response of ``planner``."""
    b = bank().set_index("board_id")
    out = []
    for board_id, text in zip(responses(planner)["board_id"], responses(planner)["response"]):
        row = b.loc[board_id]
        letters = text.removeprefix("MOVES: ").replace(",", "")
        g = grid(int(row["rows"]), int(row["cols"]), tuple(row["blocks"]))
        status, final = replay(g, row["initial"], letters)
        out.append((row, letters, status, final, g))
    return out


@pytest.mark.parametrize("planner", list(PLANNERS))
def test_shape_columns_and_exact_answer_form(planner):
    r = responses(planner)
    b = bank()
    assert list(r.columns) == RESPONSE_COLUMNS
    assert len(r) == 3 * len(b)
    assert (r["condition"] == f"baseline:{planner}").all()
    assert r["board_id"].tolist() == np.repeat(b["board_id"].to_numpy(), 3).tolist()
    assert r["trial"].tolist() == [0, 1, 2] * len(b)
    assert (r["finish_reason"] == "stop").all() and (r["status"] == "ok").all() and (r["attempt"] == 1).all()
    bad = [t for t in r["response"] if not ANSWER.match(t)]
    assert not bad, bad[:3]


def test_oracle_is_the_certificate_and_completes():
    for row, letters, status, _, _ in outcomes("oracle"):
        assert letters == row["certificate"]
        assert status == "complete"


def test_greedy_is_legal_descends_h_and_stops_only_when_stuck():
    statuses = Counter()
    for row, letters, status, final, g in outcomes("greedy"):
        statuses[status] += 1
        assert status != "illegal"
        assert len(letters) <= row["depth"]
        # h falls by one per move: h(final) = h(initial) - L
        assert g.h(final) == g.h(row["initial"]) - len(letters)
        if status == "complete":
            assert len(letters) == row["depth"]  # greedy completions are optimal
        else:  # stuck: no move from the final board lowers h
            blank = final.index(0)
            for letter in "UDLR":
                t = g.target(blank, letter)
                if t is not None:
                    after = list(final)
                    after[blank], after[t] = final[t], 0
                    assert g.h(after) > g.h(final)
    # both outcomes occur on the paper bank, or the baseline tells the report nothing
    assert statuses["complete"] > 0 and statuses["legal_noncompletion"] > 0


def test_greedy_tie_breaks_differ_across_trials():
    r = responses("greedy")
    per_board = r.groupby("board_id")["response"].nunique()
    assert (per_board > 1).sum() > 0.1 * len(per_board)


def test_detour_stays_legal_completes_and_wastes_moves():
    for row, letters, status, _, _ in outcomes("detour"):
        assert status == "complete"
        extra = len(letters) - row["depth"]
        assert extra > 0 and extra % 2 == 0
        assert extra <= 2 * max(1, row["depth"] // 4)


def test_noisy_is_a_few_substitutions_of_the_certificate():
    statuses = Counter()
    changed = []
    for row, letters, status, _, _ in outcomes("noisy"):
        statuses[status] += 1
        cert = row["certificate"]
        assert len(letters) == len(cert)
        diffs = sum(a != b for a, b in zip(letters, cert))
        changed.append(diffs / len(cert))
        if diffs == 0:
            assert status == "complete"
    # substitution rate 1/20 per move
    assert 0.03 < np.mean(changed) < 0.07
    assert statuses["complete"] > 0 and statuses["illegal"] > 0 and statuses["legal_noncompletion"] > 0


def test_random_has_depth_moves_and_is_mostly_illegal():
    statuses = Counter(o[2] for o in outcomes("random"))
    for row, letters, *_ in outcomes("random"):
        assert len(letters) == row["depth"]
    assert statuses["illegal"] > 0.8 * sum(statuses.values())
    counts = Counter("".join(o[1] for o in outcomes("random")))
    assert min(counts.values()) > 0.2 * sum(counts.values())


@pytest.mark.parametrize("planner", ["greedy", "detour", "noisy", "random"])
def test_seeded_deterministic_and_independent_of_bank_order_subset_and_trials(planner):
    b = bank()
    first = baseline_responses(b, planner, trials=2, seed=5)
    again = baseline_responses(b, planner, trials=2, seed=5)
    pd.testing.assert_frame_equal(first, again)
    other_seed = baseline_responses(b, planner, trials=2, seed=6)
    assert (other_seed["response"] != first["response"]).any()
    # shuffled, filtered bank and more trials: each (board, trial) keeps its answer
    shuffled = b.sample(frac=0.5, random_state=3)
    more = baseline_responses(shuffled, planner, trials=4, seed=5)
    want = first.set_index(["board_id", "trial"])["response"]
    got = more[more["trial"] < 2].set_index(["board_id", "trial"])["response"]
    assert got.to_dict() == want.loc[got.index].to_dict()


def test_planner_names_and_bad_arguments():
    assert planner_name("baseline:detour") == "detour"
    r = baseline_responses(bank().head(3), "baseline:oracle", trials=1)
    assert (r["condition"] == "baseline:oracle").all()
    with pytest.raises(ValueError, match="greedy"):
        baseline_responses(bank(), "astar")
    with pytest.raises(ValueError, match="trials"):
        baseline_responses(bank(), "oracle", trials=0)
    with pytest.raises(TypeError, match="trials"):
        baseline_responses(bank(), "oracle", trials=2.0)
    with pytest.raises(ValueError, match="seed"):
        baseline_responses(bank(), "oracle", seed=-1)
    with pytest.raises(ValueError, match="certificate"):
        baseline_responses(bank().drop(columns="certificate"), "oracle")
    with pytest.raises(ValueError, match="empty"):
        baseline_responses(bank().head(0), "oracle")


def test_bad_bank_rows_name_the_board():
    b = bank().head(5).copy()
    b.loc[2, "certificate"] = b.loc[2, "certificate"][:-1]
    with pytest.raises(ValueError, match=re.escape(repr(b.loc[2, "board_id"])) + ".*depth"):
        baseline_responses(b, "noisy")
    b = bank().head(5).copy()
    b.loc[1, "certificate"] = "X" + b.loc[1, "certificate"][1:]
    with pytest.raises(ValueError, match="letters other than"):
        baseline_responses(b, "detour")
    b = bank().head(5).copy()
    b["initial"] = b["initial"].astype(object)  # Arrow-backed boards: edit them as plain lists
    b.at[3, "initial"] = [0] * 16
    with pytest.raises(ValueError, match=re.escape(repr(b.loc[3, "board_id"]))):
        baseline_responses(b, "greedy")


def test_answer_texts_edge_cases():
    plans = np.array([[0, 1, 2, 3], [3, 3, 0, 0], [0, 0, 0, 0]], dtype=np.uint8)
    got = answer_texts(plans, np.array([4, 2, 0]))
    assert got.tolist() == ["MOVES: U,D,L,R", "MOVES: R,R", "MOVES: "]
