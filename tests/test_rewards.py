"""The in-memory reward API gives exactly the verdicts of ``score_responses``, with no files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import fastspe
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.planners.baselines import baseline_responses
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.domains.sliding.kernels.replay import ERROR_NAMES
from fastspe.domains.codes import STATUS_NAMES
from fastspe.scoring.parse_column import MODE_NAMES
from fastspe.scoring.score import score_responses


@pytest.fixture(scope="module")
def paper_bank():
    return build_bank(paper_design())


@pytest.fixture(scope="module")
def answers(paper_bank):
    parts = [baseline_responses(paper_bank, p, 2, seed=3) for p in ("oracle", "greedy", "noisy", "random")]
    extra = pd.DataFrame(
        {
            "board_id": paper_bank["board_id"].iloc[:4],
            "condition": "crafted",
            "trial": 0,
            "response": ["no plan here", "**MOVES:** u, d", "MOVES: U,X,D", ""],
        }
    )
    return pd.concat(parts + [extra], ignore_index=True)


@pytest.mark.parametrize("parse", ["lenient", "strict"])
def test_rewards_equal_the_verdicts(paper_bank, answers, parse):
    scorer = fastspe.RewardScorer(paper_bank, parse=parse)
    r = scorer(answers["board_id"].tolist(), answers["response"].tolist())
    v = score_responses(paper_bank, answers, parse=parse).set_index(["condition", "board_id", "trial"])
    v = v.loc[pd.MultiIndex.from_frame(answers[["condition", "board_id", "trial"]])]
    assert [STATUS_NAMES[s] for s in r.status] == v["status"].tolist()
    assert [ERROR_NAMES[k] for k in r.error_kind] == v["error_kind"].tolist()
    assert [MODE_NAMES[m] for m in r.parse_mode] == v["parse_mode"].tolist()
    np.testing.assert_array_equal(r.L, v["L"].to_numpy())
    np.testing.assert_array_equal(r.first_error, v["first_error"].to_numpy())
    np.testing.assert_array_equal(r.optimal, v["optimal"].to_numpy())
    np.testing.assert_array_equal(r.economy, v["economy"].to_numpy())  # NaN where not complete, in both
    assert r.spe.mean() == pytest.approx(v["economy"].fillna(0).mean())
    assert (r.spe[~r.complete] == 0).all()


def test_reward_function_and_arrow_input(paper_bank, answers):
    ids = pa.array(answers["board_id"].tolist())
    texts = pa.array(answers["response"].tolist(), pa.large_string())
    one_call = fastspe.reward(paper_bank, ids, texts)
    scorer = fastspe.RewardScorer(paper_bank)
    np.testing.assert_array_equal(one_call.status, scorer(list(answers["board_id"]), list(answers["response"])).status)
    np.testing.assert_array_equal(fastspe.reward(scorer, ids, texts).L, one_call.L)


def test_reward_refuses_unknown_boards_and_ragged_input(paper_bank):
    scorer = fastspe.RewardScorer(paper_bank)
    with pytest.raises(ValueError, match=r"board_ids\[1\] = 'nope' is not in the bank"):
        scorer([paper_bank["board_id"].iloc[0], "nope"], ["MOVES: U", "MOVES: D"])
    with pytest.raises(ValueError, match="2 board ids but 1 texts"):
        scorer(["a", "b"], ["MOVES: U"])
    with pytest.raises(ValueError, match="parse must be one of"):
        fastspe.RewardScorer(paper_bank, parse="loose")


def test_reward_checks_the_bank(paper_bank):
    bad = paper_bank.head(3).copy()
    bad.loc[1, "depth"] = 3  # h and the certificate still say otherwise
    with pytest.raises(ValueError, match=r"row 2 \(board_id .*\): certificate has \d+ moves but depth is 3"):
        fastspe.RewardScorer(bad)


def test_import_fastspe_stays_light():
    import subprocess
    import sys

    code = "import sys, fastspe; assert 'numba' not in sys.modules and 'pandas' not in sys.modules; fastspe.reward"
    subprocess.run([sys.executable, "-c", code], check=True)
