"""Bank building: twin equality, exhaustive cells, determinism across thread counts, quotas."""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.domains.designs import QuotaError
from fastspe.domains.sliding.bank.build import build_bank, build_cell, certificates
from fastspe.domains.sliding.bank.table import BANK_COLUMNS
from fastspe.domains.sliding.bank.frames import pack_boards
from fastspe.domains.sliding.bank.design import Design, DesignCell, paper_design
from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.verify.bank import verify_bank

from . import naive_bank as naive
from .strategies import layouts
from .threads import digests_by_thread_count


@pytest.fixture(scope="module")
def paper_bank():
    return build_bank(paper_design())


def test_paper_bank_shape(paper_bank):
    assert list(paper_bank.columns) == BANK_COLUMNS
    assert len(paper_bank) == 400 and paper_bank["board_id"].is_unique
    counts = paper_bank.groupby(["cohort", "k", "depth"]).size()
    assert (counts == 20).all() and len(counts) == 16 + 4
    per_layout = paper_bank.assign(b=paper_bank["blocks"].map(tuple)).groupby(["k", "b", "depth"]).size()
    expected = {0: 20, 1: 5, 2: 10, 3: 5}
    assert all(n == expected[k] for (k, _, _), n in per_layout.items())
    assert (paper_bank["h"] == paper_bank["depth"]).all()
    assert (paper_bank["seed"] == 20261010).all()
    assert paper_bank["board_id"].iloc[0] == "primary-k0-d10-bnone-000"
    assert "primary-k2-d10-b5.10-003" in set(paper_bank["board_id"])


def test_paper_bank_verifies(paper_bank):
    assert verify_bank(paper_bank) == []


def _enumerate_certified(layout: Layout, depth: int) -> set[tuple[int, ...]]:
    """Every board reachable from the goal by a walk that raises h by one at each step."""
    tables = naive.WalkTables(layout.rows, layout.cols, layout.blocks)
    frontier = {tuple(tables.goal)}
    for _ in range(depth):
        nxt = set()
        for board in frontier:
            blank = board.index(0)
            for t in tables.nbr[blank]:
                if t >= 0:
                    g = tables.goal_cell[board[t]]
                    if tables.dist[g][blank] - tables.dist[g][t] == 1:
                        b = list(board)
                        b[blank], b[t] = b[t], 0
                        nxt.add(tuple(b))
        frontier = nxt
    return frontier


@pytest.mark.parametrize("blocks, n", [((5, 10), 10), ((5, 6, 10), 5), ((5, 9, 10), 5)])
def test_near_exhausted_cells_hold_every_certified_board(paper_bank, blocks, n):
    every = _enumerate_certified(Layout(4, 4, blocks), 10)
    assert len(every) == n
    cell = paper_bank[(paper_bank["depth"] == 10) & (paper_bank["blocks"].map(tuple) == blocks)]
    assert {tuple(b) for b in cell["initial"]} == every


def test_build_matches_plain_python_twin():
    layout = Layout(4, 4, (6, 9))
    cell = DesignCell("primary", layout, 20, 30)
    boards, paths, index = build_cell(cell, seed=11, stream=4)
    twin = naive.build_cell(4, 4, (6, 9), 20, 30, seed=11, stream=4)
    assert boards.tolist() == [b for b, _, _ in twin]
    assert index.tolist() == [i for _, _, i in twin]
    assert certificates(paths).to_pylist() == [naive.certificate(p) for _, p, _ in twin]


def test_quota_that_cannot_be_met_names_the_count():
    cell = DesignCell("primary", Layout(4, 4, (5, 10)), 10, 11)
    with pytest.raises(QuotaError, match=r"found 10 distinct certified boards .* asks for 11"):
        build_cell(cell, seed=1, stream=0, cap=20_000)


@pytest.mark.parametrize(
    "layout, depth, counts",
    [
        (Layout(4, 4, (5, 10)), 10, (6, 4)),  # exhausts the cell: 10 boards exist
        (Layout(5, 5, (6,)), 8, (150, 150)),  # more than 16 cells: byte keys instead of packed uint64
    ],
)
def test_same_layout_and_depth_in_two_cohorts_do_not_repeat_boards(layout, depth, counts):
    design = Design(
        seed=3,
        rows=layout.rows,
        cols=layout.cols,
        cells=tuple(DesignCell(name, layout, depth, n) for name, n in zip("ab", counts)),
    )
    bank = build_bank(design)
    assert len({tuple(b) for b in bank["initial"]}) == len(bank) == sum(counts)
    assert verify_bank(bank) == []


@given(layouts(max_side=4), st.integers(1, 12), st.integers(0, 2**32))
@settings(max_examples=40, deadline=None)
def test_every_generated_board_is_certified(layout, depth, seed):
    every = _enumerate_certified(layout, depth)
    count = min(len(every), 3)
    if count == 0:
        return
    design = Design(seed=seed, rows=layout.rows, cols=layout.cols, cells=(DesignCell("c", layout, depth, count),))
    bank = build_bank(design)
    assert verify_bank(bank) == []
    assert {tuple(b) for b in bank["initial"]} <= every
    boards = pack_boards(bank["initial"])
    for board, cert in zip(boards, bank["certificate"]):
        assert len(cert) == depth and layout.h(board) == depth
        # replay with the layout's move table: the certificate reaches the goal in exactly d* moves
        b, blank = board.copy(), int(np.flatnonzero(board == 0)[0])
        for letter in cert:
            t = int(layout.moves[blank, "UDLR".index(letter)])
            assert t >= 0
            b[blank], b[t] = b[t], 0
            blank = t
        assert b.tolist() == layout.goal.tolist()


_HASH_SCRIPT = """
import hashlib, numba
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import paper_design
bank = build_bank(paper_design(5))
print(numba.get_num_threads(), hashlib.sha256(bank.to_json(orient="records").encode()).hexdigest())
"""


def test_bank_is_identical_with_one_and_two_threads():
    digests = set(digests_by_thread_count(_HASH_SCRIPT).values())
    in_process = build_bank(paper_design(5))
    digests.add(hashlib.sha256(in_process.to_json(orient="records").encode()).hexdigest())
    assert len(digests) == 1


def test_different_seeds_give_different_banks():
    a, b = build_bank(paper_design(1)), build_bank(paper_design(2))
    changed = Counter(x != y for x, y in zip(a["initial"], b["initial"]))
    assert changed[True] > 300


# ---- bank files: boards as int8 arrays, old files still read ---------------------------------------


def test_parquet_stores_boards_as_fixed_size_int8_lists(paper_bank, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fastspe.boundary.banks import read_bank, write_bank
    from fastspe.domains.sliding.pack import board_matrix

    path = tmp_path / "bank.parquet"
    write_bank(paper_bank, path)
    schema = pq.read_schema(path)
    assert schema.field("initial").type == pa.list_(pa.int8(), 16)
    back = read_bank(path)
    assert isinstance(back["initial"].dtype, pd.ArrowDtype)  # one Arrow buffer, not a list per board
    boards = board_matrix(back["initial"])
    assert boards.dtype == np.int8 and boards.shape == (400, 16)
    np.testing.assert_array_equal(boards, np.array([list(b) for b in paper_bank["initial"]], dtype=np.int8))
    assert back["blocks"].map(tuple).tolist() == paper_bank["blocks"].map(tuple).tolist()


def test_bank_written_by_fastspe_0_1_still_reads(paper_bank, tmp_path):
    """Plain int64 lists and no checksum: read with a warning, same boards."""
    from fastspe.boundary.banks import read_bank

    old = paper_bank.copy()
    for col in ("blocks", "initial", "goal"):
        old[col] = [list(map(int, v)) for v in old[col]]
    path = tmp_path / "old.parquet"
    old.to_parquet(path, index=False)
    with pytest.warns(UserWarning, match="no fastspe content checksum"):
        back = read_bank(path)
    assert back["initial"].map(list).tolist() == old["initial"].tolist()
    jsonl = tmp_path / "old.jsonl"
    old.to_json(jsonl, orient="records", lines=True)
    assert read_bank(jsonl)["certificate"].tolist() == old["certificate"].tolist()


def test_mixed_board_sizes_round_trip(tmp_path):
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import read_bank, write_bank
    from fastspe.domains.sliding.pack import board_matrix
    from fastspe.domains.sliding.bank.design import Design, DesignCell

    design = Design(seed=1, cells=(DesignCell("a", Layout(3, 3, ()), 6, 5), DesignCell("b", Layout(4, 4, (5,)), 8, 5)))
    bank = build_bank(design)
    path = tmp_path / "mixed.parquet"
    write_bank(bank, path)
    boards = board_matrix(read_bank(path)["initial"])
    assert boards.shape == (10, 16) and (boards[:5, 9:] == -1).all()  # 3x3 boards padded as blocked
