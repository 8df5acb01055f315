"""One Sokoban answer played out on its level: the level after each move, where the plan broke, came closest
and went in circles (a ``report.trace.Trace``), drawn as XSB text, the box each push moved marked.

``sokoban_trace(bank_row, verdict_row)`` replays the verdict's ``moves`` on the bank row's XSB ``level`` with the
domain's plain tables (``Level.moves``, ``Level.push_distance``) in Python, so that the viewer checks the verdict
it shows (``disagreements``). A state is (player cell, box cells); h is the domain's push-distance sum, 0 exactly
when every box is on a goal. Step i is the level after the i-th move, as in ``viewer``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...report.trace import Illegal, SHARED_REASONS, Trace, TracePage, format_failure, step_note, verdict_lines
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
        return ([f"level {self.board_id} ({level.size}, {n} box{'es' if n != 1 else ''}, d* = {self.depth}"
                 f"{certificate}) · condition {self.condition} · trial {self.trial}"]
                + verdict_lines(self) + [f"pushes: {self.pushes_taken} of {len(self.steps) - 1} legal moves"])

    def moved_text(self, step: SokobanStep) -> str:
        return "box" if step.pushed >= 0 else "-"

    def moved_label(self, step: SokobanStep) -> str:
        return ", push" if step.pushed >= 0 else ""

    def state_lines(self, step: SokobanStep) -> list[tuple[str, tuple[int, int] | None]]:
        box = None if step.pushed < 0 else divmod(step.pushed, self.level.cols)
        return [(line, (box[1], box[1] + 1) if box is not None and r == box[0] else None)
                for r, line in enumerate(self.text(step).split("\n"))]

    def page(self) -> TracePage:
        steps = [{"n": s.number, "move": s.move, "push": s.pushed >= 0, "h": s.h, "text": self.text(s),
                  "note": step_note(self, s)} for s in self.steps]
        stage = ['<div class="boards"><div><b>Level</b>', '<pre id="board" class="level"></pre></div></div>']
        return TracePage(stage, steps, '    document.getElementById("board").textContent = s.text;\n',
                         '(s.push ? ", push" : "")',
                         "@ the player (+ on a goal), $ a box (* on a goal), . a goal, # a wall",
                         ".level{font-size:1.6em;line-height:1.15;margin:.3em 0;padding:.3em .5em;background:#f4f4f4}\n")


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


def sokoban_trace(bank_row: dict, verdict_row: dict) -> SokobanTrace:
    """The trace of one verdict row on its bank row (dicts: ``level``, ``depth``, optionally ``pushes``, and the
    verdict's ``board_id, condition, trial, moves``, with ``error_kind`` for a format failure)."""
    level = parse_level(str(bank_row["level"]))
    moves = str(verdict_row.get("moves") or "")
    steps, illegal = replay_level(level, moves)
    pushes = bank_row.get("pushes")
    return SokobanTrace(str(verdict_row["board_id"]), str(verdict_row["condition"]), int(verdict_row["trial"]),
                        level, int(bank_row["depth"]), None if pushes is None else int(pushes), moves,
                        tuple(steps), format_failure(verdict_row) or illegal, dict(verdict_row))
