"""The bank check kernels (``fastspe.domains.sliding.kernels.bank_check``) against their twins (``tests/naive_bank_check.py``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings, strategies as st

from fastspe.domains.sliding.bank.meaning import _layout_tables, _steps_table
from fastspe.boundary.bank_rows import _ascii_text, string_buffers
from fastspe.domains.sliding.bank.meaning import BankLayouts
from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.kernels.bank_check import board_faults
from fastspe.kernels.text_check import id_runs, move_letters_only

from .naive_bank_check import naive_board_faults, naive_id_runs, naive_move_letters_only
from .strategies import layouts


@st.composite
def boards_of(draw):
    """Boards of one to three layouts, padded to the widest: shuffles of each goal, some of them damaged."""
    lays = draw(st.lists(layouts(), min_size=1, max_size=3))
    width = max(lay.cells for lay in lays)
    n = draw(st.integers(1, 12))
    index = np.array(draw(st.lists(st.integers(0, len(lays) - 1), min_size=n, max_size=n)), dtype=np.int64)
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    initial = np.full((n, width), -1, dtype=np.int8)
    goal = np.full((n, width), -1, dtype=np.int8)
    for i, j in enumerate(index):
        lay = lays[j]
        free = np.flatnonzero(lay.goal >= 0)
        board = lay.goal.copy()
        board[free] = rng.permutation(lay.goal[free])
        initial[i, : lay.cells], goal[i, : lay.cells] = board, lay.goal
    for _ in range(draw(st.integers(0, 3))):  # damage: any value -128..127 anywhere, either board
        target = draw(st.sampled_from([initial, goal]))
        target[draw(st.integers(0, n - 1)), draw(st.integers(0, width - 1))] = draw(st.integers(-128, 127))
    return lays, index, initial, goal


@given(boards_of())
@settings(max_examples=300, deadline=None)
def test_board_faults_match_twin(case):
    lays, index, initial, goal = case
    goals, dist = _layout_tables(BankLayouts(tuple(lays), index), initial.shape[1])
    got = dict(
        zip(
            ["goal_wrong", "blocks_wrong", "values_wrong", "h"],
            board_faults(initial, goal, index, goals, _steps_table(goals, dist)),
        )
    )
    want = naive_board_faults(initial.tolist(), goal.tolist(), index.tolist(), lays)
    for key in ("goal_wrong", "blocks_wrong", "values_wrong"):
        assert got[key].tolist() == want[key], key
    fine = ~(got["goal_wrong"] | got["blocks_wrong"] | got["values_wrong"])
    assert got["h"][fine].tolist() == np.array(want["h"])[fine].tolist()


def test_board_faults_of_an_8x8_board():
    # tile 63: a bit per value must reach value 63 (+ 1 for the blocks' -1)
    lay = Layout(8, 8, ())
    board = lay.goal.copy()
    board[[62, 63]] = board[[63, 62]]
    faults = board_faults(board[None, :], lay.goal[None, :], np.zeros(1, dtype=np.int64), *_tables([lay]))
    assert [f.tolist() for f in faults] == [[False], [False], [False], [1]]


def _tables(lays):
    goals, dist = _layout_tables(BankLayouts(tuple(lays), np.zeros(1, dtype=np.int64)), lays[0].cells)
    return goals, _steps_table(goals, dist)


_TEXT = st.text(alphabet="UDLRudlx\u00e9", max_size=6)


@given(st.lists(_TEXT, max_size=12), st.integers(0, 3))
@settings(max_examples=300, deadline=None)
def test_move_letters_only_matches_twin(strings, lo):
    array = pa.array(strings, pa.string()).slice(min(lo, len(strings)))
    data, offsets = string_buffers(array)
    assert move_letters_only(data, offsets).tolist() == naive_move_letters_only([s.encode() for s in array.to_pylist()])


@given(
    st.lists(st.sampled_from(["", "a", "b", "a0", "a1", "b0", "ab", "ba", "a-000", "a-001", "b-000"]), max_size=14),
    st.integers(1, 4),
)
@settings(max_examples=300, deadline=None)
def test_id_runs_match_twin(ids, limit):
    data, offsets = string_buffers(pa.array(ids, pa.string()))
    starts, status = id_runs(data, offsets, limit)
    assert (starts.tolist(), status) == naive_id_runs([s.encode() for s in ids], limit)


@given(st.lists(st.text(max_size=12), max_size=10), st.integers(0, 3))
@settings(max_examples=200, deadline=None)
def test_ascii_text_matches_twin(strings, lo):
    # at any offset into the buffers (a slice of the array), bytes before it not looked at
    column = pa.array(["\u00e9"] * lo + strings, pa.string()).slice(lo)
    assert _ascii_text(column) == all(s.isascii() for s in strings)


@given(st.lists(st.text(alphabet="ab", max_size=20), max_size=14), st.booleans(), st.integers(0, 3))
@settings(max_examples=300, deadline=None)
def test_id_runs_of_long_ids_match_twin(ids, ordered, lo):
    # ids past 8 bytes (compared a word at a time), sorted or not, at any offset into the buffers
    ids = sorted(ids) if ordered else ids
    array = pa.array(["x" * 9 + s for s in ids], pa.string()).slice(min(lo, len(ids)))
    data, offsets = string_buffers(array)
    starts, status = id_runs(data, offsets, 8)
    assert (starts.tolist(), status) == naive_id_runs([s.encode() for s in array.to_pylist()], 8)
