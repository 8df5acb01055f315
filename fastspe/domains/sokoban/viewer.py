"""One Sokoban answer played out on its level: the level after each move, where the plan broke, came closest,
went in circles and made the level dead (a ``report.trace.Trace``): XSB text on a terminal, a picture on the page
(walls, goals, boxes, the player as cells), the box each push moved marked, and from the first dead move on the
frozen boxes (``dead.frozen_boxes``).

``sokoban_trace(bank_row, verdict_row)`` replays the verdict's ``moves`` on the bank row's XSB ``level`` with the
domain's plain tables (``Level.moves``, ``Level.push_distance``) in Python, so that the viewer checks the verdict
it shows (``disagreements``). A state is (player cell, box cells); h is the domain's push-distance sum, 0 exactly
when every box is on a goal. Step i is the level after the i-th move, as in ``viewer``. The first dead move is found
again here (``dead.DeadMoves``, by search) and checked against the verdict's ``first_dead_move`` where it has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...report.trace import Illegal, SHARED_REASONS, Trace, TracePage, format_failure, step_note, verdict_lines
from .dead import DEAD_NONE, DEAD_UNKNOWN, DeadMoves, frozen_boxes
from .level import DIRECTIONS, Level, parse_level

# why a move of each of Sokoban's error kinds is illegal
REASONS = {"wall": "into a wall", "box_blocked": "pushes a box into a wall or another box"}


@dataclass(frozen=True)
class SokobanStep:
    """The level after move ``number`` (0: the start): the player's cell, the boxes' cells (sorted), and h."""

    number: int
    move: str  # "" at step 0
    pushed: int  # the cell the move pushed a box onto, -1 when it pushed none
    player: int
    boxes: tuple[int, ...]
    h: int
    revisit_of: int | None = None  # the earlier step with this player cell and these boxes


@dataclass(frozen=True)
class SokobanTrace(Trace):
    """A verdict row replayed on its level: the steps of its legal prefix and what the replay found."""

    board_id: str
    condition: str
    trial: int
    level: Level
    depth: int
    pushes: int | None  # the certificate's pushes, when the bank row has them
    moves: str
    steps: tuple[SokobanStep, ...]
    illegal: Illegal | None
    verdict: dict = field(default_factory=dict, repr=False)
    first_dead_move: int = DEAD_NONE  # 0-based, as the verdict column (``dead``): -1 none, -2 unknown
    objective: str = "moves"  # what d* counts: the bank's objective (moves or pushes)

    @property
    def dead_step(self) -> int | None:
        """The step after the first dead move (its 1-based number), None when there is none or it is unknown."""
        return self.first_dead_move + 1 if self.first_dead_move >= 0 else None

    def frozen(self, step: SokobanStep) -> tuple[int, ...]:
        """The frozen boxes at ``step``, shown from the first dead move on (none before it)."""
        dead = self.dead_step
        return frozen_boxes(self.level, step.boxes) if dead is not None and step.number >= dead else ()

    def where(self, cell: int) -> str:
        r, q = divmod(cell, self.level.cols)
        return f"row {r + 1} col {q + 1}"

    def disagreements(self) -> list[str]:
        out = super().disagreements()
        theirs = self.verdict.get("first_dead_move")
        if theirs is not None and theirs == theirs and int(theirs) != self.first_dead_move:
            out.append(f"first_dead_move: verdict {int(theirs)!r}, replay {self.first_dead_move!r}")
        return out

    def text(self, step: SokobanStep) -> str:
        """The level in XSB at ``step`` (``Level.text``: one line per row, right-stripped)."""
        return replace(self.level, boxes=step.boxes, player=step.player).text

    @property
    def pushes_taken(self) -> int:
        return sum(s.pushed >= 0 for s in self.steps)

    moved_heading = "push"

    def summary_lines(self) -> list[str]:
        """The verdict in words: the level, then ``verdict_lines``, then the pushes."""
        level, n = self.level, len(self.level.boxes)
        certificate = "" if self.pushes is None else f", {self.pushes} push{'es' if self.pushes != 1 else ''}"
        if self.objective == "pushes":  # d* counts pushes: say so, once
            certificate = f" push{'es' if self.depth != 1 else ''}, push-optimal"
        return (
            [
                f"level {self.board_id} ({level.size}, {n} box{'es' if n != 1 else ''}, d* = {self.depth}"
                f"{certificate}) · condition {self.condition} · trial {self.trial}"
            ]
            + verdict_lines(self)
            + [f"pushes: {self.pushes_taken} of {len(self.steps) - 1} legal moves", self.dead_line()]
        )

    def dead_line(self) -> str:
        """The first dead move in words."""
        if self.first_dead_move == DEAD_UNKNOWN:
            return "first dead move: unknown (a solvability check stopped at its node limit)"
        dead = self.dead_step
        if dead is None:
            return (
                "first dead move: none (complete)"
                if self.status == "complete"
                else "first dead move: none (the level can still be solved after the last legal move)"
            )
        step = self.steps[dead]
        frozen = self.frozen(step)
        boxes = (
            f"; frozen boxes: {', '.join(self.where(b) for b in frozen)}"
            if frozen
            else "; no box is frozen on its own: dead by search"
        )
        return (
            f"first dead move: move {dead} ({step.move!r}), after which the level cannot be solved "
            f"(first_dead_move = {self.first_dead_move}){boxes}"
        )

    def step_notes(self, step: SokobanStep) -> list[str]:
        if step.number != self.dead_step:
            return []
        frozen = self.frozen(step)
        return [
            "dead: the level cannot be solved from here"
            + (f" (frozen: {', '.join(self.where(b) for b in frozen)})" if frozen else "")
        ]

    def move_mark(self, step: SokobanStep) -> tuple[str, str]:
        return ("dead", ", the first dead move") if step.number == self.dead_step else ("", "")

    def moved_text(self, step: SokobanStep) -> str:
        return "box" if step.pushed >= 0 else "-"

    def moved_label(self, step: SokobanStep) -> str:
        return ", push" if step.pushed >= 0 else ""

    def state_lines(self, step: SokobanStep) -> list[tuple[str, tuple[int, int] | None]]:
        box = None if step.pushed < 0 else divmod(step.pushed, self.level.cols)
        return [
            (line, (box[1], box[1] + 1) if box is not None and r == box[0] else None)
            for r, line in enumerate(self.text(step).split("\n"))
        ]

    def page(self) -> TracePage:
        """The level as a picture: one cell per grid cell, the room's walls, goals, boxes and the player."""
        steps = [
            {
                "n": s.number,
                "move": s.move,
                "push": s.pushed,
                "player": s.player,
                "boxes": list(s.boxes),
                "frozen": list(self.frozen(s)),
                "dead": self.dead_step is not None and s.number >= self.dead_step,
                "h": s.h,
                "text": self.text(s),
                "note": step_note(self, s),
            }
            for s in self.steps
        ]
        level = self.level
        cells = "".join('<div class="cell"></div>' for _ in range(level.cells))
        stage = [
            '<div class="boards"><div><b>Level</b>',
            f'<div id="board" class="grid sk" style="grid-template-columns:repeat({level.cols},1.9em)" '
            f'role="img" aria-label="the level">{cells}</div></div></div>',
        ]
        return TracePage(
            stage,
            steps,
            _DRAW,
            '(s.push >= 0 ? ", push" : "")',
            "yellow ring: the box just pushed; brown: a box, green: a box on a goal, green dot: a goal, "
            "blue: the player, red with a cross: a frozen box, purple frame: the level can no longer be "
            "solved (from the first dead move on, purple in the move list)",
            _CSS,
            {"cols": level.cols, "kinds": _kinds(level), "goals": list(level.goals)},
        )


# each cell's kind on the page: 0 outside the room (not drawn), 1 a wall, 2 floor
def _kinds(level: Level) -> list[int]:
    drawn = level.text.split("\n")
    out = []
    for c in range(level.cells):
        r, q = divmod(c, level.cols)
        line = drawn[r] if r < len(drawn) else ""
        out.append(2 if not level.wall[c] else 1 if q < len(line) and line[q] == "#" else 0)
    return out


# the page draws a step by classing the grid's cells (walls, goals and floor fixed; boxes and the player per step)
_DRAW = """    var boxes = {}, frozen = {}, goals = {};
    s.boxes.forEach(function(b){ boxes[b] = 1; });
    s.frozen.forEach(function(b){ frozen[b] = 1; });
    data.goals.forEach(function(g){ goals[g] = 1; });
    for (var c = 0; c < cells.length; c++){
      var k = data.kinds[c], name = "cell", what = "";
      if (k === 0) name += " out";
      else if (k === 1) { name += " wall"; what = "wall"; }
      else {
        if (goals[c]) { name += " goal"; what = "goal"; }
        if (boxes[c]) { name += goals[c] ? " box on" : " box"; what = goals[c] ? "box on a goal" : "box"; }
        if (c === s.player) { name += " player"; what = goals[c] ? "player on a goal" : "player"; }
        if (i > 0 && c === s.push) { name += " moved"; what += ", just pushed"; }
        if (frozen[c]) { name += " frozen"; what += ", frozen"; }
      }
      cells[c].className = name;
      cells[c].textContent = frozen[c] ? "\u2715" : "";
      cells[c].title = what;
    }
    document.getElementById("board").classList.toggle("dead", s.dead);
"""
_CSS = """
.sk{gap:0;background:transparent;padding:3px;border:3px solid transparent;border-radius:4px;width:max-content}
.sk.dead{border-color:#7b1fa2}
.sk .cell{width:1.9em;height:1.9em;border:0;border-radius:0;background:#f3efe6;position:relative;color:#fff}
.sk .cell.out{background:transparent}.sk .cell.wall{background:#5a5a5a;box-shadow:inset 0 0 0 1px #444}
.sk .cell.goal::before{content:"";position:absolute;width:.7em;height:.7em;border-radius:50%;background:#2a9d4b}
.sk .cell.box{background:#c68a3c;box-shadow:inset 0 0 0 3px #8a5a1c;border-radius:3px}
.sk .cell.box.on{background:#3f9f5f;box-shadow:inset 0 0 0 3px #1f6f3a}.sk .cell.box.on::before{display:none}
.sk .cell.player::after{content:"";position:absolute;width:1.2em;height:1.2em;border-radius:50%;background:#1f5fbf;
 box-shadow:0 0 0 2px #fff}
.sk .cell.moved{outline:3px solid #ffd54a;outline-offset:-3px;z-index:1}
.sk .cell.frozen{background:#c0392b;box-shadow:inset 0 0 0 3px #7b1e15}
#moves li.dead{border-color:#7b1fa2;background:#efe0f5;font-weight:bold}
#moves li.dead.cur{background:#7b1fa2;color:#fff}
"""


def replay_level(level: Level, moves: str) -> tuple[list[SokobanStep], Illegal | None]:
    """The steps of ``moves`` (U, D, L, R move the player and push a box ahead; any other character is not a
    move) up to the first illegal action, and that action (None if every move was legal)."""
    dist = level.push_distance.tolist()
    player, boxes, h = level.player, frozenset(level.boxes), level.h()
    steps = [SokobanStep(0, "", -1, player, tuple(sorted(boxes)), h)]
    seen = {(player, steps[0].boxes): 0}
    for i, move in enumerate(moves):
        if move not in DIRECTIONS:
            return steps, Illegal(i + 1, move, "invalid_action", SHARED_REASONS["invalid_action"])
        player, boxes, pushed, error = level.step(player, boxes, DIRECTIONS.index(move))
        if error:
            return steps, Illegal(i + 1, move, error, REASONS[error])
        if pushed >= 0:
            h += dist[pushed] - dist[player]  # the box left the cell the player stepped onto
        state = (player, tuple(sorted(boxes)))
        steps.append(SokobanStep(i + 1, move, pushed, player, state[1], h, seen.get(state)))
        seen.setdefault(state, i + 1)
    return steps, None


_DEAD = DeadMoves()  # the viewer's own checks, cached while the process lives (a report's example pages)


def sokoban_trace(bank_row: dict, verdict_row: dict) -> SokobanTrace:
    """The trace of one verdict row on its bank row (dicts: ``level``, ``depth``, optionally ``pushes``, and the
    verdict's ``board_id, condition, trial, moves``, with ``error_kind`` for a format failure)."""
    level = parse_level(str(bank_row["level"]))
    moves = str(verdict_row.get("moves") or "")
    steps, illegal = replay_level(level, moves)
    pushes = bank_row.get("pushes")
    complete = illegal is None and steps[-1].h == 0
    dead = DEAD_NONE if complete else _DEAD.first_dead_move(level, moves)
    return SokobanTrace(
        str(verdict_row["board_id"]),
        str(verdict_row["condition"]),
        int(verdict_row["trial"]),
        level,
        int(bank_row["depth"]),
        None if pushes is None else int(pushes),
        moves,
        tuple(steps),
        format_failure(verdict_row) or illegal,
        dict(verdict_row),
        dead,
        str(bank_row.get("objective") or "moves"),
    )
