"""Where plans fail: trajectory summaries per (cohort, condition, certified depth) from verdicts.

One row per (cohort, condition, depth), plus a pooled row per (cohort, condition) with depth ``"all"``
(as in the metrics frame), with columns

- ``outputs``: outputs in the group; ``illegal``: those with status ``illegal``;
- ``fail_at_L`` / ``fail_at_dstar``: mean position of the first illegal action (``first_error``, the
  0-based index, i.e. the legal moves made before it) over L / over d*, among illegal plans that have an
  illegal action (a format failure has no plan, so no position); NaN when there is none;
- ``revisit_rate``: share of outputs whose trajectory revisits a state (``revisits > 0``);
- ``closest``: mean ``min_h / d*`` over outputs that did not complete (how near the goal they got; the
  initial state counts, so at most 1); NaN when every output completed;
- ``goal_midway_rate``: share of outputs that reach the goal before their last move.

A d* of 0 gives no ratio (NaN, left out of the means).

A domain's own failure positions (``Domain.failure_positions``: a verdict column of 0-based move indices, negative
where a plan has none or it is not known, such as Sokoban's ``first_dead_move``) add, per column ``C``:
``C_share``, the share of outputs that did not complete and have one; ``C_at_L`` / ``C_at_dstar``, its mean
position over L / over d* among those (as ``fail_at_L`` and ``fail_at_dstar`` for the first illegal move).
"""

from __future__ import annotations

from typing import Iterable

import pandas as pd

TRAJECTORY_COLUMNS = [
    "cohort",
    "condition",
    "depth",
    "outputs",
    "illegal",
    "fail_at_L",
    "fail_at_dstar",
    "revisit_rate",
    "closest",
    "goal_midway_rate",
]
_KEYS = ["cohort", "condition"]
_SUMS = {"outputs": "sum", "illegal": "sum"}


def position_columns(column: str) -> list[str]:
    """The columns a failure position ``column`` adds to the frame."""
    return [f"{column}_share", f"{column}_at_L", f"{column}_at_dstar"]


def trajectory_frame(verdicts: pd.DataFrame, positions: Iterable[str] = ()) -> pd.DataFrame:
    """``TRAJECTORY_COLUMNS`` from verdicts (``score.score_responses``); depth rows then ``"all"`` per group; then
    ``position_columns`` of each of the domain's failure ``positions`` (verdict columns) the verdicts have."""
    status = verdicts["status"]
    located = status.eq("illegal") & (verdicts["first_error"] >= 0)
    dstar = verdicts["depth"].where(verdicts["depth"] > 0)
    per_output = pd.DataFrame(
        {
            "cohort": verdicts["cohort"],
            "condition": verdicts["condition"],
            "depth": verdicts["depth"],
            "outputs": 1,
            "illegal": status.eq("illegal").astype(int),
            "fail_at_L": (verdicts["first_error"] / verdicts["L"]).where(located),
            "fail_at_dstar": (verdicts["first_error"] / dstar).where(located),
            "revisit_rate": (verdicts["revisits"] > 0).astype(float),
            "closest": (verdicts["min_h"] / dstar).where(status.ne("complete")),
            "goal_midway_rate": verdicts["goal_midway"].astype(float),
        }
    )
    columns = list(TRAJECTORY_COLUMNS)
    for name in (p for p in positions if p in verdicts.columns):
        at = verdicts[name]
        found = status.ne("complete") & (at >= 0)
        share, at_L, at_dstar = position_columns(name)
        per_output[share] = found.astype(float).where(status.ne("complete"))
        per_output[at_L] = (at / verdicts["L"]).where(found)
        per_output[at_dstar] = (at / dstar).where(found)
        columns += [share, at_L, at_dstar]
    how = {c: _SUMS.get(c, "mean") for c in columns[3:]}  # means skip NaN: "among" the defined
    by_depth = per_output.groupby(_KEYS + ["depth"], observed=True).agg(how).reset_index()
    pooled = per_output.drop(columns="depth").groupby(_KEYS, observed=True).agg(how).reset_index()
    pooled["depth"] = "all"
    out = pd.concat([by_depth.astype({"depth": object}), pooled], ignore_index=True)
    out["_pooled"] = out["depth"].eq("all")  # depths in order, then the pooled row, within each group
    out = out.sort_values(_KEYS + ["_pooled"], kind="stable").drop(columns="_pooled")
    return out[columns].reset_index(drop=True)
