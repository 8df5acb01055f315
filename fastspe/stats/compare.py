"""Paired comparisons of conditions with a verdict a CI job can act on (regression tracking).

For each candidate, the stratified whole-board bootstrap draws the same boards for candidate and
baseline (only boards both answered count), so candidate - baseline is a paired difference: the
same strata, groupings and counter-based draws as the report. Each pooled metric gets a verdict:

- ``regression``: the whole interval lies below 0 and the estimate is below ``-margin``;
- ``improvement``: the mirror image;
- ``no clear change``: anything else.

The rows by depth and by k are many tests at once (every depth and every k, times every metric):
uncorrected, two equal conditions showed a false ``regression`` somewhere in about half of all runs.
So each row also gets a two-sided bootstrap p-value from the same paired draws (``p_value``: twice
the smaller share of draws on either side of 0, add-one corrected; 0 lies outside the percentile
interval about when p < 1 - level), Holm's step-down adjustment over one family per candidate and
cohort, all its rows by depth and by k together (``p_adjusted``), and keeps its interval verdict only
when ``p_adjusted`` < 1 - level: the chance of any false flag among them stays at most 1 - level.
(One family per table, depth and k apart, would allow twice that on top of the pooled gate.) Pooled
rows are the CI gate and are not adjusted (``p_adjusted`` = ``p_value``).

Beside the intervals, a sign test on completions per board (boards where the candidate completes
more trials than the baseline, fewer, or as many) gives the two-sided, distribution-free picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import UserError, expect
from ..executor import Executor
from .intervals import (
    DEFAULT_DRAWS,
    DEFAULT_GROUPINGS,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    bootstrap_draws,
    pack_sums,
    paired_differences,
)
from ..boundary.verdicts import verdicts_domain
from ..domains.contract import STRATUM
from .metrics import board_sums

DEFAULT_METRICS = ("SPE", "C", "R", "Q", "E")
DEFAULT_MARGIN = 0.02
REGRESSION, IMPROVEMENT, NO_CHANGE = "regression", "improvement", "no clear change"
COLUMNS = [
    "cohort",
    "candidate",
    "baseline",
    "metric",
    "depth",
    STRATUM,
    "estimate",
    "lo",
    "hi",
    "draws_used",
    "p_value",
    "p_adjusted",
    "verdict",
]  # STRATUM: the domain's second stratum (``k``, ``boxes``)
POOLED = "pooled"  # the grouping that gates CI; the others are Holm-adjusted per table
FAMILY = ("candidate", "cohort")  # the rows one Holm adjustment spans (by depth and by stratum together)
KNOWN_METRICS = ("C", "I", "R", "Q", "E", "G", "O", "SPE", "Dc")
# Metrics where a lower value is better: their verdict reads the difference the other way round.
LOWER_IS_BETTER = ("I", "G")


@dataclass(frozen=True)
class SignTest:
    """Completions per board, candidate against baseline: boards won, lost and tied, and the exact
    two-sided binomial p-value of wins against losses (ties left out)."""

    candidate: str
    cohort: str
    boards: int
    wins: int
    losses: int
    ties: int
    p_value: float


@dataclass(frozen=True)
class Comparison:
    """``table``: the long frame (``COLUMNS``); ``signs``: one ``SignTest`` per candidate and cohort;
    ``boards``: boards both answered, per candidate; ``primary``: the cohort that gates CI."""

    table: pd.DataFrame
    signs: list
    boards: dict
    primary: str
    baseline: str
    margin: float
    draws: int
    seed: int
    level: float = DEFAULT_LEVEL
    stratum: str = STRATUM  # the verdicts' domain's second stratum column, in ``STRATUM``'s place in ``COLUMNS``

    def regressions(self) -> pd.DataFrame:
        """Pooled primary-cohort rows whose verdict is ``regression``."""
        t = self.table
        return t[
            (t["cohort"] == self.primary)
            & (t["depth"] == "all")
            & (t[self.stratum] == "all")
            & (t["verdict"] == REGRESSION)
        ]


def verdict(estimate: float, lo: float, hi: float, margin: float, lower_is_better: bool = False) -> str:
    """The verdict of one difference candidate - baseline (see the module docstring)."""
    if lower_is_better:
        estimate, lo, hi = -estimate, -hi, -lo
    if not (math.isfinite(estimate) and math.isfinite(lo) and math.isfinite(hi)):
        return NO_CHANGE
    if hi < 0 and estimate < -margin:
        return REGRESSION
    if lo > 0 and estimate > margin:
        return IMPROVEMENT
    return NO_CHANGE


def bootstrap_p_values(diff: np.ndarray) -> np.ndarray:
    """Two-sided bootstrap p-values of paired differences ``diff`` (draws, ...), NaN where undefined:
    min(1, 2 min(#(d <= 0) + 1, #(d >= 0) + 1) / (defined draws + 1)); NaN where no draw is defined."""
    defined = ~np.isnan(diff)
    used = defined.sum(axis=0)
    below = (defined & (diff <= 0)).sum(axis=0)
    above = (defined & (diff >= 0)).sum(axis=0)
    p = np.minimum(1.0, 2.0 * (np.minimum(below, above) + 1) / (used + 1))
    return np.where(used > 0, p, np.nan)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values of one family (NaN entries are left out of it and stay NaN)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    m = len(order)
    out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return out


def smallest_p(draws: int) -> float:
    """The smallest p-value ``bootstrap_p_values`` can give with ``draws`` draws."""
    return 2.0 / (draws + 1)


def sign_test_p(wins: int, losses: int) -> float:
    """Exact two-sided binomial p-value of ``wins`` against ``losses`` under p = 1/2 (1.0 when both are 0)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    # P(X <= k) for X ~ Bin(n, 1/2), in log space so that thousands of boards do not overflow
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2) for i in range(k + 1)]
    top = max(logs)
    tail = math.exp(top) * sum(math.exp(v - top) for v in logs)
    return min(1.0, 2.0 * tail)


def _sign_tests(sums: pd.DataFrame, baseline: str, candidate: str) -> list[SignTest]:
    rate = sums.assign(rate=sums["complete"] / sums["n"]).pivot(index="board_id", columns="condition", values="rate")
    cohort = sums.drop_duplicates("board_id").set_index("board_id")["cohort"]
    out = []
    for name, boards in rate.groupby(cohort.reindex(rate.index), sort=True):
        diff = boards[candidate] - boards[baseline]
        wins, losses = int((diff > 0).sum()), int((diff < 0).sum())
        out.append(
            SignTest(
                candidate, str(name), len(boards), wins, losses, len(boards) - wins - losses, sign_test_p(wins, losses)
            )
        )
    return out


def compare(
    verdicts: pd.DataFrame,
    baseline: str,
    candidates: Sequence[str] | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    margin: float = DEFAULT_MARGIN,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    executor: Executor | None = None,
    domain=None,
) -> Comparison:
    """Paired differences candidate - baseline, pooled per cohort, by depth and by the second stratum, with
    verdicts.

    Parameters
    ----------
    verdicts : scored outputs of at least the baseline and the candidates
    baseline : the reference condition
    candidates : the conditions to judge (default: every other condition)
    metrics : metric names (default ``SPE, C, R, Q, E``)
    margin : the smallest difference that counts as a change (in the metric's units)
    executor : where the bootstrap draw ranges run (``fastspe.distributed.executor`` for Dask)
    domain : the verdicts' domain, when they are a frame whose ``attrs`` do not name it
    """
    expect(baseline, "baseline", str, "a condition name (str)")
    metrics = tuple(metrics)
    unknown = [m for m in metrics if m not in KNOWN_METRICS]
    if unknown or not metrics:
        raise UserError(f"--metrics {','.join(metrics)}: choose among {', '.join(KNOWN_METRICS)}")
    if not (isinstance(margin, (int, float)) and math.isfinite(margin) and margin >= 0):
        raise UserError(f"--margin must be a finite number >= 0, got {margin!r}")
    sums = board_sums(verdicts, domain)  # refuses repeated outputs and inconsistent verdicts
    found = verdicts_domain(sums)
    present = sorted(map(str, sums["condition"].unique()))
    if baseline not in present:
        raise UserError(f"baseline {baseline!r} has no verdicts; conditions present: {', '.join(present)}")
    candidates = [c for c in present if c != baseline] if candidates is None else list(candidates)
    missing = [c for c in candidates if c not in present]
    if missing or not candidates or baseline in candidates or len(set(candidates)) != len(candidates):
        raise UserError(
            f"candidates {candidates} must be distinct conditions other than the baseline, among {', '.join(present)}"
        )
    primary = "primary" if "primary" in set(sums["cohort"]) else str(sorted(sums["cohort"].unique())[0])
    parts, signs, boards = [], [], {}
    for cand in candidates:
        pair = sums[sums["condition"].isin([baseline, cand])]
        both = pair.groupby("board_id")["condition"].nunique()
        shared = pair[pair["board_id"].isin(both.index[both == 2])]
        boards[cand] = int((both == 2).sum())
        if shared.empty:
            raise UserError(f"{cand!r} and {baseline!r} share no board: nothing to compare")
        packed = pack_sums(shared, groupings=DEFAULT_GROUPINGS, conditions=[baseline, cand], domain=found)
        boot = bootstrap_draws(packed, draws, seed, executor=executor)
        diff = paired_differences(boot, [(cand, baseline)], level)
        # paired_differences' rows run group-major, then metric (one pair): the draws' order
        ic, ib = packed.conditions.index(cand), packed.conditions.index(baseline)
        diff["p_value"] = bootstrap_p_values(boot.samples[:, :, ic, :] - boot.samples[:, :, ib, :]).ravel()
        parts.append(diff[diff["metric"].isin(metrics)])
        signs += _sign_tests(shared, baseline, cand)
    table = pd.concat(parts, ignore_index=True).rename(columns={"condition_a": "candidate", "condition_b": "baseline"})
    table["p_adjusted"] = table["p_value"]
    rows = table["grouping"] != POOLED
    for _, family in table[rows].groupby(list(FAMILY), sort=False):
        table.loc[family.index, "p_adjusted"] = holm(family["p_value"].to_numpy())
    alpha = 1.0 - level
    table["verdict"] = [
        verdict(e, lo, hi, margin, m in LOWER_IS_BETTER) if g == POOLED or q < alpha else NO_CHANGE
        for e, lo, hi, m, g, q in zip(
            table["estimate"], table["lo"], table["hi"], table["metric"], table["grouping"], table["p_adjusted"]
        )
    ]
    mrank = {m: i for i, m in enumerate(metrics)}
    crank = {c: i for i, c in enumerate(candidates)}
    gorder = {"pooled": 0, "depth": 1, "stratum": 2}
    table = table.assign(
        _c=table["candidate"].map(crank), _g=table["grouping"].map(gorder), _m=table["metric"].map(mrank)
    ).sort_values(["_c", "cohort", "_g", "_m"], kind="stable")
    stratum = found.stratum
    table = table[found.named(COLUMNS)].reset_index(drop=True)
    return Comparison(
        table, signs, boards, primary, baseline, float(margin), int(draws), int(seed), float(level), stratum
    )


def summary_json(result: Comparison) -> dict:
    """``compare.json``: the verdicts, the sign tests and the settings."""

    def clean(v):
        return None if isinstance(v, float) and not math.isfinite(v) else v

    rows = [
        {k: clean(v.item() if hasattr(v, "item") else v) for k, v in row.items()}
        for row in result.table.to_dict("records")
    ]
    return {
        "baseline": result.baseline,
        "primary_cohort": result.primary,
        "margin": result.margin,
        "draws": result.draws,
        "seed": result.seed,
        "boards": result.boards,
        "rows_adjusted": f"Holm, per candidate and cohort over the rows by depth and by {result.stratum}; pooled rows "
        "unadjusted",
        "regression": bool(len(result.regressions())),
        "rows": rows,
        "sign_tests": [{**s.__dict__} for s in result.signs],
    }


__all__ = [
    "compare",
    "Comparison",
    "SignTest",
    "verdict",
    "sign_test_p",
    "bootstrap_p_values",
    "holm",
    "summary_json",
    "DEFAULT_METRICS",
    "DEFAULT_MARGIN",
    "REGRESSION",
    "IMPROVEMENT",
    "NO_CHANGE",
]
