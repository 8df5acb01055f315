"""One Sokoban answer played out on its level: the level after each move, where the plan broke, came closest
and went in circles (``viewer`` does the same for the sliding puzzle, and the two share ``viewer.Replayed``).

``sokoban_trace(bank_row, verdict_row)`` replays the verdict's ``moves`` on the bank row's XSB ``level`` with the
domain's plain tables (``Level.moves``, ``Level.push_distance``) in Python, so that the viewer checks the verdict
it shows (``disagreements``). A state is (player cell, box cells); h is the domain's push-distance sum, 0 exactly
when every box is on a goal. Step i is the level after the i-th move, as in ``viewer``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..domains.sokoban.level import DIRECTIONS, Level, parse_level
from .viewer import Illegal, Replayed, format_failure, move_table, verdict_lines


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
class SokobanTrace(Replayed):
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


def replay_level(level: Level, moves: str) -> tuple[list[SokobanStep], Illegal | None]:
    """The steps of ``moves`` (U, D, L, R move the player and push a box ahead; any other character is not a
    move) up to the first illegal action, and that action (None if every move was legal)."""
    ahead_of = level.moves.tolist()
    dist = level.push_distance.tolist()
    player, boxes, h = level.player, set(level.boxes), level.h()
    steps = [SokobanStep(0, "", -1, player, tuple(sorted(boxes)), h)]
    seen = {(player, steps[0].boxes): 0}
    for i, move in enumerate(moves):
        if move not in DIRECTIONS:
            return steps, Illegal(i + 1, move, "invalid_action")
        d = DIRECTIONS.index(move)
        ahead, pushed = ahead_of[player][d], -1
        if ahead < 0:
            return steps, Illegal(i + 1, move, "wall")
        if ahead in boxes:
            pushed = ahead_of[ahead][d]
            if pushed < 0 or pushed in boxes:
                return steps, Illegal(i + 1, move, "box_blocked")
            boxes.discard(ahead)
            boxes.add(pushed)
            h += dist[pushed] - dist[ahead]
        player = ahead
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


# -- text -----------------------------------------------------------------------------------------------------

def sokoban_summary_lines(trace: SokobanTrace) -> list[str]:
    """The verdict in words: the level, then ``viewer.verdict_lines``, then the pushes."""
    level, n = trace.level, len(trace.level.boxes)
    certificate = "" if trace.pushes is None else f", {trace.pushes} push{'es' if trace.pushes != 1 else ''}"
    return ([f"level {trace.board_id} ({level.size}, {n} box{'es' if n != 1 else ''}, d* = {trace.depth}"
             f"{certificate}) · condition {trace.condition} · trial {trace.trial}"]
            + verdict_lines(trace) + [f"pushes: {trace.pushes_taken} of {len(trace.steps) - 1} legal moves"])


def sokoban_trace_lines(trace: SokobanTrace) -> list[str]:
    """The compact trace for a pipe: the summary, then one line per move (step, move, push, h after it)."""
    return sokoban_summary_lines(trace) + move_table(trace, "push", lambda step: "box" if step.pushed >= 0 else "-")


def pushed_at(trace: SokobanTrace, step: SokobanStep) -> tuple[int, int] | None:
    """(line, column) of the box ``step`` pushed in ``trace.text(step)``, None without a push."""
    return None if step.pushed < 0 else divmod(step.pushed, trace.level.cols)
