"""Hypothesis strategies shared by the tests: random valid layouts."""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from fastspe.domains.sliding.layout import Layout


@st.composite
def layouts(draw, max_side: int = 5, max_blocks: int = 3) -> Layout:
    rows = draw(st.integers(2, max_side))
    cols = draw(st.integers(2, max_side))
    blocks = draw(st.lists(st.integers(0, rows * cols - 1), max_size=max_blocks, unique=True))
    try:
        return Layout(rows, cols, tuple(blocks))
    except ValueError:
        assume(False)
