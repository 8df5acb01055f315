"""Metrics on small hand-computed verdict sets, the undefined cases, and SPE = R * Q * E."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.stats.metrics import METRIC_COLUMNS, board_sums, compute_metrics


def verdict(condition, board_id, depth, status, L=0, cohort="primary", k=0, layout="bnone", trial=0):
    complete = status == "complete"
    return {
        "condition": condition,
        "board_id": board_id,
        "trial": trial,
        "cohort": cohort,
        "k": k,
        "layout": layout,
        "depth": depth,
        "status": status,
        "L": L,
        "optimal": complete and L == depth,
        "economy": depth / L if complete else np.nan,
        "excess": float(L - depth) if complete else np.nan,
    }


def numbered(rows: list[dict]) -> pd.DataFrame:
    """Rows with trials 0, 1, ... within each (condition, board_id), so every output has its own key."""
    df = pd.DataFrame(rows)
    df["trial"] = df.groupby(["condition", "board_id"]).cumcount()
    return df


def hand_set() -> pd.DataFrame:
    rows = [
        # condition A, board b1 (d* 10): optimal, economy 0.5, illegal
        verdict("A", "b1", 10, "complete", 10),
        verdict("A", "b1", 10, "complete", 20),
        verdict("A", "b1", 10, "illegal", 3),
        # condition A, board b2 (d* 20): legal noncompletion, economy 0.5 (excess 20), illegal
        verdict("A", "b2", 20, "legal_noncompletion", 7),
        verdict("A", "b2", 20, "complete", 40),
        verdict("A", "b2", 20, "illegal", 0),
        # condition B: nothing legal; condition C: legal but nothing completes
        verdict("B", "b1", 10, "illegal", 4),
        verdict("B", "b2", 20, "illegal", 1),
        verdict("C", "b1", 10, "legal_noncompletion", 12),
        verdict("C", "b2", 20, "legal_noncompletion", 0),
    ]
    return numbered(rows)


def test_board_sums_by_hand():
    sums = board_sums(hand_set()).set_index(["condition", "board_id"])
    assert sums.loc[("A", "b1"), ["n", "legal", "complete", "illegal", "optimal"]].tolist() == [3, 2, 2, 1, 1]
    assert sums.loc[("A", "b1"), "economy_sum"] == pytest.approx(1.5)
    assert sums.loc[("A", "b1"), "excess_sum"] == pytest.approx(10.0)
    assert sums.loc[("A", "b2"), ["n", "legal", "complete", "illegal", "optimal"]].tolist() == [3, 2, 1, 1, 0]
    assert sums.loc[("A", "b2"), "excess_sum"] == pytest.approx(20.0)
    assert sums.loc[("A", "b1"), "depth_sum"] == 20 and sums.loc[("A", "b2"), "depth_sum"] == 20
    assert list(board_sums(hand_set()).columns) == [
        "condition",
        "board_id",
        "cohort",
        "k",
        "layout",
        "depth",
        "n",
        "legal",
        "complete",
        "illegal",
        "optimal",
        "economy_sum",
        "excess_sum",
        "depth_sum",
    ]


def test_mean_certified_depth_of_completed_plans_by_hand():
    # Section 3.3: A completes twice at d* 10 and once at d* 20 -> 40/3; B and C complete nothing
    m = compute_metrics(hand_set(), by=["condition"]).set_index("condition")
    assert m.loc["A", "Dc"] == pytest.approx(40 / 3)
    assert math.isnan(m.loc["B", "Dc"]) and math.isnan(m.loc["C", "Dc"])


def test_metrics_by_hand():
    m = compute_metrics(hand_set(), by=["condition"]).set_index("condition")
    a = m.loc["A"]
    assert a["N"] == 6
    assert a["C"] == pytest.approx(3 / 6)
    assert a["I"] == pytest.approx(2 / 6)
    assert a["R"] == pytest.approx(4 / 6)
    assert a["Q"] == pytest.approx(3 / 4)
    assert a["E"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert a["G"] == pytest.approx((0 + 10 + 20) / 3)
    assert a["O"] == pytest.approx(1 / 6)
    assert a["SPE"] == pytest.approx(2 / 6)
    assert a["SPE"] == pytest.approx(a["R"] * a["Q"] * a["E"], rel=1e-12)
    assert a["SPE"] == pytest.approx(a["C"] * a["E"], rel=1e-12)


def test_undefined_values_are_nan_never_zero():
    m = compute_metrics(hand_set(), by=["condition"]).set_index("condition")
    b, c = m.loc["B"], m.loc["C"]
    # B: no legal plan -> Q undefined; no completion -> E, G undefined; SPE is 0
    assert b["R"] == 0 and math.isnan(b["Q"]) and math.isnan(b["E"]) and math.isnan(b["G"]) and b["SPE"] == 0
    # C: legal plans but no completion -> Q = 0, E and G undefined
    assert c["R"] == 1 and c["Q"] == 0 and math.isnan(c["E"]) and math.isnan(c["G"]) and c["SPE"] == 0


def test_grouping_and_columns():
    v = hand_set()
    m = compute_metrics(v, by=("condition", "depth"))
    assert list(m.columns) == ["condition", "depth"] + METRIC_COLUMNS
    assert len(m) == 6 and m["N"].sum() == len(v)
    whole = compute_metrics(v, by=())
    assert list(whole.columns) == METRIC_COLUMNS and whole["N"].iloc[0] == len(v)
    assert whole["C"].iloc[0] == pytest.approx(3 / 10)
    # board sums give the same metrics as verdicts
    pd.testing.assert_frame_equal(
        compute_metrics(board_sums(v), by=["condition"]), compute_metrics(v, by=["condition"])
    )
    assert compute_metrics(v, by="condition,depth").equals(m)


def test_bad_group_and_missing_columns():
    with pytest.raises(ValueError, match="cannot group by"):
        compute_metrics(hand_set(), by=["model"])
    with pytest.raises(ValueError, match="lack columns"):
        board_sums(hand_set().drop(columns=["economy"]))


@st.composite
def verdict_sets(draw):
    rows = []
    for i in range(draw(st.integers(1, 30))):
        depth = draw(st.sampled_from([10, 20, 30]))
        status = draw(st.sampled_from(["complete", "legal_noncompletion", "illegal"]))
        L = depth + draw(st.integers(0, 50)) if status == "complete" else draw(st.integers(0, 80))
        board = draw(st.integers(0, 5))
        rows.append(
            verdict(
                draw(st.sampled_from(["m1", "m2"])),
                f"b{board}-{depth}",
                depth,
                status,
                L,
                cohort="primary" if board % 2 else "stress",
            )
        )  # a board has one cohort
    return numbered(rows)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(verdict_sets())
def test_identities_on_random_sets(v):
    m = compute_metrics(v, by=["condition"])
    assert m["N"].sum() == len(v)
    for _, r in m.iterrows():
        assert 0 <= r["SPE"] <= r["C"] + 1e-12 <= 1 + 1e-12
        assert r["R"] == pytest.approx(1 - r["I"])
        if r["C"] > 0:
            assert r["SPE"] == pytest.approx(r["R"] * r["Q"] * r["E"], rel=1e-9)
        else:
            assert r["SPE"] == 0 and math.isnan(r["E"]) and math.isnan(r["G"])
        if r["R"] == 0:
            assert math.isnan(r["Q"])
    # SPE is the mean over outputs of d*/L for completions, 0 otherwise (equation 3)
    per = v.assign(s=np.where(v["status"] == "complete", v["economy"], 0.0)).groupby("condition")["s"].mean()
    assert np.allclose(m.set_index("condition")["SPE"], per)


def test_repeated_outputs_and_sums_are_refused():
    v = hand_set()
    with pytest.raises(
        ValueError, match=r"^verdicts: row 11 \(board_id 'b1'\): duplicate output .* first seen at row 1"
    ):
        compute_metrics(pd.concat([v, v.iloc[[0]]], ignore_index=True), by=["condition"])
    sums = board_sums(v)
    with pytest.raises(ValueError, match=r"board sums: row 7: .* appears more than once"):
        compute_metrics(pd.concat([sums, sums.iloc[[0]]], ignore_index=True), by=["condition"])


def test_derived_columns_that_disagree_are_refused():
    v = hand_set()
    v.loc[0, "economy"] = 5.0  # was 1.0 (L = d* = 10): E would read 2.33 instead of 1
    with pytest.raises(ValueError, match=r"^verdicts: row 1 \(board_id 'b1'\): economy is 5.0 but .* make it 1.0"):
        compute_metrics(v, by=["condition"])
