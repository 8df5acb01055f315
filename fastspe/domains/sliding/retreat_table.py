"""Completion, economy and SPE as the forced heuristic retreat grows at a fixed certified depth.

A bank with search-certified boards records ``retreat = d* - h`` per board (``fastspe.domains.sliding.bank.search``);
this table joins it to the verdicts by board id and reports, per certified depth that has search
boards, per retreat and per condition: N outputs, completion C, economy E and SPE. Boards of the same
depth certified by h-walks sit at retreat 0, the baseline. The numbers come from the per-board sums of
``fastspe.stats.metrics`` (one definition of each metric), summed over the boards of each group.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ...boundary.errors import InputError
from ...boundary.verdicts import Verdicts
from ...stats.metrics import SUM_COLUMNS, board_sums, metrics_from_sums
from ...report.tables import RATE, Table

SHOWN = ["N", "C", "E", "SPE"]


def bank_retreats(bank: pd.DataFrame) -> pd.DataFrame:
    """``board_id, retreat, searched`` of each board; banks without the columns are all h-walk (retreat 0)."""
    n = len(bank)
    retreat = bank["retreat"].to_numpy(np.int64) if "retreat" in bank else np.zeros(n, dtype=np.int64)
    searched = np.zeros(n, dtype=bool)
    if "certificate_kind" in bank:
        searched = (bank["certificate_kind"] == "search").to_numpy(bool)
    return pd.DataFrame({"board_id": bank["board_id"].to_numpy(), "retreat": retreat, "searched": searched})


def retreat_table(verdicts: Verdicts | pd.DataFrame, bank: pd.DataFrame, conditions: Sequence[str]) -> Table | None:
    """N, C, E, SPE per (depth, retreat, condition) at the depths that have search-certified boards.

    Parameters
    ----------
    verdicts : checked ``Verdicts``, or a DataFrame as ``fastspe score`` writes them (checked by
        ``metrics.board_sums``)
    bank : the bank the verdicts were scored on (``board_id``, ``depth``, optional ``retreat`` and
        ``certificate_kind``)
    conditions : the conditions to show, in order

    Returns None when the bank has no search-certified boards (nothing to show).
    """
    boards = bank_retreats(bank)
    if not boards["searched"].any():
        return None
    sums = board_sums(verdicts)
    joined = sums.merge(boards, on="board_id", how="left", validate="many_to_one")
    missing = joined["retreat"].isna().to_numpy()
    if missing.any():
        bid = joined["board_id"].iloc[int(missing.argmax())]
        raise InputError(f"verdicts: board_id {bid!r} is not in the bank: score and report against the same bank")
    depths = set(bank.loc[boards["searched"].to_numpy(), "depth"].astype(int))
    joined = joined[joined["depth"].astype(int).isin(depths) & joined["condition"].isin(list(conditions))]
    joined = joined.astype({"retreat": np.int64})
    keys = ["depth", "retreat", "condition"]
    grouped = joined.groupby(keys, sort=True)[SUM_COLUMNS].sum().reset_index()
    frame = pd.concat([grouped[keys], metrics_from_sums(grouped)[SHOWN]], axis=1)
    rank = {c: i for i, c in enumerate(conditions)}
    frame = (
        frame.assign(_r=frame["condition"].map(rank))
        .sort_values(["depth", "retreat", "_r"], kind="stable")
        .drop(columns="_r")
        .reset_index(drop=True)
    )
    return Table(
        "by_retreat",
        "Completion $C$, economy $E$ and SPE by forced heuristic retreat $d^* - h$ at each "
        "certified depth $d^*$ with search-certified boards (retreat 0 includes h-walk boards).",
        frame,
        {"C": RATE, "E": RATE, "SPE": RATE},
        heading="Results by forced heuristic retreat",
    )


def report_tables(verdicts, bank: pd.DataFrame, conditions: Sequence[str]) -> list[Table]:
    """The domain's own report tables: the retreat table, when the bank has search-certified boards."""
    table = retreat_table(verdicts, bank, conditions)
    return [] if table is None else [table]
