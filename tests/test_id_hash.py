"""The board-id hash (``kernels.id_hash`` through ``boundary.string_rows``) beside its twin, a Python dict."""

from __future__ import annotations

import numpy as np
import pytest
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.boundary.string_rows import StringRows

IDS = st.text(st.sampled_from(list("ab-0é")), max_size=4) | st.text(st.sampled_from(list("ab-0é")), max_size=30)
# (short ids hashed byte by byte, longer ones a word at a time)


def twin_rows(ids: list[str], values: list) -> list[int]:
    """The plain-Python twin: each value's first index in ``ids``, -1 when absent or None."""
    first: dict[str, int] = {}
    for i, s in enumerate(ids):
        first.setdefault(s, i)
    return [first.get(v, -1) if v is not None else -1 for v in values]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(IDS, unique=True, max_size=40),
    st.lists(st.one_of(IDS, st.none()), max_size=40),
    st.integers(0, 3),
    st.sampled_from([pa.string(), pa.large_string()]),
    st.integers(0, 3),
    st.integers(0, 8),
)
def test_rows_are_the_twins(ids, values, cut, kind, skip, min_bits):
    """Any ids and values (nulls, non-ASCII, the empty string), as sliced, chunked, string or large string arrays;
    ``min_bits`` 0 packs the table tight (many collisions)."""
    bank = pa.array(["pad"] * skip + ids, pa.string()).slice(skip)
    arr = pa.array(values, kind)
    column = pa.chunked_array([arr.slice(0, cut), arr.slice(cut)], kind) if cut else arr
    got = StringRows(bank, min_bits).rows(column)
    assert got.dtype == np.int64
    assert got.tolist() == twin_rows(ids, values)
    expected = pc.fill_null(pc.index_in(arr.cast(pa.string()), value_set=bank), -1).to_pylist()
    assert got.tolist() == expected  # what the checker asked Arrow before


def test_rows_of_a_bank_with_many_ids():
    ids = [f"primary-k0-d40-bnone-{i:05d}" for i in range(5000)]
    rows = StringRows(pa.array(ids)).rows(pa.array(ids[::-1] + ["primary-k0-d40-bnone-99999", ""]))
    assert rows.tolist() == list(range(4999, -1, -1)) + [-1, -1]


def test_an_empty_bank_finds_nothing():
    assert StringRows(pa.array([], pa.string())).rows(pa.array(["a", None])).tolist() == [-1, -1]
