"""The baseline planners: answers that depend only on (seed, planner, board, trial), scored through fastspe."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fastspe.errors import UserError
from fastspe_hanoi import DOMAIN
from fastspe_hanoi.baselines import greedy_plan
from hanoi_helpers import needs_entry_point


@pytest.fixture(scope="module")
def frame():
    return DOMAIN.bank_frame(DOMAIN.check_bank(DOMAIN.demo_bank()))


@pytest.mark.parametrize("planner", DOMAIN.planners)
def test_answers_depend_only_on_seed_planner_board_and_trial(frame, planner):
    answers = DOMAIN.baseline_responses(frame, planner, trials=3, seed=5)
    assert answers.equals(DOMAIN.baseline_responses(frame, f"baseline:{planner}", trials=3, seed=5))
    assert len(answers) == 3 * len(frame) and (answers["condition"] == f"baseline:{planner}").all()
    # a shuffled slice of the bank, fewer trials: the answers it shares with the whole are the same
    part = DOMAIN.baseline_responses(frame.iloc[::-3], planner, trials=2, seed=5)
    merged = part.merge(answers, on=["board_id", "trial"], suffixes=("", "_whole"))
    assert len(merged) == len(part) and (merged["response"] == merged["response_whole"]).all()
    assert answers["response"].str.startswith("MOVES: ").all()


def test_random_answers_change_with_the_seed_and_have_d_star_actions(frame):
    one = DOMAIN.baseline_responses(frame, "random", trials=1, seed=0)
    two = DOMAIN.baseline_responses(frame, "random", trials=1, seed=1)
    assert not one["response"].equals(two["response"])
    lengths = one["response"].str.removeprefix("MOVES: ").str.split(", ").map(len)
    assert (lengths.to_numpy() == frame["depth"].to_numpy()).all()
    # each board and trial its own stream: the two states of a stratum (one depth), and two trials, differ
    assert (one["response"].to_numpy()[0::2] != one["response"].to_numpy()[1::2]).all()
    trials = DOMAIN.baseline_responses(frame, "random", trials=2, seed=0)["response"].to_numpy()
    assert (trials[0::2] != trials[1::2]).all()


def test_greedy_only_moves_disks_onto_c_and_stops():
    rng = np.random.default_rng(0)
    assert greedy_plan("AAA", "classic", 7, rng) == ["AC"]  # then disk 2 cannot go onto disk 1
    # ties drawn: BC then AC completes, AC first leaves disk 2 (B) unable to follow
    assert {tuple(greedy_plan("ABC", "classic", 3, np.random.default_rng(s))) for s in range(20)} == {
        ("AC",),
        ("BC", "AC"),
    }
    assert greedy_plan("BCC", "adjacent", 1, rng) == ["BC"]
    assert greedy_plan("ACC", "adjacent", 5, rng) == []  # A->C is forbidden: nothing lowers the count
    assert greedy_plan("B", "classic", 0, rng) == []  # at most 2 d* moves


def test_unknown_planners_are_refused(frame):
    with pytest.raises(UserError, match="unknown Hanoi baseline planner 'detour'; choose one of oracle, greedy"):
        DOMAIN.baseline_responses(frame, "detour")


@needs_entry_point
def test_scored_through_fastspe_the_oracle_is_optimal_and_greedy_legal(frame):
    from fastspe.scoring.score import score_responses

    bank = DOMAIN.check_bank(DOMAIN.demo_bank())
    answers = pd.concat([DOMAIN.baseline_responses(frame, p, trials=2, seed=0) for p in DOMAIN.planners])
    verdicts = score_responses(bank, answers).set_index("condition")
    oracle, greedy, random = (verdicts.loc[f"baseline:{p}"] for p in ("oracle", "greedy", "random"))
    assert (oracle["status"] == "complete").all() and oracle["optimal"].all() and (oracle["economy"] == 1).all()
    assert (oracle["L"] == oracle["depth"]).all()
    assert (greedy["status"] != "illegal").all()
    assert (random["L"] == random["depth"]).all() and (random["status"] == "illegal").mean() > 0.9
    assert set(random["error_kind"]) <= {"empty_peg", "larger_on_smaller", "forbidden_move"}
