"""Independent Sokoban replay: every verdict field of a plan re-derived in plain Python from the rules alone.

It shares no code with ``fastspe.domains.sokoban.kernels.replay`` or ``fastspe.domains.sokoban``: its own reading of the
XSB text (by (row, col) coordinates), its own room (a flood fill from the player), its own push distances (a
breadth-first search backwards from each goal) and a replay that keeps the state as (player, frozenset of boxes).
The rules, as the issue states them: U/D/L/R move the player; moving into a box pushes it when the cell beyond is
floor or a goal; a step into a wall or off the room is ``wall``, a push into a wall or another box ``box_blocked``,
any other token ``invalid_action``; the first illegal action stops the replay. The plan completes when every box
is on a goal after its last move. h is the sum over boxes of the pushes to the nearest goal in the room without the
other boxes, a box that can reach no goal counting ``DEAD`` (100) or the level's cells (rows x cols) if more.

A board here has ``cohort``, ``boxes`` (the stratum), ``depth`` and ``layout`` (whose ``tag`` is the level's size
"RxC": the room, any walled-in boxes and the walls touching them, diagonals included): a ``contract.VerifierBoard``.
A box on a goal that the player cannot reach (walled in) never moves: it is left out of the boxes and goals.

The verifier's replay (``sokoban_verdict``, ``VERIFIER.replay``) adds ``pushes`` (of the legal prefix: what an answer
costs on a bank certifying fewest pushes, the board's ``cost_unit``) and ``first_dead_move`` (``verify.dead``).
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from ....errors import UserError
from ...contract import Verifier

__all__ = [
    "DEAD",
    "SokobanRoom",
    "SokobanBoard",
    "bank_levels",
    "replay_sokoban",
    "played",
    "sokoban_verdict",
    "VERIFIER",
]

DEAD = 100
STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def reachable_cells(start, walls, height, width) -> set:
    """The cells reachable from ``start`` through anything but ``walls`` (boxes included) in a ``height`` x
    ``width`` room."""
    room, queue = {start}, deque([start])
    while queue:
        r, q = queue.popleft()
        for dr, dq in STEP.values():
            n = (r + dr, q + dq)
            if 0 <= n[0] < height and 0 <= n[1] < width and n not in walls and n not in room:
                room.add(n)
                queue.append(n)
    return room


class SokobanRoom:
    """A level's room, goals, start and push distances, read from its XSB text (a ``UserError`` if it is none)."""

    def __init__(self, text: str):
        lines = [line.rstrip("\r") for line in text.split("\n")]
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        walls, goals, boxes, players = set(), set(), set(), []
        for r, line in enumerate(lines):
            for q, ch in enumerate(line):
                if ch not in "# -_.$*@+":
                    raise UserError(f"line {r + 1}, column {q + 1}: {ch!r} is not an XSB character")
                spot = (r, q)
                if ch == "#":
                    walls.add(spot)
                if ch in ".*+":
                    goals.add(spot)
                if ch in "$*":
                    boxes.add(spot)
                if ch in "@+":
                    players.append(spot)
        if len(players) != 1:
            raise UserError(f"a level has one player, this one {len(players)}")
        height, width = len(lines), max(len(line) for line in lines)
        self.player = players[0]
        self.floor = reachable_cells(self.player, walls, height, width)
        walled_in = {b for b in boxes if b in goals and b not in self.floor}  # never moves: a wall to the rules
        boxes, goals = boxes - walled_in, goals - walled_in
        if not boxes <= self.floor or not goals <= self.floor or len(goals) != len(boxes) or not boxes:
            raise UserError("the boxes and goals must be in the player's room, as many of each, at least one")
        self.goals, self.boxes = frozenset(goals), frozenset(boxes)
        kept = self.floor | walled_in
        drawn = kept | {
            (r + dr, q + dq) for r, q in kept for dr in (-1, 0, 1) for dq in (-1, 0, 1) if (r + dr, q + dq) in walls
        }
        rows = max(r for r, _ in drawn) - min(r for r, _ in drawn) + 1
        cols = max(q for _, q in drawn) - min(q for _, q in drawn) + 1
        self.tag = f"{rows}x{cols}"
        self.dead = max(DEAD, rows * cols)  # more than any push distance
        self.pushes = self._push_distances()

    def _push_distances(self) -> dict:
        """Pushes from each room cell to its nearest goal: one backward search from all goals at once."""
        best = {g: 0 for g in self.goals}
        queue = deque(self.goals)
        while queue:
            here = queue.popleft()
            for dr, dq in STEP.values():
                # the box came to ``here`` from ``came`` pushed by a player standing on ``stood``
                came, stood = (here[0] - dr, here[1] - dq), (here[0] - 2 * dr, here[1] - 2 * dq)
                if came in self.floor and stood in self.floor and came not in best:
                    best[came] = best[here] + 1
                    queue.append(came)
        return best

    def h(self, boxes) -> int:
        return sum(self.pushes.get(b, self.dead) for b in boxes)


class SokobanBoard(NamedTuple):
    layout: SokobanRoom
    cohort: str
    boxes: int
    depth: int
    cost_unit: str = "moves"  # what depth counts: the bank's objective (moves or pushes)

    @property
    def stratum(self) -> int:
        return self.boxes

    @property
    def tag(self) -> str:
        return self.layout.tag


def replay_sokoban(board: SokobanBoard, moves: str) -> dict:
    """Status, first illegal action, h along the legal prefix, revisits and a midway goal of ``moves``."""
    return played(board, moves)[0]


def played(board: SokobanBoard, moves: str) -> tuple[dict, list]:
    """``replay_sokoban``'s dict, and the (move index, player, boxes) after each push of the legal prefix."""
    room = board.layout
    pushed = []
    player, boxes = room.player, room.boxes
    h = room.h(boxes)
    seen, min_h, revisits, midway, kind, first_error = {(player, boxes)}, h, 0, False, "", -1
    for i, letter in enumerate(moves):
        midway = midway or boxes == room.goals
        if letter not in STEP:
            kind, first_error = "invalid_action", i
            break
        dr, dq = STEP[letter]
        ahead = (player[0] + dr, player[1] + dq)
        if ahead not in room.floor:
            kind, first_error = "wall", i
            break
        if ahead in boxes:
            beyond = (ahead[0] + dr, ahead[1] + dq)
            if beyond not in room.floor or beyond in boxes:
                kind, first_error = "box_blocked", i
                break
            boxes = boxes - {ahead} | {beyond}
            h += room.pushes.get(beyond, room.dead) - room.pushes.get(ahead, room.dead)
            pushed.append((i, ahead, boxes))
        player = ahead
        revisits += (player, boxes) in seen
        seen.add((player, boxes))
        min_h = min(min_h, h)
    status = "illegal" if kind else "complete" if boxes == room.goals else "legal_noncompletion"
    return {
        "status": status,
        "error_kind": kind,
        "first_error": first_error,
        "final_h": h,
        "min_h": min_h,
        "revisits": revisits,
        "goal_midway": midway,
    }, pushed


def sokoban_verdict(board: SokobanBoard, moves: str, dead: bool = True) -> dict:
    """The verifier's replay (``contract.Verifier``): ``replay_sokoban``'s fields, ``pushes`` (of the legal prefix:
    a push bank's cost) and, with ``dead``, ``first_dead_move`` (``verify.dead``: None beyond its bound)."""
    out, pushed = played(board, moves)
    out["pushes"] = len(pushed)
    if dead:
        from .dead import first_dead_move

        out["first_dead_move"] = first_dead_move(board.layout, pushed, out["status"] == "complete")
    return out


def bank_levels(bank) -> dict[str, SokobanBoard]:
    """A Sokoban bank's levels (an Arrow table or a DataFrame) keyed by board_id, each room read once."""
    names = ("board_id", "level", "cohort", "boxes", "depth")
    columns = [bank.column(c).to_pylist() if hasattr(bank, "schema") else list(bank[c]) for c in names]
    has = bank.column_names if hasattr(bank, "schema") else list(bank.columns)
    aims = (
        [
            a or "moves"
            for a in (bank.column("objective").to_pylist() if hasattr(bank, "schema") else list(bank["objective"]))
        ]
        if "objective" in has
        else ["moves"] * len(columns[0])
    )
    rooms: dict[str, SokobanRoom] = {}
    boards = {}
    for bid, text, cohort, boxes, depth, aim in zip(*columns, aims):
        room = rooms.get(text)
        if room is None:
            try:
                room = rooms[text] = SokobanRoom(str(text))
            except UserError as exc:
                raise UserError(f"board {bid!r}: {exc}") from None
        boards[str(bid)] = SokobanBoard(room, str(cohort), int(boxes), int(depth), str(aim))
    return boards


VERIFIER = Verifier(bank_levels, sokoban_verdict)
