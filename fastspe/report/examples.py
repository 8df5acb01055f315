"""Example pages for the report: per condition and certified depth, the first failure and the best completion.

A reviewer asking "show me one" gets a replay page (``viewer_html``: the state as its domain draws it) per cell of the
primary cohort, chosen deterministically: the first failure is the first answer that does not complete in
(board_id, trial) order; the best completion is the complete answer with the fewest excess moves, ties in the same
order. At most ``MAX_DEPTHS`` depths per condition (spread over the range), two pages each.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .viewer_html import write_trace_page

FOLDER = "examples"
MAX_DEPTHS = 8
KINDS = ("first failure", "best completion")


@dataclass(frozen=True)
class Example:
    """One example page: its cell, its kind (``KINDS``) and its path relative to the report folder."""

    condition: str
    depth: int
    kind: str
    href: str
    status: str


def spread(values: Sequence[int], most: int = MAX_DEPTHS) -> list[int]:
    """At most ``most`` of the sorted ``values``, spread evenly from the least to the greatest."""
    values = sorted(values)
    if len(values) <= most:
        return values
    picks = np.unique(np.round(np.linspace(0, len(values) - 1, most)).astype(int))
    return [values[i] for i in picks]


def chosen(positions: np.ndarray, complete: np.ndarray, excess: np.ndarray) -> dict:
    """The kind -> row position of one condition x depth cell, from its rows' ``positions`` in (board_id, trial)
    order and every row's ``complete`` flag and ``excess`` moves (a kind the cell has no answer for is left out)."""
    out = {}
    failed = positions[~complete[positions]]
    if len(failed):
        out[KINDS[0]] = int(failed[0])
    done = positions[complete[positions]]
    if len(done):
        out[KINDS[1]] = int(done[np.argmin(excess[done])])  # argmin: the first of the least
    return out


def write_examples(
    out: Path, bank: pd.DataFrame, domain, verdicts: pd.DataFrame, order: Sequence[str], cohort: str
) -> list[Example]:
    """Write the example pages of ``cohort`` under ``out/examples/`` and return them in (condition, depth) order;
    none when the bank lacks what its domain's viewer reads (``Domain.trace_columns``: a bank of board facts only) or
    the domain has none."""
    if not domain.trace_columns or not set(domain.trace_columns) <= set(bank.columns):
        return []
    boards = bank.drop_duplicates("board_id").set_index("board_id")
    part = verdicts[verdicts["cohort"] == cohort].sort_values(["board_id", "trial"], kind="stable")
    cells = part.groupby(["condition", "depth"], sort=False).indices  # each cell's rows, still in that order
    complete = (part["status"] == "complete").to_numpy(bool)
    cost = part["cost" if "cost" in part.columns else "L"]  # a push bank's verdicts: d* counts pushes
    excess = cost.to_numpy(np.int64) - part["depth"].to_numpy(np.int64)
    depths: dict = {}
    for condition, depth in cells:
        depths.setdefault(condition, []).append(int(depth))
    examples = []
    for n, condition in enumerate(order):
        for depth in spread(depths.get(condition, ())):
            for kind, pos in chosen(cells[condition, depth], complete, excess).items():
                row = part.iloc[pos].to_dict()
                href = f"{FOLDER}/c{n + 1:02d}-d{depth}-{kind.split()[0]}.html"
                trace = domain.trace(boards.loc[row["board_id"]].to_dict(), row)
                write_trace_page(trace, out / href)
                examples.append(Example(condition, depth, kind, href, trace.status))
    return examples
