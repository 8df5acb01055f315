"""One sliding-puzzle answer played out on its board, for ``fastspe show`` and the report's example pages.

``plan_trace(bank_row, verdict_row)`` replays the verdict's ``moves`` on the bank's board with the plain domain tables
(``Layout.moves``, ``goal_cell``, ``distances``) in Python: a plan is at most a few hundred moves. The trace
(``report.trace.Trace``) draws the board as a grid of numbered cells, in text and on the page, the tile each move slid
marked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...report.trace import Illegal, SHARED_REASONS, Trace, TracePage, format_failure, step_note, verdict_lines
from .layout import Layout
from .rules import BOUNDARY, DIRECTIONS

# why a move of each of the sliding puzzle's error kinds is illegal
REASONS = {"boundary": "off the board", "obstacle": "into a block"}


@dataclass(frozen=True)
class Step:
    """The board after move ``number`` (0: the initial board), the move and the tile it slid, and h."""

    number: int
    move: str  # "" at step 0
    tile: int  # the tile that moved (0 at step 0)
    board: tuple[int, ...]
    h: int
    revisit_of: int | None = None  # the earlier step that had this board


@dataclass(frozen=True)
class SlidingTrace(Trace):
    """A verdict row replayed: the steps of its legal prefix and what the replay found."""

    board_id: str
    condition: str
    trial: int
    rows: int
    cols: int
    blocks: tuple[int, ...]
    goal: tuple[int, ...]
    depth: int
    moves: str
    steps: tuple[Step, ...]
    illegal: Illegal | None
    verdict: dict = field(default_factory=dict, repr=False)  # the row's status, L, first_error, ...

    moved_heading = "tile"

    def summary_lines(self) -> list[str]:
        return [
            f"board {self.board_id} ({self.rows}x{self.cols}, blocks {list(self.blocks) or 'none'}, "
            f"d* = {self.depth}) · condition {self.condition} · trial {self.trial}"
        ] + verdict_lines(self)

    def moved_text(self, step: Step) -> str:
        return str(step.tile)

    def moved_label(self, step: Step) -> str:
        return f", tile {step.tile}"

    def goal_lines(self) -> list[str]:
        return grid_lines(self.goal, self.cols)

    def state_lines(self, step: Step) -> list[tuple[str, tuple[int, int] | None]]:
        out = []
        for line in grid_lines(step.board, self.cols, step.tile):
            mark = f"[{step.tile}]"
            at = line.find(mark) if step.tile else -1
            out.append((line, None if at < 0 else (at, at + len(mark))))
        return out

    def page(self) -> TracePage:
        steps = [
            {
                "n": s.number,
                "move": s.move,
                "tile": s.tile,
                "h": s.h,
                "board": list(s.board),
                "note": step_note(self, s),
            }
            for s in self.steps
        ]
        stage = [
            '<div class="boards"><div><b>Board</b>',
            f'<div id="board" class="grid" style="grid-template-columns:repeat({self.cols},2.6em)">'
            + "".join('<div class="cell"></div>' for _ in self.steps[0].board)
            + "</div></div>",
            f"<div><b>Goal</b>{_static_grid(self.goal, self.cols)}</div></div>",
        ]
        return TracePage(
            stage, steps, _DRAW, '", tile " + s.tile', "yellow: the tile just moved", data={"cols": self.cols}
        )


# the page draws a step by filling the grid's cells (the grid's style is report.viewer_html's)
_DRAW = """    for (var c = 0; c < cells.length; c++){
      var v = s.board[c];
      cells[c].textContent = v > 0 ? v : "";
      cells[c].className = "cell" + (v < 0 ? " block" : v === 0 ? " blank" : "") +
        (i > 0 && v === s.tile ? " moved" : "");
      cells[c].setAttribute("data-v", v);
    }
"""


def _static_grid(board, cols: int) -> str:
    cells = []
    for v in board:
        kind = " block" if v < 0 else " blank" if v == 0 else ""
        cells.append(f'<div class="cell{kind}">{v if v > 0 else ""}</div>')
    return f'<div class="grid" style="grid-template-columns:repeat({cols},2.6em)">{"".join(cells)}</div>'


def replay_moves(layout: Layout, initial, moves: str) -> tuple[list[Step], Illegal | None]:
    """The steps of ``moves`` (U, D, L, R move the blank; any other character is not a move) from ``initial``,
    up to the first illegal action, and that action (None if every move was legal)."""
    targets = layout.moves.tolist()
    goal_cell = layout.goal_cell.tolist()
    dist = layout.distances.tolist()
    board = [int(v) for v in initial]
    h = sum(dist[goal_cell[v]][c] for c, v in enumerate(board) if v > 0)
    blank = board.index(0)
    steps = [Step(0, "", 0, tuple(board), h)]
    seen = {tuple(board): 0}
    for i, move in enumerate(moves):
        if move not in DIRECTIONS:
            return steps, Illegal(i + 1, move, "invalid_action", SHARED_REASONS["invalid_action"])
        target = targets[blank][DIRECTIONS.index(move)]
        if target < 0:
            kind = "boundary" if target == BOUNDARY else "obstacle"
            return steps, Illegal(i + 1, move, kind, REASONS[kind])
        tile = board[target]
        h += dist[goal_cell[tile]][blank] - dist[goal_cell[tile]][target]
        board[blank], board[target] = tile, 0
        blank = target
        state = tuple(board)
        steps.append(Step(i + 1, move, tile, state, h, seen.get(state)))
        seen.setdefault(state, i + 1)
    return steps, None


def plan_trace(bank_row: dict, verdict_row: dict) -> SlidingTrace:
    """The trace of one verdict row on its bank row (dicts: ``rows, cols, blocks, initial, depth`` and the
    verdict's ``board_id, condition, trial, moves``, with ``parse_mode``/``error_kind`` for a format failure)."""
    layout = Layout(int(bank_row["rows"]), int(bank_row["cols"]), tuple(int(b) for b in bank_row["blocks"]))
    moves = str(verdict_row.get("moves") or "")
    steps, illegal = replay_moves(layout, bank_row["initial"], moves)
    illegal = format_failure(verdict_row) or illegal
    return SlidingTrace(
        str(verdict_row["board_id"]),
        str(verdict_row["condition"]),
        int(verdict_row["trial"]),
        layout.rows,
        layout.cols,
        layout.blocks,
        tuple(int(v) for v in layout.goal),
        int(bank_row["depth"]),
        moves,
        tuple(steps),
        illegal,
        dict(verdict_row),
    )


def cell_text(value: int, moved: bool = False) -> str:
    """One cell of a text grid, 5 characters: ``##`` a block, ``.`` the blank, ``[7]`` the tile just moved."""
    if value < 0:
        return "   ##"
    if value == 0:
        return "    ."
    return f"{'[' + str(value) + ']':>5}" if moved else f"{value:>5}"


def grid_lines(board, cols: int, moved_tile: int = 0) -> list[str]:
    """A board as text rows."""
    cells = [cell_text(v, moved=moved_tile > 0 and v == moved_tile) for v in board]
    return ["".join(cells[i : i + cols]) for i in range(0, len(cells), cols)]
