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

from ..kernels.bank_check import SPAN, board_faults, id_runs, move_letters_only

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


def check_boards(initial: np.ndarray, goal: np.ndarray, layouts: BankLayouts, at: RowErrors) -> np.ndarray:
    """Each goal its layout's, -1 exactly on the blocked cells, each initial board a permutation of the tiles;
    returns h(initial) of each board (one compiled pass over the boards does all four)."""
    goals, dist = _layout_tables(layouts, initial.shape[1])
    goal_wrong, blocks_wrong, values_wrong, h = board_faults(initial, goal, layouts.index, goals,
                                                             _steps_table(goals, dist))
    want = lambda i: goals[layouts.index[i]]  # noqa: E731
    at.first(goal_wrong, lambda i: f"goal {goal[i].tolist()} is not its layout's goal {want(i).tolist()}")
    at.first(blocks_wrong, lambda i: f"initial {initial[i].tolist()} does not hold -1 exactly on the blocked cells")
    # with -1 exactly on the blocks, the free cells hold each of 0..tiles once iff the set of their values is
    # the goal's: as many free cells as values, so no value can repeat
    at.first(values_wrong, lambda i: f"initial {initial[i].tolist()} is not a permutation of the tiles "
                                     f"0..{int(want(i).max())}")
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


def string_buffers(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The bytes (uint8) and the n + 1 offsets into them of a string array, without a copy."""
    if not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        strings = strings.cast(pa.large_string())
    wide = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    buffers = strings.buffers()
    offsets = np.frombuffer(buffers[1], dtype=wide)[strings.offset:strings.offset + len(strings) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, dtype=np.uint8)
    return data, offsets


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
        at.first(~known.to_numpy(zero_copy_only=False),
                 lambda i: f"certificate_kind {kind[i].as_py()!r} is not one of {', '.join(CERTIFICATE_KINDS)}")
        searched = pc.fill_null(pc.equal(kind, "search"), False).to_numpy(zero_copy_only=False)
    # an h-walk certificate proves d* = h; a search certificate only needs d* >= h
    at.first(~searched & (h != depth), lambda i: f"depth is {depth[i]} but h is {h[i]}: an h-certified board has "
                                                 "depth = h")
    at.first(searched & (h > depth), lambda i: f"depth is {depth[i]}, below its lower bound h = {h[i]}")
    # every move changes h by one, so a plan of length depth from h to 0 has depth - h even
    at.first((depth - h) & 1 != 0, lambda i: f"depth {depth[i]} and h {h[i]} differ in parity: no plan of "
                                             "that length reaches the goal")
    if "retreat" in ints:
        retreat = ints["retreat"]
        at.first(retreat != depth - h, lambda i: f"retreat is {retreat[i]} but depth - h is {depth[i] - h[i]}")


def check_unique_ids(ids: pa.Array, at: RowErrors) -> None:
    """No board id twice (the error names the second row and the first)."""
    if _ids_ordered_apart(ids):
        return
    counts = pc.value_counts(ids)
    repeated = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(repeated):
        hits = np.flatnonzero(pc.is_in(ids, value_set=repeated).to_numpy(zero_copy_only=False))
        first = ids[int(hits[0])].as_py()
        rows = np.flatnonzero(pc.equal(ids, first).to_numpy(zero_copy_only=False))
        raise at.error(int(rows[1]), f"board_id {first!r} appears more than once (also {at.unit} "
                                     f"{at.line_of(int(rows[0])) if at.line_of else int(rows[0]) + 1})")


_MAX_RUNS = 4096  # runs of increasing ids beyond which the hash count is the quicker proof


def _ids_ordered_apart(ids: pa.Array) -> bool:
    """True when the ids are distinct by their order alone, as a bank's are (``NAME-000``, ``NAME-001``, ...
    per cell): cut into runs of rows whose ids have one byte length and increase strictly (one compiled
    pass), no two runs of one length overlap. False means not proven (the caller counts the ids), never a
    repeat."""
    if len(ids) < 2:
        return True
    data, offsets = string_buffers(ids)
    starts, status = id_runs(data, offsets, _MAX_RUNS)
    if status:
        return False
    spans: dict[int, list] = {}
    for lo, hi in zip(starts.tolist(), starts[1:].tolist() + [len(ids)]):
        first, last = data[offsets[lo]:offsets[lo + 1]], data[offsets[hi - 1]:offsets[hi]]
        spans.setdefault(len(first), []).append((first.tobytes(), last.tobytes()))
    for runs in spans.values():
        runs.sort()
        if any(runs[i][1] >= runs[i + 1][0] for i in range(len(runs) - 1)):
            return False
    return True
