"""Batched plan replay: run every plan on its board in parallel and record what happened.

Conventions (see ``kernels.graph``): boards are int8 rows, 0 blank, -1 blocked; ``moves`` gives
the cell the blank enters for each direction 0=U, 1=D, 2=L, 3=R (-1 off the board, -2 a block).
Here the tables of several layouts are stacked along a first axis and each plan names its own.

A plan is a run of uint8 action codes: 0..3 are the four directions, anything else is a token
that is not a move (``invalid_action``). Replay stops at the first illegal action and never skips
or repairs it.

Revisits are counted exactly. Each state is packed into ``nwords`` uint64 words, one
``bits``-wide field per cell holding the tile number (blank and blocked cells hold 0), so two
states of one layout have the same key if and only if they are the same board (the blocked cells
are fixed by the layout). A move changes two fields, so the key is updated with two XORs. Keys
go into a per-plan open-addressing table that stores the full key: the hash only picks the slot,
so a hash collision costs a probe, never a wrong answer. Revisits = states visited - distinct
states, the initial state included.

Boards of up to 16 cells and 15 tiles (every 4x4 board) fit one word; their path keeps the key
in a register, uses 0 as the empty slot (no state packs to 0) and counts revisits without a
branch, since whether a state is new is a coin toss for the branch predictor. Larger boards take
the multi-word path, whose table marks occupied slots with the plan's index.
"""

from __future__ import annotations

import numpy as np

from ...._numba import njit, prange
from ....kernels.replay_outputs import CHUNK, chunk_of, longest_plan, new_outputs, status_of, store
from ....kernels.visited import GOLDEN as _GOLDEN, seen_again, start_table, table_bits
from ...codes import COMPLETE, ILLEGAL, INVALID_ACTION, LEGAL_NONCOMPLETION, NO_ERROR  # noqa: F401 - the statuses the module held before it moved
from ...vocabulary import DIRECTIONS

BOUNDARY, OBSTACLE = 1, 2  # the sliding puzzle's own kinds of illegal move (``codes``: 0, 3 and 4 are shared)
ERROR_NAMES = ("", "boundary", "obstacle", "invalid_action", "format")
INVALID_CODE = DIRECTIONS.invalid_code  # the code of a token that is not a move (any code from here up is one)


def key_layout(cells: int, max_tile: int) -> tuple[int, int, int]:
    """(bits, per_word, nwords) of the exact state key for boards of ``cells`` cells.

    ``bits`` is the field width that holds tile numbers up to ``max_tile``; fields never straddle
    words, so a 4x4 board (tiles <= 15, 4 bits, 16 per word) packs into one word.
    """
    bits = max(1, int(max_tile).bit_length())
    per_word = 64 // bits
    return bits, per_word, -(-cells // per_word)


@njit
def _seen_before(key, nwords, tab_keys, tab_stamp, stamp, tbits):
    """Insert ``key`` into the plan's table; True if it was already there.

    Slots whose stamp is not this plan's are empty, so the table needs no clearing between plans.
    """
    hv = key[0]
    for w in range(1, nwords):
        hv = (hv ^ key[w]) * _GOLDEN
    hv = hv * _GOLDEN
    mask = (1 << tbits) - 1
    slot = np.int64(hv >> np.uint64(64 - tbits))
    while True:
        if tab_stamp[slot] != stamp:
            tab_stamp[slot] = stamp
            for w in range(nwords):
                tab_keys[slot, w] = key[w]
            return False
        same = True
        for w in range(nwords):
            if tab_keys[slot, w] != key[w]:
                same = False
                break
        if same:
            return True
        slot = (slot + 1) & mask


@njit
def _start(board, dist, goal_cell):
    """Blank cell and h of a board."""
    blank = 0
    h = 0
    for c in range(board.shape[0]):
        v = board[c]
        if v == 0:
            blank = c
        elif v > 0:
            h += dist[goal_cell[v], c]
    return blank, h


@njit
def _replay_one_word(board, plan, moves, dist, goal_cell, shift_of, table):
    """Replay one plan whose state key fits one word (every board up to 16 cells and 15 tiles).

    The table holds bare keys, 0 meaning empty: no state packs to 0, since tile 1 sits in some
    cell and gives that cell's field a non-zero value.
    """
    blank, h = _start(board, dist, goal_cell)
    key = np.uint64(0)
    for c in range(board.shape[0]):
        if board[c] > 0:
            key |= np.uint64(board[c]) << shift_of[c]
    length = plan.shape[0]
    down, umask = start_table(table, key, length)
    min_h = h
    midway = h == 0 and length > 0
    revisits = 0
    kind = NO_ERROR
    first_error = -1
    ublank = np.uintp(blank)
    zeros = 0
    for i in range(length):
        code = plan[i]
        if code > 3:
            kind = INVALID_ACTION
            first_error = i
            break
        t = moves[ublank, np.uintp(code)]
        if t < 0:
            kind = BOUNDARY if t == -1 else OBSTACLE
            first_error = i
            break
        # unsigned indices spare numba's negative-index wraparound on every access
        ut_ = np.uintp(t)
        tile = board[ut_]
        g = np.uintp(goal_cell[np.uintp(tile)])
        # the tile on t slides onto the blank's cell; only its distance term changes
        h += dist[g, ublank] - dist[g, ut_]
        board[ublank] = tile
        board[ut_] = 0
        ut = np.uint64(tile)
        key ^= (ut << shift_of[ublank]) ^ (ut << shift_of[ut_])
        ublank = ut_
        min_h = min(min_h, h)
        zeros += h == 0  # counted, not branched on: see midway below
        revisits += seen_again(table, key, down, umask)
    # the goal before the last action: a visit to it that is not the final state of a legal plan
    if kind == NO_ERROR and h == 0 and length > 0:
        zeros -= 1
    midway = midway or zeros > 0
    return status_of(kind, h), kind, first_error, h, min_h, revisits, midway


@njit
def _replay_one(p, board, plan, moves, dist, goal_cell, word_of, shift_of, key, nwords, tab_keys, tab_stamp):
    """Replay one plan with a multi-word state key (boards with more cells or tiles)."""
    blank, h = _start(board, dist, goal_cell)
    for w in range(nwords):
        key[w] = np.uint64(0)
    for c in range(board.shape[0]):
        if board[c] > 0:
            key[word_of[c]] |= np.uint64(board[c]) << shift_of[c]
    length = plan.shape[0]
    tbits = table_bits(length)
    _seen_before(key, nwords, tab_keys, tab_stamp, p, tbits)
    min_h = h
    midway = h == 0 and length > 0
    revisits = 0
    kind = NO_ERROR
    first_error = -1
    for i in range(length):
        code = plan[i]
        if code > 3:
            kind = INVALID_ACTION
            first_error = i
            break
        t = moves[blank, code]
        if t < 0:
            kind = BOUNDARY if t == -1 else OBSTACLE
            first_error = i
            break
        tile = board[t]
        g = goal_cell[tile]
        h += dist[g, blank] - dist[g, t]
        board[blank] = tile
        board[t] = 0
        ut = np.uint64(tile)
        key[word_of[blank]] ^= ut << shift_of[blank]
        key[word_of[t]] ^= ut << shift_of[t]
        blank = t
        if h < min_h:
            min_h = h
        if h == 0 and i + 1 < length:
            midway = True
        if _seen_before(key, nwords, tab_keys, tab_stamp, p, tbits):
            revisits += 1
    return status_of(kind, h), kind, first_error, h, min_h, revisits, midway


@njit(parallel=True)
def replay_plans(boards, board_index, codes, offsets, layout_index, moves, dist, goal_cell, bits):
    """Replay plan i on ``boards[board_index[i]]`` with the tables of layout ``layout_index[i]``.

    Parameters
    ----------
    boards : int8 (m, cells), initial boards (0 blank, -1 blocked)
    board_index : int64 (n,), the board row of each plan
    codes : uint8 (total,), every plan's action codes back to back (0..3 = U, D, L, R; else invalid)
    offsets : int64 (n + 1,), plan i is ``codes[offsets[i]:offsets[i + 1]]``
    layout_index : int64 (n,), the layout of each plan in the stacked tables
    moves : int16 (layouts, cells, 4), blank move targets (-1 off the board, -2 into a block)
    dist : int16 (layouts, cells, cells), free-cell graph distances
    goal_cell : int16 (layouts, max_tile + 1), goal cell of each tile
    bits : int, field width of the exact state key (``key_layout``)

    Returns
    -------
    status : int8 (n,), COMPLETE / LEGAL_NONCOMPLETION / ILLEGAL
    error_kind : int8 (n,), NO_ERROR / BOUNDARY / OBSTACLE / INVALID_ACTION
    first_error : int64 (n,), index of the first illegal action, -1 if none
    final_h : int32 (n,), h of the last state reached (before the illegal action, if any)
    min_h : int32 (n,), least h over the legal prefix, the initial state included
    revisits : int64 (n,), legal moves whose resulting state was seen before on the trajectory
    goal_midway : bool (n,), the goal was visited before the plan's last action
    """
    n = board_index.shape[0]
    cells = boards.shape[1]
    per_word = 64 // bits
    nwords = (cells + per_word - 1) // per_word
    word_of = np.empty(cells, dtype=np.int64)
    shift_of = np.empty(cells, dtype=np.uint64)
    for c in range(cells):
        word_of[c] = c // per_word
        shift_of[c] = np.uint64((c % per_word) * bits)
    outputs = new_outputs(n)
    for ci in prange((n + CHUNK - 1) // CHUNK):
        # int64 as typed before the loop is made parallel (its index is then unsigned): one compile of the chunk
        _replay_chunk(
            np.int64(ci),
            outputs,
            boards,
            board_index,
            codes,
            offsets,
            layout_index,
            moves,
            dist,
            goal_cell,
            nwords,
            word_of,
            shift_of,
        )
    return outputs


@njit
def _replay_chunk(
    ci, outputs, boards, board_index, codes, offsets, layout_index, moves, dist, goal_cell, nwords, word_of, shift_of
):
    """The plans of parallel work item ``ci`` into ``outputs`` (a function of its own: the parallel loop's body
    stays one call, which numba's parallel passes compile in a fraction of the time of the body inlined)."""
    n = board_index.shape[0]
    cells = boards.shape[1]
    lo, hi = chunk_of(ci, n)
    size = 1 << table_bits(longest_plan(offsets, lo, hi))
    board = np.empty(cells, dtype=np.int8)
    key = np.empty(nwords, dtype=np.uint64)
    table = np.empty(size if nwords == 1 else 0, dtype=np.uint64)
    tab_keys = np.empty((size if nwords > 1 else 0, nwords), dtype=np.uint64)
    tab_stamp = np.full(size if nwords > 1 else 0, -1, dtype=np.int64)
    for p in range(lo, hi):
        for c in range(cells):  # a loop, not board[:] = ...: outside a parallel loop that would compile a shape check
            board[c] = boards[board_index[p], c]
        li = layout_index[p]
        plan = codes[offsets[p] : offsets[p + 1]]
        if nwords == 1:
            out = _replay_one_word(board, plan, moves[li], dist[li], goal_cell[li], shift_of, table)
        else:
            out = _replay_one(
                p, board, plan, moves[li], dist[li], goal_cell[li], word_of, shift_of, key, nwords, tab_keys, tab_stamp
            )
        store(outputs, p, out)
