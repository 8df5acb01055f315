"""The word-at-a-time byte helpers (``fastspe._numba.words``) beside plain Python on bytes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe._numba import njit
from fastspe._numba.words import load_word, same_bytes, store_word


@njit
def _load(arr, i):
    return load_word(arr, i)


@njit
def _store(arr, i, word):
    store_word(arr, i, word)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=8, max_size=40), st.data())
def test_a_word_is_eight_bytes_little_endian(raw, data):
    at = data.draw(st.integers(0, len(raw) - 8))
    arr = np.frombuffer(raw, dtype=np.uint8).copy()
    assert int(_load(arr, at)) == int.from_bytes(raw[at : at + 8], "little")
    word = data.draw(st.integers(0, 2**64 - 1))
    _store(arr, at, np.uint64(word))
    assert arr.tobytes() == raw[:at] + word.to_bytes(8, "little") + raw[at + 8 :]  # nothing else written


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), st.data())
def test_same_bytes_is_bytes_equality(raw, data):
    """Runs of every length (under a word, whole words, a word and a bit), equal or differing in one byte."""
    lo = data.draw(st.integers(0, len(raw)))
    hi = data.draw(st.integers(lo, len(raw)))
    run = raw[lo:hi]
    other = bytearray(data.draw(st.binary(max_size=5)) + run + data.draw(st.binary(max_size=5)))
    b_lo = other.find(run) if run else 0
    if run and data.draw(st.booleans()):
        other[b_lo + data.draw(st.integers(0, len(run) - 1))] ^= 1 << data.draw(st.integers(0, 7))
    a, b = np.frombuffer(raw or b"\0", dtype=np.uint8), np.frombuffer(bytes(other) or b"\0", dtype=np.uint8)
    assert same_bytes(a, lo, hi, b, b_lo) == (bytes(other[b_lo : b_lo + len(run)]) == run)
