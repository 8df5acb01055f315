"""One answer played out on its board: the steps of a plan, where it broke, came closest and went in circles.

``plan_trace(bank_row, verdict_row)`` replays the verdict's ``moves`` on the bank's board with the plain
domain tables (``Layout.moves``, ``goal_cell``, ``distances``) in Python: a plan is at most a few hundred
moves, and a second, independent replay is what lets the viewer check the verdict it shows
(``Trace.disagreements``). Step 0 is the initial board; step i is the board after the i-th move, so the
illegal action at ``first_error`` (0-based, as verdicts count) is move ``first_error + 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..domains.sliding.layout import BOUNDARY, DIRECTIONS, Layout

# why an action is illegal, by the verdict's error kind
REASONS = {"boundary": "off the board", "obstacle": "into a block", "invalid_action": "invalid action",
           "format": "no move list in the answer",
           "wall": "into a wall", "box_blocked": "pushes a box into a wall or another box"}  # Sokoban's two


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
class Illegal:
    """The first illegal action: move ``number`` (1-based; 0 for an answer without a move list)."""

    number: int
    move: str
    kind: str  # a key of REASONS

    @property
    def reason(self) -> str:
        return REASONS[self.kind]


class Replayed:
    """What a trace says from its ``steps`` (each with ``number``, ``h``, ``revisit_of``), ``illegal``, ``moves``
    and ``verdict``, in any domain: the sliding puzzle's ``Trace`` and Sokoban's ``SokobanTrace``."""

    @property
    def status(self) -> str:
        if self.illegal is not None:
            return "illegal"
        return "complete" if self.steps[-1].h == 0 else "legal_noncompletion"

    @property
    def first_error(self) -> int:
        """0-based index of the first illegal action, -1 without one (a format failure has none either)."""
        return self.illegal.number - 1 if self.illegal is not None and self.illegal.kind != "format" else -1

    @property
    def closest(self) -> Step:
        """The first step with the least h (the initial board included)."""
        return min(self.steps, key=lambda s: (s.h, s.number))

    @property
    def revisits(self) -> list[Step]:
        return [s for s in self.steps if s.revisit_of is not None]

    @property
    def final(self) -> Step:
        return self.steps[-1]

    def disagreements(self) -> list[str]:
        """What this replay and the verdict row say differently (empty when they agree)."""
        found = {"status": self.status, "L": len(self.moves), "first_error": self.first_error,
                 "error_kind": self.illegal.kind if self.illegal else "", "final_h": self.final.h,
                 "min_h": self.closest.h, "revisits": len(self.revisits)}
        out = []
        for name, mine in found.items():
            if name not in self.verdict:
                continue
            theirs = verdict_value(self.verdict[name], name)
            if theirs != mine:
                out.append(f"{name}: verdict {theirs!r}, replay {mine!r}")
        return out


@dataclass(frozen=True)
class Trace(Replayed):
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


def verdict_value(value, name: str):
    """A verdict cell as the replay states it: a missing error kind is "", a missing first error -1."""
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    if name == "error_kind":
        return "" if missing else str(value)
    if name == "status":
        return str(value)
    return -1 if missing else int(value)


def format_failure(verdict_row: dict) -> Illegal | None:
    """The verdict's own call on an answer without a move list (no replay can find that), else None."""
    return Illegal(0, "", "format") if verdict_value(verdict_row.get("error_kind"), "error_kind") == "format" else None


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
            return steps, Illegal(i + 1, move, "invalid_action")
        target = targets[blank][DIRECTIONS.index(move)]
        if target < 0:
            return steps, Illegal(i + 1, move, "boundary" if target == BOUNDARY else "obstacle")
        tile = board[target]
        h += dist[goal_cell[tile]][blank] - dist[goal_cell[tile]][target]
        board[blank], board[target] = tile, 0
        blank = target
        state = tuple(board)
        steps.append(Step(i + 1, move, tile, state, h, seen.get(state)))
        seen.setdefault(state, i + 1)
    return steps, None


def plan_trace(bank_row: dict, verdict_row: dict) -> Trace:
    """The trace of one verdict row on its bank row (dicts: ``rows, cols, blocks, initial, depth`` and the
    verdict's ``board_id, condition, trial, moves``, with ``parse_mode``/``error_kind`` for a format failure)."""
    layout = Layout(int(bank_row["rows"]), int(bank_row["cols"]), tuple(int(b) for b in bank_row["blocks"]))
    moves = str(verdict_row.get("moves") or "")
    steps, illegal = replay_moves(layout, bank_row["initial"], moves)
    illegal = format_failure(verdict_row) or illegal
    return Trace(str(verdict_row["board_id"]), str(verdict_row["condition"]), int(verdict_row["trial"]),
                 layout.rows, layout.cols, layout.blocks, tuple(int(v) for v in layout.goal), int(bank_row["depth"]),
                 moves, tuple(steps), illegal, dict(verdict_row))


# -- text -----------------------------------------------------------------------------------------------------

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
    return ["".join(cells[i:i + cols]) for i in range(0, len(cells), cols)]


def step_note(trace: Replayed, step: Step) -> str:
    """What is remarkable about a step: the closest approach, a revisit."""
    notes = []
    if step.number == trace.closest.number:
        notes.append("closest to the goal")
    if step.revisit_of is not None:
        notes.append(f"revisits step {step.revisit_of}")
    return "; ".join(notes)


def summary_lines(trace: Trace) -> list[str]:
    """The verdict in words: the board, then ``verdict_lines``."""
    return [f"board {trace.board_id} ({trace.rows}x{trace.cols}, blocks {list(trace.blocks) or 'none'}, "
            f"d* = {trace.depth}) · condition {trace.condition} · trial {trace.trial}"] + verdict_lines(trace)


def verdict_lines(trace: Replayed) -> list[str]:
    """Status, length, first illegal move, closest approach, revisits (any domain's trace)."""
    out = [f"status {trace.status} · L = {len(trace.moves)} · h {trace.steps[0].h} -> {trace.final.h}"]
    if trace.illegal is not None:
        bad = trace.illegal
        out.append("first illegal: none taken, " + bad.reason if bad.kind == "format" else
                   f"first illegal: move {bad.number} ({bad.move!r}): {bad.reason} (first_error = {bad.number - 1})")
    close = trace.closest
    out.append(f"closest to the goal: h = {close.h} at step {close.number}")
    revisits = trace.revisits
    if revisits:
        shown = ", ".join(f"step {s.number} = step {s.revisit_of}" for s in revisits[:10])
        out.append(f"revisits: {len(revisits)} ({shown}{', ...' if len(revisits) > 10 else ''})")
    else:
        out.append("revisits: none")
    return out


def trace_lines(trace: Trace) -> list[str]:
    """The compact trace for a pipe: the summary, then one line per move (step, move, moved tile, h after it)."""
    return summary_lines(trace) + move_table(trace, "tile", lambda step: str(step.tile))


def move_table(trace: Replayed, what: str, moved) -> list[str]:
    """A header and one line per move: step, move, ``moved(step)`` under the heading ``what``, h, note."""
    rows = [("0", "-", "-", str(trace.steps[0].h), step_note(trace, trace.steps[0]))]
    rows += [(str(s.number), s.move, moved(s), str(s.h), step_note(trace, s)) for s in trace.steps[1:]]
    if trace.illegal is not None and trace.illegal.kind != "format":
        rows.append((str(trace.illegal.number), trace.illegal.move, "-", "-", f"illegal: {trace.illegal.reason}"))
    return [_columns(("step", "move", what, "h", "note"))] + [_columns(r) for r in rows]


def _columns(row) -> str:
    step, move, tile, h, note = row
    return f"{step:>5}  {move:<4} {tile:>4} {h:>4}  {note}".rstrip()
