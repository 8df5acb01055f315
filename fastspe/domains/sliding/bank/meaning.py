"""What a sliding-puzzle bank's rows must mean, checked vectorized over the boards (``bank.table`` calls these).

Each goal is its layout's; each initial board holds -1 exactly on the blocks and the tiles 0..n once; ``h``
is h(initial); the certificate has ``depth`` U/D/L/R letters; ``depth == h`` for h-walk boards and
``h <= depth`` of the same parity for search-certified ones; ``retreat == depth - h``.
Each check raises for the first row at fault, through the table's ``RowErrors``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ....boundary.bank_rows import RowErrors, string_buffers
from ....kernels.text_check import move_letters_only
from ..kernels.bank_check import SPAN, board_faults
from ..layout import Layout

CERTIFICATE_KINDS = ("h-walk", "search")


@dataclass(frozen=True)
class BankLayouts:
    """The distinct layouts of a bank and the index of each board's layout in ``layouts``."""

    layouts: tuple[Layout, ...]
    index: np.ndarray  # int64 (n,)


def _layout_tables(layouts: BankLayouts, width: int):
    """Stacked goal boards (L, width) int8 and distance tables (L, width, width) int16, -1 padded."""
    goals = np.full((len(layouts.layouts), width), -1, dtype=np.int8)
    dist = np.full((len(layouts.layouts), width, width), -1, dtype=np.int16)
    for j, lay in enumerate(layouts.layouts):
        goals[j, : lay.cells] = lay.goal
        dist[j, : lay.cells, : lay.cells] = lay.distances
    return goals, dist


def check_boards(initial: np.ndarray, goal: np.ndarray, layouts: BankLayouts, at: RowErrors) -> np.ndarray:
    """Each goal its layout's, -1 exactly on the blocked cells, each initial board a permutation of the tiles;
    returns h(initial) of each board (one compiled pass over the boards does all four)."""
    goals, dist = _layout_tables(layouts, initial.shape[1])
    goal_wrong, blocks_wrong, values_wrong, h = board_faults(
        initial, goal, layouts.index, goals, _steps_table(goals, dist)
    )
    want = lambda i: goals[layouts.index[i]]  # noqa: E731
    at.first(goal_wrong, lambda i: f"goal {goal[i].tolist()} is not its layout's goal {want(i).tolist()}")
    at.first(blocks_wrong, lambda i: f"initial {initial[i].tolist()} does not hold -1 exactly on the blocked cells")
    # with -1 exactly on the blocks, the free cells hold each of 0..tiles once iff the set of their values is
    # the goal's: as many free cells as values, so no value can repeat
    at.first(
        values_wrong,
        lambda i: f"initial {initial[i].tolist()} is not a permutation of the tiles 0..{int(want(i).max())}",
    )
    return h


def _steps_table(goals: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """int64 (L, width, SPAN): ``[layout, cell, value + 1]`` the distance from the cell to the value's goal
    cell, 0 for the blank, blocks and values not on the board (h of a board is the sum over its cells)."""
    lays, width = goals.shape
    steps = np.zeros((lays, width, SPAN), dtype=np.int64)
    for j in range(lays):
        for cell in np.flatnonzero(goals[j] > 0):
            steps[j, :, goals[j][cell] + 1] = dist[j, :, cell]
    return steps


def _only_move_letters(strings: pa.Array) -> np.ndarray:
    """bool (n,): each string holds only U, D, L, R."""
    data, offsets = string_buffers(strings)
    return move_letters_only(data, offsets)


def check_depths(cols: dict, ints: dict, h_true: np.ndarray, at: RowErrors) -> None:
    """h equal to ``h_true`` (h(initial), from ``check_boards``), the certificate ``depth`` U/D/L/R letters,
    depth and h as the certificate kind allows (equal for an h-walk, h <= depth of the same parity for a
    search), ``retreat == depth - h``."""
    depth, h = ints["depth"], ints["h"]
    at.first(depth < 0, lambda i: f"depth is {depth[i]}, must be >= 0")
    at.first(h != h_true, lambda i: f"h is {h[i]} but h(initial) is {h_true[i]}")
    cert = cols["certificate"]
    letters = _only_move_letters(cert)
    # ASCII letters only: a string's length in characters is its length in bytes
    cert_len = (pc.binary_length(cert) if letters.all() else pc.utf8_length(cert)).to_numpy(zero_copy_only=False)
    at.first(cert_len != depth, lambda i: f"certificate has {cert_len[i]} moves but depth is {depth[i]}")
    at.first(~letters, lambda i: f"certificate {cert[i].as_py()[:40]!r} has letters other than U, D, L, R")
    kind = cols.get("certificate_kind")
    searched = np.zeros(len(depth), dtype=bool)
    if kind is not None:
        known = pc.or_kleene(pc.is_in(kind, value_set=pa.array(CERTIFICATE_KINDS)), pc.is_null(kind))
        at.first(
            ~known.to_numpy(zero_copy_only=False),
            lambda i: f"certificate_kind {kind[i].as_py()!r} is not one of {', '.join(CERTIFICATE_KINDS)}",
        )
        searched = pc.fill_null(pc.equal(kind, "search"), False).to_numpy(zero_copy_only=False)
    # an h-walk certificate proves d* = h; a search certificate only needs d* >= h
    at.first(
        ~searched & (h != depth), lambda i: f"depth is {depth[i]} but h is {h[i]}: an h-certified board has depth = h"
    )
    at.first(searched & (h > depth), lambda i: f"depth is {depth[i]}, below its lower bound h = {h[i]}")
    # every move changes h by one, so a plan of length depth from h to 0 has depth - h even
    at.first(
        (depth - h) & 1 != 0,
        lambda i: f"depth {depth[i]} and h {h[i]} differ in parity: no plan of that length reaches the goal",
    )
    if "retreat" in ints:
        retreat = ints["retreat"]
        at.first(retreat != depth - h, lambda i: f"retreat is {retreat[i]} but depth - h is {depth[i] - h[i]}")
