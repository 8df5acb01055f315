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
    # one layout (most banks): compare with its goal broadcast, not with a copy per board
    want = goals[:1] if len(goals) == 1 else goals[layouts.index]
    at.first(_rows_differ(goal, want), lambda i: f"goal {goal[i].tolist()} is not its layout's goal "
                                                   f"{_row(want, i).tolist()}")
    blocked_wrong = _rows_differ(initial == -1, want == -1)
    at.first(blocked_wrong, lambda i: f"initial {initial[i].tolist()} does not hold -1 exactly on the blocked cells")
    # with -1 exactly on the blocks, the free cells hold each of 0..tiles once iff the set of their values
    # (a bit per value) is the goal's: as many free cells as values, so no value can repeat
    not_perm = _value_bits(initial) != _value_bits(goals)[layouts.index]
    at.first(not_perm, lambda i: f"initial {initial[i].tolist()} is not a permutation of the tiles "
                                 f"0..{int(_row(want, i).max())}")


def _rows_differ(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """bool (n,): does row i of ``a`` differ anywhere from row i of ``b`` (or from ``b``'s one row)?

    Rows of a multiple of 8 bytes are compared 8 bytes at a time, and the few columns are or-ed as whole
    columns: numpy's per-row reductions over 16 cells cost more than the comparisons."""
    if a.shape[1] % 8 == 0 and a.flags.c_contiguous and b.flags.c_contiguous:
        a, b = a.view(np.uint64), b.view(np.uint64)
    differ = a != b
    out = differ[:, 0].copy()
    for c in range(1, differ.shape[1]):
        out |= differ[:, c]
    return out


def _row(boards: np.ndarray, i: int) -> np.ndarray:
    return boards[0] if len(boards) == 1 else boards[i]


_VALUE_BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))  # value v -> bit v + 1


_MOVE_BYTE = np.zeros(256, dtype=bool)
_MOVE_BYTE[np.frombuffer(b"UDLR", dtype=np.uint8)] = True


def _only_move_letters(strings: pa.Array) -> np.ndarray:
    """bool (n,): each string holds only U, D, L, R (one table look-up per byte, no regex)."""
    strings = strings.cast(pa.large_string())
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)[strings.offset:strings.offset + len(strings) + 1]
    data = np.frombuffer(strings.buffers()[2], dtype=np.uint8) if strings.buffers()[2] is not None else \
        np.zeros(0, dtype=np.uint8)
    letters = data[offsets[0]:offsets[-1]]
    ok = np.ones(len(strings), dtype=bool)
    if not letters.tobytes().translate(None, b"UDLR"):  # every byte a move letter: one C pass, the usual case
        return ok
    bad_at = np.flatnonzero(~_MOVE_BYTE[letters]) + offsets[0]
    ok[np.searchsorted(offsets, bad_at, side="right") - 1] = False  # the string holding each bad byte
    return ok


def _value_bits(boards: np.ndarray) -> np.ndarray:
    """uint64 (n,): bit v + 1 set for each value v (-1..62) on each board (a block of rows at a time)."""
    bits = np.empty(len(boards), dtype=np.uint64)
    for lo in range(0, len(boards), _BLOCK_ROWS):
        block = boards[lo:lo + _BLOCK_ROWS]
        # cells along the first axis: the reduction runs over whole rows of boards, not 16 cells at a time
        np.bitwise_or.reduce(_VALUE_BIT[block.T.astype(np.intp) + 1], axis=0, out=bits[lo:lo + len(block)])
    return bits


_BLOCK_ROWS = 1 << 14  # rows per vectorized step over (rows, cells) temporaries: a few MB, in cache


def check_depths(cols: dict, ints: dict, initial: np.ndarray, layouts: BankLayouts, at: RowErrors) -> None:
    """h equal to h(initial), the certificate ``depth`` U/D/L/R letters, depth and h as the certificate kind
    allows (equal for an h-walk, h <= depth of the same parity for a search), ``retreat == depth - h``."""
    depth, h = ints["depth"], ints["h"]
    at.first(depth < 0, lambda i: f"depth is {depth[i]}, must be >= 0")
    h_true = boards_h(initial, layouts)
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
    """h of each checked board: the sum over tiles of free-cell distances to their goal cells.

    One table ``steps[layout, cell, value + 1]`` (the distance from the cell to the value's goal cell, 0 for
    the blank and blocks) and one gather per block of rows.
    """
    width = boards.shape[1]
    goals, dist = _layout_tables(layouts, width)
    values = width + 1  # -1 (blocked), 0 (blank), 1..width - 1
    steps = np.zeros((len(layouts.layouts), width, values), dtype=np.int64)
    for j in range(len(layouts.layouts)):
        for cell in np.flatnonzero(goals[j] > 0):
            steps[j, :, goals[j][cell] + 1] = dist[j, :, cell]
    flat = steps.ravel()
    base = np.arange(width, dtype=np.intp)[:, None] * values + 1
    lay = layouts.index
    h = np.empty(len(boards), dtype=np.int64)
    for lo in range(0, len(boards), _BLOCK_ROWS):
        block = boards[lo:lo + _BLOCK_ROWS]
        index = block.T.astype(np.intp) + base  # (cells, rows): sums over whole rows, as in ``_value_bits``
        if len(layouts.layouts) > 1:
            index += lay[lo:lo + len(block)] * (width * values)
        h[lo:lo + len(block)] = flat[index].sum(axis=0)
    return h


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


_MAX_RUNS = 1024  # runs of ids of one length beyond which the hash count is the quicker proof


def _ids_ordered_apart(ids: pa.Array) -> bool:
    """True when the ids are distinct by their order alone, as a bank's are (``NAME-000``, ``NAME-001``, ...
    per cell): cut into runs of rows whose ids have one byte length and increase strictly, no two runs of
    one length overlap. False means not proven (the caller counts the ids), never a repeat."""
    ids = ids.cast(pa.large_string())
    if ids.buffers()[2] is None or len(ids) < 2:
        return len(ids) < 2
    offsets = np.frombuffer(ids.buffers()[1], dtype=np.int64)[ids.offset:ids.offset + len(ids) + 1]
    data = np.frombuffer(ids.buffers()[2], dtype=np.uint8)
    lengths = np.diff(offsets)
    cuts = np.flatnonzero(np.diff(lengths)) + 1
    if len(cuts) >= _MAX_RUNS:
        return False
    spans: dict[int, list] = {}
    for lo, hi in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [len(ids)]])):
        width = int(lengths[lo])
        if width == 0 and hi - lo > 1:  # two empty ids
            return False
        rows = data[offsets[lo]:offsets[hi]].reshape(hi - lo, width)
        breaks = [np.zeros(0, dtype=np.intp)]
        for a in range(0, hi - lo - 1, _BLOCK_ROWS):  # compare rows i and i + 1 at the first byte where they differ
            b = min(a + _BLOCK_ROWS + 1, hi - lo)
            this, after = rows[a:b - 1], rows[a + 1:b]
            differ = this != after
            first = differ.argmax(axis=1)
            step = np.arange(len(first))
            if not differ[step, first].all():  # two equal neighbours
                return False
            breaks.append(a + 1 + np.flatnonzero(after[step, first] < this[step, first]))
            if sum(len(x) for x in breaks) >= _MAX_RUNS:
                return False
        edges = np.concatenate([[0], *breaks, [hi - lo]])
        spans.setdefault(width, []).extend((rows[i].tobytes(), rows[j - 1].tobytes()) for i, j in zip(edges, edges[1:]))
    for runs in spans.values():
        runs.sort()
        if any(runs[i][1] >= runs[i + 1][0] for i in range(len(runs) - 1)):
            return False
    return True
