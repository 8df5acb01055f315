"""Banks in bounded memory: the streamed file is the whole-table file byte for byte; the key set and the
id-order proof behind the build and the reader against plain Python sets."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastspe.domains.sliding.bank.build as build
import fastspe.boundary.parquet as parquet
from fastspe.domains.sliding.bank.acceptance import KeySet, first_new
from fastspe.domains.designs import QuotaError
from fastspe.domains.sliding.bank.design import design_from_dict, paper_design
from fastspe.boundary.bank_rows import _ids_ordered_apart
from fastspe.boundary.banks import read_bank_table, write_bank, write_bank_tables

DESIGN = {
    "seed": 5,
    "cells": [
        {"cohort": "a", "depth": 20, "count": 300},
        {"cohort": "b", "depth": 20, "count": 120},  # same layout and depth as "a": no board twice
        {"cohort": "a", "blocks": [5], "depth": 14, "count": 90},
        {"cohort": "r", "depth": 12, "retreat": 2, "count": 4},
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".parquet", ".jsonl"])
@pytest.mark.parametrize("design", [paper_design(), design_from_dict(DESIGN)], ids=["paper", "mixed"])
def test_streamed_bank_is_the_whole_table_file_byte_for_byte(tmp_path, monkeypatch, design, suffix):
    whole, streamed = tmp_path / f"whole{suffix}", tmp_path / f"streamed{suffix}"
    write_bank(build.build_bank_table(design), whole)
    monkeypatch.setattr(build, "PIECE_ROWS", 7)  # cells cut into many pieces, pieces merged into one row group
    assert build.stream_bank(design, streamed) == design.total
    assert streamed.read_bytes() == whole.read_bytes()


@pytest.mark.slow
def test_row_groups_are_cut_at_their_size_and_read_back(tmp_path, monkeypatch):
    design = design_from_dict(DESIGN)
    monkeypatch.setattr(build, "PIECE_ROWS", 50)
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 64)
    path = tmp_path / "bank.parquet"
    write_bank_tables(build.bank_pieces(design), path)
    sizes = [pq.ParquetFile(path).metadata.row_group(i).num_rows for i in range(pq.ParquetFile(path).num_row_groups)]
    assert sizes == [64] * (design.total // 64) + [design.total % 64]
    assert read_bank_table(path).equals(build.build_bank_table(design).select(read_bank_table(path).column_names))


def test_a_failed_stream_leaves_no_file(tmp_path, monkeypatch):
    design = design_from_dict(
        {"seed": 1, "cells": [{"cohort": "a", "depth": 10, "count": 50}, {"cohort": "b", "depth": 12, "count": 2000}]}
    )
    monkeypatch.setattr(build, "proposal_cap", lambda count: 1000)  # the second cell falls short
    path = tmp_path / "bank.parquet"
    with pytest.raises(QuotaError, match="cell b-k0-d12"):
        build.stream_bank(design, path)
    assert list(tmp_path.iterdir()) == []


@given(st.lists(st.lists(st.integers(0, 60), max_size=40), max_size=12), st.lists(st.integers(0, 60), max_size=40))
@settings(max_examples=200, deadline=None)
def test_key_set_is_a_set(batches, probe):
    keys, twin = KeySet(np.zeros(0, dtype=np.uint64)), set()
    for batch in batches:
        new = np.array(batch, dtype=np.uint64)
        fresh = first_new(new, keys)
        assert [int(k) for k in new[fresh]] == sorted({k for k in batch if k not in twin}, key=batch.index)
        keys.add(new[fresh])
        twin |= set(batch)
    copy = keys.copy()
    copy.add(np.array([k for k in range(61, 64)], dtype=np.uint64))
    assert keys.contains(np.array(probe, dtype=np.uint64)).tolist() == [k in twin for k in probe]
    assert not keys.contains(np.array([61], dtype=np.uint64))[0] and copy.contains(np.array([61], dtype=np.uint64))[0]
    assert all(np.all(run[:-1] < run[1:]) for run in keys.runs)


@given(st.lists(st.sampled_from(["", "a", "b", "a0", "a1", "b0", "ab", "ba", "a-000", "a-001", "b-000"]), max_size=14))
@settings(max_examples=400, deadline=None)
def test_ids_are_proven_apart_only_when_they_are(ids):
    array = pa.array(ids, pa.string())
    if _ids_ordered_apart(array):
        assert len(set(ids)) == len(ids)
    if len(ids) > 2:
        assert _ids_ordered_apart(array.slice(1)) <= (len(set(ids[1:])) == len(ids) - 1)


def test_bank_ids_are_proven_apart_by_their_order():
    ids = build.build_bank_table(design_from_dict(DESIGN)).column("board_id").combine_chunks()
    assert _ids_ordered_apart(ids)
    assert not _ids_ordered_apart(pa.concat_arrays([ids, ids.slice(3, 1)]))
