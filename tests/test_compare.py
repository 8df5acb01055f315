"""``fastspe compare``: verdicts with known truth (power and false-positive rate over many seeds),
the sign test, thread-count determinism and the CLI's exit codes and files."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from fastspe.cli import main
from fastspe.report.comparison import summary_markdown
from fastspe.stats.compare import (
    IMPROVEMENT,
    LOWER_IS_BETTER,
    NO_CHANGE,
    REGRESSION,
    bootstrap_p_values,
    compare,
    holm,
    sign_test_p,
    verdict,
)

from .naive_bootstrap import synthetic_verdicts
from .threads import digests_by_thread_count

QUALITY = (0.05, 0.7, 0.85)  # p_illegal, p_complete | legal, mean economy: C about 0.66
PRIMARY_CELLS = [("primary", k, d) for k in range(4) for d in (10, 20, 30, 40)]


def paper_like(seed: int, conditions=("base", "cand")) -> pd.DataFrame:
    """Two conditions of the same quality on 320 primary boards x 3 trials, drawn independently."""
    return synthetic_verdicts(
        seed=seed, conditions=conditions, per_cell=20, cells=PRIMARY_CELLS, quality={c: QUALITY for c in conditions}
    )


def fail_some_completed_boards(verdicts: pd.DataFrame, share: float, seed: int) -> pd.DataFrame:
    """``cand`` = ``base``'s answers, except on ``share`` of the boards base completes at least once, where
    every trial of ``cand`` becomes a legal noncompletion (a known regression)."""
    base = verdicts[verdicts["condition"] == "base"]
    done = base.groupby("board_id")["status"].apply(lambda s: (s == "complete").any())
    rng = np.random.default_rng(seed)
    chosen = set(rng.choice(done.index[done], size=round(share * done.sum()), replace=False))
    cand = base.assign(condition="cand").reset_index(drop=True)
    hit = cand["board_id"].isin(chosen).to_numpy()
    cand.loc[hit, ["status", "error_kind", "first_error", "optimal", "economy", "excess", "final_h"]] = [
        "legal_noncompletion",
        "",
        -1,
        False,
        np.nan,
        np.nan,
        1,
    ]
    return pd.concat([base, cand], ignore_index=True)


def pooled(result, metric: str) -> pd.Series:
    t = result.table
    return t[(t["metric"] == metric) & (t["depth"] == "all") & (t["k"] == "all") & (t["cohort"] == "primary")].iloc[0]


def test_verdict_rule():
    assert verdict(-0.05, -0.08, -0.01, 0.02) == REGRESSION
    assert verdict(-0.01, -0.03, -0.001, 0.02) == NO_CHANGE  # below 0 but within the margin
    assert verdict(-0.05, -0.09, 0.01, 0.02) == NO_CHANGE  # the interval reaches 0
    assert verdict(0.05, 0.01, 0.08, 0.02) == IMPROVEMENT
    assert verdict(0.05, 0.01, 0.08, 0.02, lower_is_better=True) == REGRESSION  # more illegal plans is worse
    assert verdict(float("nan"), -1, 1, 0.0) == NO_CHANGE


def test_sign_test_by_hand():
    assert sign_test_p(0, 5) == pytest.approx(2 / 32)
    assert sign_test_p(5, 0) == sign_test_p(0, 5)
    assert sign_test_p(3, 3) == 1.0 and sign_test_p(0, 0) == 1.0
    assert sign_test_p(2, 8) == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert 0 < sign_test_p(4000, 5000) < 1e-20  # thousands of boards do not overflow


@pytest.mark.slow
def test_a_known_regression_is_flagged_in_95_percent_of_seeds():
    flagged = 0
    for seed in range(100):
        v = fail_some_completed_boards(paper_like(seed, ("base",)), 0.10, seed)
        result = compare(v, "base", ["cand"], metrics=["C"], draws=400, seed=seed)
        flagged += pooled(result, "C")["verdict"] == REGRESSION
    assert flagged >= 95


@pytest.mark.slow
def test_an_equal_candidate_is_flagged_in_at_most_5_percent_of_seeds():
    flagged = 0
    for seed in range(100):
        result = compare(paper_like(1000 + seed), "base", ["cand"], metrics=["SPE", "C"], draws=400, seed=seed)
        flagged += len(result.regressions()) > 0
    assert flagged <= 5


def test_holm_and_bootstrap_p_by_hand():
    assert holm(np.array([0.01, 0.04, 0.03, np.nan])) == pytest.approx([0.03, 0.06, 0.06, np.nan], nan_ok=True)
    assert holm(np.array([0.5, 0.9])).tolist() == [1.0, 1.0]
    draws = np.array([[-1.0, np.nan, 0.0], [1.0, np.nan, 0.0], [2.0, np.nan, 0.0], [3.0, np.nan, 0.0]])
    p = bootstrap_p_values(draws)
    assert p[0] == pytest.approx(2 * 2 / 5) and np.isnan(p[1]) and p[2] == 1.0  # all draws at 0: no evidence
    assert bootstrap_p_values(np.full((999, 1), -0.5))[0] == pytest.approx(2 / 1000)  # the smallest p 999 draws give


def _row_flags(table: pd.DataFrame) -> tuple[bool, bool, bool]:
    """(a row by depth or k flagged, any row a regression, any row a regression without the correction)."""
    rows = ((table["depth"] != "all") | (table["k"] != "all")).to_numpy()
    v = table["verdict"].to_numpy()
    raw = np.array(
        [
            verdict(e, lo, hi, 0.02, m in LOWER_IS_BETTER)
            for e, lo, hi, m in zip(table["estimate"], table["lo"], table["hi"], table["metric"])
        ]
    )
    return bool((v[rows] != NO_CHANGE).any()), bool((v == REGRESSION).any()), bool((raw == REGRESSION).any())


@pytest.mark.slow
def test_equal_conditions_rarely_flag_any_row():
    runs, by_rows, any_regression, uncorrected = 80, 0, 0, 0
    for seed in range(runs):
        table = compare(paper_like(2000 + seed), "base", ["cand"], draws=1600, seed=seed).table
        flags = _row_flags(table)
        by_rows, any_regression, uncorrected = by_rows + flags[0], any_regression + flags[1], uncorrected + flags[2]
    assert by_rows <= 0.10 * runs  # Holm over the 40 rows by depth and by k: at most 5% in theory
    assert any_regression <= 0.15 * runs  # with the unadjusted pooled gate (about 5%) on top
    assert uncorrected >= 0.30 * runs  # what the same tables flag without the correction (about half)


def test_a_real_difference_at_one_depth_is_still_flagged():
    for seed in range(8):
        v = paper_like(3000 + seed)
        lost = (v["condition"] == "cand") & (v["depth"] == 40) & (v["status"] == "complete")
        v.loc[lost, ["status", "optimal", "economy", "excess"]] = ["legal_noncompletion", False, np.nan, np.nan]
        t = compare(v, "base", ["cand"], metrics=["C", "SPE"], draws=1600, seed=seed).table
        deep = t[t["depth"].astype(str) == "40"]
        assert (deep["verdict"] == REGRESSION).all() and (deep["p_adjusted"] < 0.05).all()
        shallow = t[t["depth"].astype(str) == "10"]
        assert (shallow["verdict"] == NO_CHANGE).all()
        assert (t["p_adjusted"] >= t["p_value"]).all()


def test_sign_counts_and_shared_boards():
    v = fail_some_completed_boards(paper_like(3, ("base",)), 0.10, 3)
    v = v[~((v["condition"] == "cand") & v["board_id"].str.endswith("-019"))]  # cand skips 16 boards
    result = compare(v, "base", ["cand"], metrics=["C"], draws=200)
    assert result.boards["cand"] == 320 - 16
    sign = result.signs[0]
    assert sign.wins == 0 and sign.losses > 0 and sign.boards == 304 and sign.wins + sign.losses + sign.ties == 304
    text = summary_markdown(result)
    assert "REGRESSION" in text and "304 boards answered by both" in text and "sign test p" in text


def test_same_numbers_at_one_and_two_threads():
    script = """
import hashlib
import numba
from tests.test_compare import paper_like
from fastspe.stats.compare import compare
t = compare(paper_like(5), "base", draws=300, seed=4).table
print(numba.get_num_threads(), hashlib.sha256(t.to_csv(index=False).encode()).hexdigest())
"""
    digests = digests_by_thread_count(script)
    assert len(set(digests.values())) == 1


def test_bad_requests_are_named():
    v = paper_like(1)
    with pytest.raises(ValueError, match="baseline 'nope' has no verdicts"):
        compare(v, "nope")
    with pytest.raises(ValueError, match="candidates"):
        compare(v, "base", ["base"])
    with pytest.raises(ValueError, match="--metrics XYZ"):
        compare(v, "base", metrics=["XYZ"])
    with pytest.raises(ValueError, match="--margin"):
        compare(v, "base", margin=-1.0)


def test_cli_exit_codes_and_files(tmp_path, capsys):
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import write_bank
    from fastspe.domains.sliding.planners.baselines import baseline_responses
    from fastspe.boundary.verdict_files import write_verdicts
    from fastspe.domains.sliding.bank.design import paper_design
    from fastspe.scoring.score import score_responses

    bank = build_bank(paper_design())
    write_bank(bank, tmp_path / "bank.parquet")
    answers = pd.concat([baseline_responses(bank, p) for p in ("oracle", "noisy")], ignore_index=True)
    write_verdicts(score_responses(bank, answers), tmp_path / "v.parquet")
    args = [
        "compare",
        "--bank",
        str(tmp_path / "bank.parquet"),
        "--verdicts",
        str(tmp_path / "v.parquet"),
        "--baseline",
        "baseline:oracle",
        "--draws",
        "300",
        "--out",
        str(tmp_path / "cmp"),
    ]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 0 and "## fastspe compare: REGRESSION" in out  # a regression, but not asked to fail
    assert main(args + ["--fail-on-regression"]) == 1
    table = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert list(table.columns) == [
        "cohort",
        "candidate",
        "baseline",
        "metric",
        "depth",
        "k",
        "estimate",
        "lo",
        "hi",
        "draws_used",
        "p_value",
        "p_adjusted",
        "verdict",
    ]
    summary = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert summary["regression"] is True and summary["boards"] == {"baseline:noisy": 400}
    assert all(r["lo"] is None or math.isfinite(r["lo"]) for r in summary["rows"])
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert md.startswith("## fastspe compare") and "Holm-adjusted over all rows by depth and by k" in md
    assert "With 300 draws no such row can pass" in md and "use --draws" in md
    # the other way round: an improvement, no regression, exit 0 even when asked to fail
    flipped = args[:5] + ["--baseline", "baseline:noisy", "--draws", "300", "--fail-on-regression"]
    assert main(flipped) == 0 and "| primary | SPE |" in capsys.readouterr().out
    assert main(args[:5] + ["--baseline", "baseline:noisy", "--candidate", "baseline:noisy"]) == 2
    assert "candidates" in capsys.readouterr().err
