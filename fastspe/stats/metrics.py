"""The paper's metrics (Section 2.2) from verdicts, through per-(condition, board) sums.

With N outputs, C completions, I illegal plans:

- ``C``, ``I``: completion and illegal-plan rates over N; ``R = 1 - I`` (wholly legal plans);
- ``Q = C / R``: completion among legal plans, NaN when no plan is legal;
- ``E``: mean d*/L over completed plans; ``G``: mean excess L - d* over completed plans (both
  NaN when nothing completes: a failed plan has no gap, and zero would reward failure);
- ``O``: optimal completions over N;
- ``SPE``: (1/N) sum of d*/L over completions (equation 3), 0 when C = 0; it equals C * E and
  R * Q * E whenever C > 0;
- ``Dc``: the mean certified depth d* of completed plans (Section 3.3: success-only summaries select
  shorter boards), NaN when nothing completes.

Everything is computed from the per-board sums of ``board_sums`` so the bootstrap (which resamples
whole boards) and the point estimates share one definition. ``board_sums`` trusts checked
``Verdicts`` (``boundary.verdicts``) and checks a plain DataFrame once, refusing verdicts that would
give a wrong number (a repeated output, derived columns that disagree with L, status and depth, a
board with two depths: ``boundary.verdicts.check_metric_inputs``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..boundary.errors import InputError
from ..errors import UserError, expect
from ..boundary.verdicts import BOARD_INFO, FRAME_DOMAIN, Verdicts, check_metric_inputs, verdicts_domain

BOARD_KEYS = ["condition", "board_id"]
SUM_COLUMNS = ["n", "legal", "complete", "illegal", "optimal", "economy_sum", "excess_sum", "depth_sum"]
METRIC_COLUMNS = ["N", "C", "I", "R", "Q", "E", "G", "O", "SPE", "Dc"]
VERDICTS_TYPE = "a Verdicts (read_verdicts) or a DataFrame of verdicts (score_responses)"
GROUPABLE = ("cohort", "condition", "depth", "layout", "board_id")  # and the domain's second stratum


def board_sums(verdicts: Verdicts | pd.DataFrame, domain=None) -> pd.DataFrame:
    """Counts over each board's outputs, one row per (condition, board_id).

    ``verdicts``: checked ``Verdicts`` (trusted), or a DataFrame with ``condition, board_id, trial,
    cohort, layout, depth, status, L, optimal, economy, excess`` and its domain's second stratum (``k``, ``boxes``;
    ``domain``: the frame's, when its ``attrs`` do not name it) that must pass
    ``boundary.verdicts.check_metric_inputs`` (``InputError`` if not).

    Returns columns ``condition, board_id, cohort``, the stratum, ``layout, depth, n, legal, complete, illegal,
    optimal, economy_sum, excess_sum, depth_sum`` (int64 counts; sums over completed outputs); its ``attrs`` name
    the domain.
    """
    expect(verdicts, "verdicts", (Verdicts, pd.DataFrame), VERDICTS_TYPE)
    if isinstance(verdicts, Verdicts):
        found = verdicts.domain
        optimal, economy, excess, verdicts = verdicts.optimal, verdicts.economy, verdicts.excess, verdicts.frame
    else:
        found = verdicts_domain(verdicts, domain=domain)
        optimal, economy, excess = check_metric_inputs(verdicts, "verdicts", domain=found)
    status = verdicts["status"]
    complete = (status == "complete").to_numpy()
    info_columns = found.named(BOARD_INFO)
    parts = pd.DataFrame(
        {
            **{c: verdicts[c].to_numpy() for c in BOARD_KEYS + info_columns},
            "n": 1,
            "legal": (status != "illegal").to_numpy(np.int64),
            "complete": complete.astype(np.int64),
            "illegal": (status == "illegal").to_numpy(np.int64),
            "optimal": optimal.astype(np.int64),
            "economy_sum": np.where(complete, economy, 0.0),
            "excess_sum": np.where(complete, excess, 0.0),
            "depth_sum": np.where(complete, verdicts["depth"].to_numpy(np.int64), 0),
        }
    )
    sums = parts.groupby(BOARD_KEYS, sort=True)[SUM_COLUMNS].sum()
    info = parts.groupby(BOARD_KEYS, sort=True)[info_columns].first()
    out = pd.concat([info, sums], axis=1).reset_index()[BOARD_KEYS + info_columns + SUM_COLUMNS]
    out.attrs[FRAME_DOMAIN] = found.name
    return out


def metrics_from_sums(sums: pd.DataFrame) -> pd.DataFrame:
    """``N, C, I, R, Q, E, G, O, SPE, Dc`` from summed counts (columns ``SUM_COLUMNS``), row by row."""
    n = sums["n"].to_numpy(np.float64)
    legal = sums["legal"].to_numpy(np.float64)
    done = sums["complete"].to_numpy(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        C = done / n
        I = sums["illegal"].to_numpy(np.float64) / n
        R = 1.0 - I
        Q = np.where(legal > 0, C / R, np.nan)
        E = np.where(done > 0, sums["economy_sum"].to_numpy(np.float64) / done, np.nan)
        G = np.where(done > 0, sums["excess_sum"].to_numpy(np.float64) / done, np.nan)
        O = sums["optimal"].to_numpy(np.float64) / n
        SPE = sums["economy_sum"].to_numpy(np.float64) / n
        Dc = np.where(done > 0, sums["depth_sum"].to_numpy(np.float64) / done, np.nan)
    return pd.DataFrame(
        {
            "N": sums["n"].to_numpy(np.int64),
            "C": C,
            "I": I,
            "R": R,
            "Q": Q,
            "E": E,
            "G": G,
            "O": O,
            "SPE": SPE,
            "Dc": Dc,
        },
        index=sums.index,
    )


def compute_metrics(
    verdicts: Verdicts | pd.DataFrame, by: Sequence[str] = ("cohort", "condition"), domain=None
) -> pd.DataFrame:
    """Metrics per group: the ``by`` columns followed by ``N, C, I, R, Q, E, G, O, SPE, Dc``.

    Parameters
    ----------
    verdicts : ``Verdicts``, a DataFrame of verdicts, or one of ``board_sums``
    by : group columns, any of cohort, condition, depth, layout, board_id and the domain's second stratum (``k``,
        ``boxes``); empty for one row
    domain : the verdicts' domain when they are a frame whose ``attrs`` do not name it (default: the default domain)
    """
    expect(verdicts, "verdicts", (Verdicts, pd.DataFrame), VERDICTS_TYPE)
    expect(by, "by", (str, list, tuple), "column names (a list of str)")
    if isinstance(by, str):
        by = [b for b in by.split(",") if b]
    by = list(by)
    found = verdicts.domain if isinstance(verdicts, Verdicts) else verdicts_domain(verdicts, domain=domain)
    groupable = (*GROUPABLE[:3], found.stratum, *GROUPABLE[3:])
    wrong = [b for b in by if b not in groupable]
    if wrong:
        raise UserError(f"cannot group by {wrong}; choose from {', '.join(groupable)}")
    if len(set(by)) != len(by):
        raise UserError(f"group columns repeat: {by}")
    is_sums = (
        not isinstance(verdicts, Verdicts)
        and set(SUM_COLUMNS) <= set(verdicts.columns)
        and "status" not in verdicts.columns
    )
    if is_sums:
        dup = verdicts.duplicated(BOARD_KEYS).to_numpy()
        if dup.any():
            i = int(dup.argmax())
            raise InputError(
                f"board sums: row {i + 1}: (condition, board_id) {tuple(verdicts[BOARD_KEYS].iloc[i])} "
                "appears more than once; form them once with fastspe.stats.metrics.board_sums"
            )
    sums = verdicts if is_sums else board_sums(verdicts, found)
    if by:
        grouped = sums.groupby(by, sort=True)[SUM_COLUMNS].sum().reset_index()
    else:
        grouped = sums[SUM_COLUMNS].sum().to_frame().T.reset_index(drop=True)
    return pd.concat([grouped[by], metrics_from_sums(grouped)], axis=1)
