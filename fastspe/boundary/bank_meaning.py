"""What a bank's rows must mean, checked vectorized over the boards (``banks.check_bank_table`` calls these).

Each goal is its layout's; each initial board holds -1 exactly on the blocks and the tiles 0..n once; ``h``
is h(initial); the certificate has ``depth`` U/D/L/R letters; ``depth == h`` for h-walk boards and
``h <= depth`` of the same parity for search-certified ones; ``retreat == depth - h``; board ids unique.
Each check raises for the first row at fault, through the table's ``RowErrors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from .bank_rows import BankLayouts, RowErrors

CERTIFICATE_KINDS = ("h-walk", "search")


def _layout_tables(layouts: BankLayouts, width: int):
    """Stacked goal boards (L, width) int8 and distance tables (L, width, width) int16, -1 padded."""
    goals = np.full((len(layouts.layouts), width), -1, dtype=np.int8)
    dist = np.full((len(layouts.layouts), width, width), -1, dtype=np.int16)
    for j, lay in enumerate(layouts.layouts):
        goals[j, :lay.cells] = lay.goal
        dist[j, :lay.cells, :lay.cells] = lay.distances
    return goals, dist


def check_boards(initial: np.ndarray, goal: np.ndarray, layouts: BankLayouts, at: RowErrors) -> None:
    """Each goal its layout's, -1 exactly on the blocked cells, each initial board a permutation of the tiles."""
    goals, _ = _layout_tables(layouts, initial.shape[1])
    want = goals[layouts.index]
    at.first((goal != want).any(axis=1), lambda i: f"goal {goal[i].tolist()} is not its layout's goal "
                                                   f"{want[i].tolist()}")
    blocked_wrong = ((initial == -1) != (want == -1)).any(axis=1)
    at.first(blocked_wrong, lambda i: f"initial {initial[i].tolist()} does not hold -1 exactly on the blocked cells")
    # with -1 exactly on the blocks, the free cells hold each of 0..tiles once iff the set of their values
    # (a bit per value) is the goal's: as many free cells as values, so no value can repeat
    not_perm = _value_bits(initial) != _value_bits(want)
    at.first(not_perm, lambda i: f"initial {initial[i].tolist()} is not a permutation of the tiles "
                                 f"0..{int(want[i].max())}")


_VALUE_BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))  # value v -> bit v + 1


_MOVE_BYTE = np.zeros(256, dtype=bool)
_MOVE_BYTE[np.frombuffer(b"UDLR", dtype=np.uint8)] = True


def _only_move_letters(strings: pa.Array) -> np.ndarray:
    """bool (n,): each string holds only U, D, L, R (one table look-up per byte, no regex)."""
    strings = strings.cast(pa.large_string())
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)[strings.offset:strings.offset + len(strings) + 1]
    data = np.frombuffer(strings.buffers()[2], dtype=np.uint8) if strings.buffers()[2] is not None else \
        np.zeros(0, dtype=np.uint8)
    bad_at = np.flatnonzero(~_MOVE_BYTE[data[offsets[0]:offsets[-1]]]) + offsets[0]
    ok = np.ones(len(strings), dtype=bool)
    ok[np.searchsorted(offsets, bad_at, side="right") - 1] = False  # the string holding each bad byte
    return ok


def _value_bits(boards: np.ndarray) -> np.ndarray:
    """uint64 (n,): bit v + 1 set for each value v (-1..62) on each board (one column at a time)."""
    bits = np.zeros(len(boards), dtype=np.uint64)
    for c in range(boards.shape[1]):
        bits |= _VALUE_BIT[boards[:, c].astype(np.intp) + 1]
    return bits


def check_depths(cols: dict, ints: dict, initial: np.ndarray, layouts: BankLayouts, at: RowErrors) -> None:
    """h equal to h(initial), the certificate ``depth`` U/D/L/R letters, depth and h as the certificate kind
    allows (equal for an h-walk, h <= depth of the same parity for a search), ``retreat == depth - h``."""
    depth, h = ints["depth"], ints["h"]
    at.first(depth < 0, lambda i: f"depth is {depth[i]}, must be >= 0")
    h_true = boards_h(initial, layouts)
    at.first(h != h_true, lambda i: f"h is {h[i]} but h(initial) is {h_true[i]}")
    cert = cols["certificate"]
    cert_len = pc.utf8_length(cert).to_numpy(zero_copy_only=False)
    at.first(cert_len != depth, lambda i: f"certificate has {cert_len[i]} moves but depth is {depth[i]}")
    letters = _only_move_letters(cert)
    at.first(~letters, lambda i: f"certificate {cert[i].as_py()[:40]!r} has letters other than U, D, L, R")
    kind = cols.get("certificate_kind")
    searched = np.zeros(len(depth), dtype=bool)
    if kind is not None:
        kinds = np.asarray(kind.to_numpy(zero_copy_only=False), dtype=object)
        known = np.isin(kinds, CERTIFICATE_KINDS) | (kinds == None)  # noqa: E711 (elementwise)
        at.first(~known, lambda i: f"certificate_kind {kinds[i]!r} is not one of {', '.join(CERTIFICATE_KINDS)}")
        searched = kinds == "search"
    # an h-walk certificate proves d* = h; a search certificate only needs d* >= h
    at.first(~searched & (h != depth), lambda i: f"depth is {depth[i]} but h is {h[i]}: an h-certified board has "
                                                 "depth = h")
    at.first(searched & (h > depth), lambda i: f"depth is {depth[i]}, below its lower bound h = {h[i]}")
    # every move changes h by one, so a plan of length depth from h to 0 has depth - h even
    at.first((depth - h) % 2 != 0, lambda i: f"depth {depth[i]} and h {h[i]} differ in parity: no plan of "
                                             "that length reaches the goal")
    if "retreat" in ints:
        retreat = ints["retreat"]
        at.first(retreat != depth - h, lambda i: f"retreat is {retreat[i]} but depth - h is {depth[i] - h[i]}")


def boards_h(boards: np.ndarray, layouts: BankLayouts) -> np.ndarray:
    """h of each checked board: the sum over tiles of free-cell distances to their goal cells."""
    width = boards.shape[1]
    goals, dist = _layout_tables(layouts, width)
    goal_cell = np.zeros((len(layouts.layouts), width + 1), dtype=np.int64)
    for j in range(len(layouts.layouts)):
        tiles = goals[j] > 0
        goal_cell[j, goals[j][tiles]] = np.flatnonzero(tiles)
    lay = layouts.index
    h = np.zeros(len(boards), dtype=np.int64)
    for c in range(width):  # one vectorized step per cell, not per board
        tile = boards[:, c].astype(np.int64)
        here = tile > 0
        d = dist[lay, c, goal_cell[lay, np.where(here, tile, 0)]]
        h += np.where(here, d, 0)
    return h


def check_unique_ids(ids: pa.Array, at: RowErrors) -> None:
    """No board id twice (the error names the second row and the first)."""
    counts = pc.value_counts(ids)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        hits = np.flatnonzero(pc.is_in(ids, value_set=repeated).to_numpy(zero_copy_only=False))
        first = ids[int(hits[0])].as_py()
        rows = np.flatnonzero(pc.equal(ids, first).to_numpy(zero_copy_only=False))
        raise at.error(int(rows[1]), f"board_id {first!r} appears more than once (also {at.unit} "
                                     f"{at.line_of(int(rows[0])) if at.line_of else int(rows[0]) + 1})")
