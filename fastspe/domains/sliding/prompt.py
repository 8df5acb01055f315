"""The planning prompt of the paper (Appendix B), rendered byte for byte, versioned and hashed.

The template is the text of ``paper/PROMPT.md`` with one instruction per line; each board is
written one row per line, integers separated by single spaces. ``PROMPT_SHA256`` is the hash of
the template itself (placeholders included), so a change of wording changes the hash that every
run log records; the hash of a rendered prompt (``prompt_sha256(text)``) identifies one request.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

from ...errors import UserError, UserTypeError

PROMPT_VERSION = "appendix-b/1"

# The template's named parts (``prompt_fields``: prompt variants reuse them); the template is made of them.
RULES_TEXT = (
    "0 is the blank. -1 is a fixed blocked cell.\n"
    "U/D/L/R move the blank one cell up/down/left/right\n"
    "and swap it with the adjacent numbered tile.\n"
    "Never move outside the board or into a blocked cell.\n"
    "Find a shortest complete sequence reaching the goal."
)
ANSWER_FORM = "comma-separated U,D,L,R"
ANSWER_LINE = f"Return only MOVES: followed by {ANSWER_FORM}."

PROMPT_TEMPLATE = (
    "You are solving a {rows}-by-{cols} sliding puzzle.\n" + RULES_TEXT + "\n" + ANSWER_LINE + "\n"
    "Initial board:\n"
    "{initial}\n"
    "Goal board:\n"
    "{goal}"
)


def prompt_sha256(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


PROMPT_SHA256 = prompt_sha256(PROMPT_TEMPLATE)


def board_text(board: Sequence[int], rows: int, cols: int, what: str = "board") -> str:
    """A board as ``rows`` lines of ``cols`` integers separated by single spaces.

    Parameters
    ----------
    board : sequence of int, length rows * cols
        Row-major cells, 0 the blank, -1 a blocked cell.
    rows, cols : int
        Board shape.
    what : str
        Name used in error messages.
    """
    cells = list(board)
    if len(cells) != rows * cols:
        raise UserError(
            f"{what} has {len(cells)} cells but a {rows}-by-{cols} board needs {rows * cols}; "
            f"pass rows= and cols= that match the board"
        )
    try:
        ints = [int(v) for v in cells]
    except (TypeError, ValueError):
        raise UserTypeError(f"{what} must hold integers, got {cells!r}") from None
    if any(i != v for i, v in zip(ints, cells)):
        raise UserTypeError(f"{what} must hold integers, got {cells!r}")
    return "\n".join(" ".join(str(v) for v in ints[r * cols : (r + 1) * cols]) for r in range(rows))


def render_prompt(initial: Sequence[int], goal: Sequence[int], rows: int = 4, cols: int = 4) -> str:
    """The Appendix B prompt for one board.

    Parameters
    ----------
    initial, goal : sequence of int, length rows * cols
        Row-major boards (0 blank, -1 blocked), as in the bank's ``initial`` and ``goal`` columns.
    rows, cols : int
        Board shape; the first line says "a {rows}-by-{cols} sliding puzzle".

    Returns
    -------
    str
        The prompt, lines separated by ``\\n``, no trailing newline.
    """
    if int(rows) < 1 or int(cols) < 1:
        raise UserError(f"rows and cols must be positive, got {rows} and {cols}")
    rows, cols = int(rows), int(cols)
    return PROMPT_TEMPLATE.format(
        rows=rows,
        cols=cols,
        initial=board_text(initial, rows, cols, "initial board"),
        goal=board_text(goal, rows, cols, "goal board"),
    )


def render_row(row) -> str:
    """The prompt of one bank row (a mapping of its columns): the domain's ``render_prompt``."""
    return render_prompt(row["initial"], row["goal"], int(row["rows"]), int(row["cols"]))


def prompt_fields(row) -> dict[str, str]:
    """The named parts of one bank row's prompt (``Domain.prompt_fields``): rules, answer instruction, the boards."""
    rows, cols = int(row["rows"]), int(row["cols"])
    return {
        "rules": RULES_TEXT,
        "answer": ANSWER_LINE,
        "answer_form": ANSWER_FORM,
        "rows": str(rows),
        "cols": str(cols),
        "initial": board_text(row["initial"], rows, cols, "initial board"),
        "goal": board_text(row["goal"], rows, cols, "goal board"),
    }


def render_rows(frame) -> list[str]:
    """The prompt of every row of a checked bank DataFrame, in order: ``render_prompt`` of each row.

    Scoring renders the prompt of every board its answers name (100k boards in a big sweep), so the boards of each
    shape are written in a few whole-column Arrow joins instead of a Python loop per cell; a row whose board has
    not its shape's cell count goes through ``render_prompt``, which says what is wrong."""
    import numpy as np

    out: list = [None] * len(frame)
    rows_of, cols_of = frame["rows"].to_numpy(np.int64), frame["cols"].to_numpy(np.int64)
    shape = rows_of * (cols_of.max(initial=0) + 1) + cols_of  # (one number per shape: one cheap unique)
    for key in np.unique(shape):
        at = np.flatnonzero(shape == key)
        rows, cols = int(rows_of[at[0]]), int(cols_of[at[0]])
        texts = _shape_prompts(frame, at, rows, cols)
        for i, text in zip(at, texts):
            out[i] = text if text is not None else render_row(frame.iloc[i])
    return out


def _shape_prompts(frame, at, rows: int, cols: int) -> list:
    """The prompts of rows ``at`` of ``frame``, all of one shape (None where a board has another cell count)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    head, middle = PROMPT_TEMPLATE.split("{initial}")
    middle = middle.split("{goal}")[0]
    boards, fits = [], None
    for column in ("initial", "goal"):
        values = pa.array(frame[column].iloc[at], from_pandas=True)
        values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        good = pc.fill_null(pc.equal(pc.list_value_length(values), rows * cols), False)
        fits = good if fits is None else pc.and_(fits, good)
        boards.append(values)
    keep = pc.indices_nonzero(fits)
    texts = []
    for values in boards:
        cells = values.take(keep).flatten().to_numpy(zero_copy_only=False).reshape(-1, rows * cols)
        column = [pc.cast(pa.array(cells[:, j].astype(np.int64)), pa.string()) for j in range(rows * cols)]
        lines = [pc.binary_join_element_wise(*column[r * cols : (r + 1) * cols], " ") for r in range(rows)]
        texts.append(pc.binary_join_element_wise(*lines, "\n"))
    joined = pc.binary_join_element_wise(head.format(rows=rows, cols=cols), texts[0], middle, texts[1], "")
    out: list = [None] * len(at)
    for i, text in zip(keep.to_numpy(), joined.to_pylist()):
        out[i] = text
    return out
