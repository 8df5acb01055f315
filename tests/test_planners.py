"""The planner kernel against its plain-Python twin (tests/naive_planners.py), move for move."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.frames import pack_boards
from fastspe.domains.sliding.planners.baselines import PLANNERS, baseline_responses
from fastspe.domains.baselines import board_keys
from fastspe.domains.sliding.bank.design import design_from_dict, paper_design
from fastspe.kernels import rng
from fastspe.domains.sliding.kernels.planners import plan_baselines
from fastspe.domains.sliding.layout import DIRECTIONS, Layout

from .naive_planners import Grid, naive_plan, random_below, stream_key


@lru_cache(maxsize=None)
def paper_bank():
    return build_bank(paper_design())


@lru_cache(maxsize=None)
def odd_bank():
    """A non-square layout with a block, to keep the kernel honest about geometry."""
    spec = {
        "seed": 11,
        "rows": 3,
        "cols": 5,
        "cells": [
            {"cohort": "odd", "blocks": [7], "depth": 9, "count": 12},
            {"cohort": "odd", "blocks": [], "depth": 14, "count": 12},
        ],
    }
    return build_bank(design_from_dict(spec))


@lru_cache(maxsize=None)
def grid(rows, cols, blocks):
    return Grid(rows, cols, blocks)


def twin_letters(row, planner, trial, seed):
    g = grid(int(row["rows"]), int(row["cols"]), tuple(row["blocks"]))
    key = int(board_keys([row["board_id"]])[0])
    return naive_plan(planner, g, list(row["initial"]), row["certificate"], key, trial, seed)


def kernel_letters(row, planner, trial, seed):
    """One board through the kernel directly (trials = trial + 1, row ``trial`` of the result)."""
    layout = Layout(int(row["rows"]), int(row["cols"]), tuple(row["blocks"]))
    boards = pack_boards([row["initial"]])
    depth = int(row["depth"])
    certs = np.array([[DIRECTIONS.index(c) for c in row["certificate"]] or [0]], dtype=np.uint8)
    width = depth + 2 * max(1, depth // 4)
    plans, lengths = plan_baselines(
        PLANNERS[planner],
        boards,
        certs,
        np.array([depth], dtype=np.int64),
        board_keys([row["board_id"]]),
        trial + 1,
        seed,
        layout.moves,
        layout.distances,
        layout.goal_cell,
        width,
    )
    return "".join(DIRECTIONS[d] for d in plans[trial, : lengths[trial]])


def letters_of(response: str) -> str:
    assert response.startswith("MOVES: ")
    body = response[len("MOVES: ") :]
    return body.replace(",", "")


@given(
    seed=st.integers(0, 2**63 - 1),
    stream=st.integers(0, 2**20),
    index=st.integers(0, 2**52),
    counter=st.integers(0, 10_000),
    n=st.integers(1, 2**32 - 1),
)
@settings(max_examples=100, deadline=None)
def test_rng_twin_matches_kernel_rng(seed, stream, index, counter, n):
    key = stream_key(seed, stream, index)
    assert key == int(rng.stream_key(seed, stream, index))
    assert random_below(key, counter, n) == int(rng.random_below(np.uint64(key), counter, n))


@pytest.mark.parametrize("planner", list(PLANNERS))
@pytest.mark.parametrize("bank", [paper_bank, odd_bank], ids=["paper", "3x5"])
def test_whole_bank_matches_twin(planner, bank):
    b = bank()
    trials, seed = 2, 7
    got = baseline_responses(b, planner, trials=trials, seed=seed)
    assert len(got) == len(b) * trials
    want = [twin_letters(row, planner, t, seed) for _, row in b.iterrows() for t in range(trials)]
    assert [letters_of(r) for r in got["response"]] == want


@given(
    i=st.integers(0, 399),
    trial=st.integers(0, 5),
    seed=st.integers(0, 2**63 - 1),
    planner=st.sampled_from(list(PLANNERS)),
)
@settings(max_examples=150, deadline=None)
def test_random_boards_match_twin(i, trial, seed, planner):
    row = paper_bank().iloc[i]
    assert kernel_letters(row, planner, trial, seed) == twin_letters(row, planner, trial, seed)


@given(
    i=st.integers(0, 23),
    trial=st.integers(0, 3),
    seed=st.integers(0, 2**32),
    planner=st.sampled_from(["greedy", "detour", "noisy"]),
)
@settings(max_examples=60, deadline=None)
def test_odd_layout_boards_match_twin(i, trial, seed, planner):
    row = odd_bank().iloc[i]
    assert kernel_letters(row, planner, trial, seed) == twin_letters(row, planner, trial, seed)
