"""Bank kernels against their plain-Python twins (tests/naive_bank.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.kernels import rng
from fastspe.domains.sliding.kernels.graph import board_h, boards_h
from fastspe.domains.sliding.kernels.walks import propose_walks
from fastspe.domains.sliding.layout import Layout

from . import naive_bank as naive
from .strategies import layouts

U64 = st.integers(0, 2**63 - 1)


@given(U64, st.integers(0, 10_000), st.integers(0, 2**40), st.integers(0, 100), st.integers(1, 2**31))
@settings(max_examples=200, deadline=None)
def test_rng_matches_twin(seed, stream, index, counter, n):
    key = np.uint64(rng.stream_key(seed, stream, index))
    assert int(key) == naive.stream_key(seed, stream, index)
    assert int(rng.random_u64(key, counter)) == naive.random_u64(int(key), counter)
    r = int(rng.random_below(key, counter, n))
    assert r == naive.random_below(int(key), counter, n)
    assert 0 <= r < n


def test_random_below_is_roughly_uniform():
    key = np.uint64(rng.stream_key(1, 2, 3))
    draws = np.array([rng.random_below(key, c, 4) for c in range(40_000)])
    counts = np.bincount(draws, minlength=4)
    assert counts.min() > 9_500 and counts.max() < 10_500


@given(layouts())
@settings(max_examples=80, deadline=None)
def test_layout_tables_match_twin(layout):
    blocks = set(layout.blocks)
    assert layout.moves.tolist() == naive.neighbours(layout.rows, layout.cols, blocks)
    assert layout.distances.tolist() == naive.distances(layout.rows, layout.cols, blocks)
    assert layout.goal.tolist() == naive.goal_board(layout.rows, layout.cols, blocks)
    assert board_h(layout.goal, layout.goal_cell, layout.distances) == 0


@pytest.mark.slow
@given(layouts(), st.integers(1, 30), U64, st.integers(0, 50))
@settings(max_examples=80, deadline=None)
def test_walks_match_twin(layout, depth, seed, stream):
    boards, paths, ok = propose_walks(layout.goal, layout.moves, layout.raises, depth, seed, stream, 5, 16)
    tables = naive.WalkTables(layout.rows, layout.cols, layout.blocks)
    h = boards_h(boards, layout.goal_cell, layout.distances)
    for i in range(16):
        expected = naive.walk(tables, depth, naive.stream_key(seed, stream, 5 + i))
        assert ok[i] == (expected is not None)
        if expected is not None:
            assert boards[i].tolist() == expected[0]
            assert paths[i].tolist() == expected[1]
            assert h[i] == depth == naive.h_of(expected[0], tables.goal, tables.dist)


def test_boards_h_matches_twin():
    layout = Layout(4, 4, (6, 9))
    boards, _, ok = propose_walks(layout.goal, layout.moves, layout.raises, 25, 3, 0, 0, 200)
    tables = naive.WalkTables(4, 4, (6, 9))
    # shuffle tiles so h is not always the walk depth
    rs = np.random.default_rng(0)
    for b in boards:
        free = np.flatnonzero(b >= 0)
        b[free] = rs.permutation(b[free])
    got = boards_h(boards, layout.goal_cell, layout.distances)
    assert got.tolist() == [naive.h_of(b.tolist(), tables.goal, tables.dist) for b in boards]
