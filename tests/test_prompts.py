"""The Appendix B prompt: byte for byte as PROMPT.md gives it, any board size, versioned and hashed."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding.prompt import PROMPT_SHA256, PROMPT_TEMPLATE, PROMPT_VERSION, render_prompt

PROMPT_MD = Path(__file__).resolve().parents[2] / "shared" / "paper" / "PROMPT.md"
GOAL_4x4 = list(range(1, 16)) + [0]
INITIAL_4x4 = [5, 1, 2, 4, 6, 3, 11, 7, 9, 10, 0, 8, 13, 14, 15, 12]


def spec_prompt(initial, goal, rows, cols) -> str:
    """The prompt built from PROMPT.md's own code block: placeholders replaced by the board rows."""
    text = PROMPT_MD.read_text(encoding="utf-8")
    block = re.search(r"```\n(.*?)\n```", text, re.S).group(1)
    parts = block.split("[four rows of integers]")
    assert len(parts) == 3, "PROMPT.md should have two board placeholders"

    def rows_text(board):
        return "\n".join(" ".join(str(v) for v in board[r * cols : (r + 1) * cols]) for r in range(rows))

    first = parts[0].replace("a 4-by-4 sliding puzzle", f"a {rows}-by-{cols} sliding puzzle")
    return first + rows_text(initial) + parts[1] + rows_text(goal) + parts[2]


@pytest.mark.skipif(not PROMPT_MD.exists(), reason="paper/PROMPT.md is not beside the repository")
def test_matches_prompt_md_byte_for_byte():
    assert render_prompt(INITIAL_4x4, GOAL_4x4).encode() == spec_prompt(INITIAL_4x4, GOAL_4x4, 4, 4).encode()


def test_layout_of_lines():
    text = render_prompt(INITIAL_4x4, GOAL_4x4)
    lines = text.split("\n")
    assert lines[0] == "You are solving a 4-by-4 sliding puzzle."
    assert lines[6] == "Return only MOVES: followed by comma-separated U,D,L,R."
    start = lines.index("Initial board:")
    assert lines[start + 1 : start + 5] == ["5 1 2 4", "6 3 11 7", "9 10 0 8", "13 14 15 12"]
    assert lines[start + 5] == "Goal board:"
    assert lines[start + 6 :] == ["1 2 3 4", "5 6 7 8", "9 10 11 12", "13 14 15 0"]
    assert not text.endswith("\n") and "  " not in text and "\r" not in text


def test_blocked_cells_and_numpy_values():
    np = pytest.importorskip("numpy")
    initial = np.array([1, -1, 3, 0, 5, 6, 7, 2, 9, 10, 11, 4, 13, -1, 14, 15], dtype=np.int8)
    goal = np.array([1, -1, 2, 3, 5, 6, 7, 4, 9, 10, 11, 14, 13, -1, 15, 0], dtype=np.int8)
    lines = render_prompt(initial, goal).split("\n")
    assert "1 -1 3 0" in lines and "13 -1 15 0" in lines


@pytest.mark.skipif(not PROMPT_MD.exists(), reason="paper/PROMPT.md is not beside the repository")
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(2, 6), st.data())
def test_any_size_matches_spec(rows, cols, data):
    n = rows * cols
    initial = data.draw(st.permutations(list(range(n))))
    goal = data.draw(st.permutations(list(range(n))))
    text = render_prompt(initial, goal, rows, cols)
    assert text == spec_prompt(initial, goal, rows, cols)
    assert text.startswith(f"You are solving a {rows}-by-{cols} sliding puzzle.\n")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.data())
def test_boards_read_back(rows, cols, data):
    n = rows * cols
    cells = st.lists(st.integers(-1, 99), min_size=n, max_size=n)
    initial, goal = data.draw(cells), data.draw(cells)
    lines = render_prompt(initial, goal, rows, cols).split("\n")
    i, g = lines.index("Initial board:"), lines.index("Goal board:")

    def split(board):
        return [board[r * cols : (r + 1) * cols] for r in range(rows)]

    assert [list(map(int, ln.split(" "))) for ln in lines[i + 1 : g]] == split(initial)
    assert [list(map(int, ln.split(" "))) for ln in lines[g + 1 :]] == split(goal)


def test_version_and_hash():
    assert PROMPT_VERSION
    assert PROMPT_SHA256 == hashlib.sha256(PROMPT_TEMPLATE.encode("utf-8")).hexdigest()
    # The hash is of the template: the same for every board.
    assert "{initial}" in PROMPT_TEMPLATE and "{goal}" in PROMPT_TEMPLATE


def test_bad_boards_say_what_is_wrong():
    with pytest.raises(ValueError, match="initial board has 15 cells"):
        render_prompt(INITIAL_4x4[:15], GOAL_4x4)
    with pytest.raises(ValueError, match="goal board has 16 cells but a 3-by-5"):
        render_prompt(list(range(15)), GOAL_4x4, 3, 5)
    with pytest.raises(TypeError, match="integers"):
        render_prompt(["a"] * 16, GOAL_4x4)
    with pytest.raises(TypeError, match="integers"):
        render_prompt([0.5] * 16, GOAL_4x4)
    with pytest.raises(ValueError, match="positive"):
        render_prompt([], [], 0, 4)


def test_bank_rows_render():
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.domains.sliding.bank.design import paper_design

    bank = build_bank(paper_design())
    blocked = bank[bank["k"] > 0].iloc[0]
    text = render_prompt(blocked["initial"], blocked["goal"], blocked["rows"], blocked["cols"])
    board_lines = text.split("Initial board:\n")[1].split("\n")
    assert sum(ln.split(" ").count("-1") for ln in board_lines) == 2 * blocked["k"]
    assert len(board_lines) == 2 * blocked["rows"] + 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 5), st.integers(1, 5), st.randoms(use_true_random=False)), min_size=0, max_size=12
    )
)
def test_a_banks_prompts_in_one_pass_are_render_prompt_row_by_row(shapes):
    """render_rows (the prompts of a whole bank frame, written in Arrow joins per board shape) is render_prompt of
    each row: any mix of shapes, blocked cells (-1) and two-digit tiles, in the frame's order."""
    import pandas as pd

    from fastspe.domains.sliding.prompt import render_rows

    rows = []
    for r, c, rnd in shapes:
        cells = list(range(r * c))
        rnd.shuffle(cells)
        initial = [-1 if v == r * c - 1 and r * c > 2 else v for v in cells]
        rows.append({"initial": initial, "goal": sorted(initial, key=lambda v: (v <= 0, v)), "rows": r, "cols": c})
    frame = pd.DataFrame(rows, columns=["initial", "goal", "rows", "cols"])
    assert render_rows(frame) == [render_prompt(x["initial"], x["goal"], x["rows"], x["cols"]) for x in rows]
