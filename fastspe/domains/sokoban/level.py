"""Sokoban levels: standard XSB text parsed into arrays, the room, the moves and the push-distance heuristic.

XSB: ``#`` wall, `` `` (or ``-``, ``_``) floor, ``.`` goal, ``$`` box, ``*`` box on a goal, ``@`` the player,
``+`` the player on a goal. Cells are row-major indices into the ``rows x cols`` bounding box. The room is what
the player can reach through non-wall cells (boxes included); every other cell counts as wall. A level must be
closed by walls (a room that reaches the edge of the drawing is refused) and must not be solved at the start
(d* = 0 would make an empty answer "optimal"). A box on a goal walled in where the player cannot reach (as
reasoning-gym's rooms and Microban 155 have) can never move: it is a wall to every rule and search, kept in
``Level.fixed`` so the level's text still draws it as ``*``; it is not counted among the boxes.

Direction codes are the sliding puzzle's: 0 = U (row - 1), 1 = D, 2 = L (col - 1), 3 = R; they move the player.
Moving into a box pushes it when the cell beyond is in the room and holds no box.

h(state) is the sum over boxes of the box's push distance to its nearest goal, by breadth-first search over
pushes in the room with no other box (a lower bound on the pushes left, 0 exactly when every box is on a goal).
A box on a dead square (no goal reachable by pushes) counts ``dead_pushes``: ``DEAD_PUSHES`` (100, as on every
level up to 10 x 10) or the level's cells if more, so more than any push distance.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import UserError, UserTypeError

__all__ = ["Level", "LevelRefused", "parse_level", "MAX_SIDE", "MAX_BOXES", "DEAD_PUSHES", "STEPS", "DIRECTIONS"]

MAX_SIDE = 32  # the push search's rooms (kernels.push_search): cells fit its int16 state fields
MAX_BOXES = 16
DEAD_PUSHES = 100  # a dead box's least h term: more than any push distance on a 10x10 grid
DIRECTIONS = "UDLR"
STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # (row step, col step) of U, D, L, R

_FLOOR, _GOAL, _BOX, _PLAYER = " -_", ".*+", "$*", "@+"
_KNOWN = set("#") | set(_FLOOR) | set(_GOAL) | set(_BOX) | set(_PLAYER)


@dataclass(frozen=True, eq=False)
class Level:
    """A parsed level (make one with ``parse_level``; its fields are read-only).

    rows, cols : the bounding box of the drawn level (room and the walls next to it)
    wall : bool (cells,), True outside the room (a ``#`` or any cell the player cannot reach)
    goal : bool (cells,), the goal cells
    boxes : sorted tuple of the boxes' cells (the ones the player can reach: ``fixed`` not among them)
    player : the player's cell
    fixed : sorted tuple of the cells of boxes on goals walled in out of the player's reach (walls in ``wall``, not
        goals in ``goal``; drawn as ``*``)
    """

    rows: int
    cols: int
    wall: np.ndarray
    goal: np.ndarray
    boxes: tuple[int, ...]
    player: int
    fixed: tuple[int, ...] = ()

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def goals(self) -> tuple[int, ...]:
        """The goal cells, ascending."""
        return tuple(int(c) for c in np.flatnonzero(self.goal))

    @property
    def size(self) -> str:
        """``"RxC"``, the level's layout name in tables (the room, its walled-in boxes and the walls around them)."""
        return f"{self.rows}x{self.cols}"

    @property
    def solved(self) -> bool:
        return all(self.goal[b] for b in self.boxes)

    @cached_property
    def text(self) -> str:
        """Canonical XSB: a ``#`` on each wall cell next to the room or a fixed box (diagonals too), a ``*`` on each
        fixed box, lines right-stripped."""
        room = ~self.wall
        room[list(self.fixed)] = True
        near = np.zeros((self.rows + 2, self.cols + 2), dtype=bool)
        grid = room.reshape(self.rows, self.cols)
        for dr in (-1, 0, 1):
            for dq in (-1, 0, 1):
                near[1 + dr : self.rows + 1 + dr, 1 + dq : self.cols + 1 + dq] |= grid
        near = near[1:-1, 1:-1].ravel()
        boxes, fixed = set(self.boxes), set(self.fixed)
        chars = []
        for c in range(self.cells):
            if c in fixed:
                chars.append("*")
            elif self.wall[c]:
                chars.append("#" if near[c] else " ")
            elif c == self.player:
                chars.append("+" if self.goal[c] else "@")
            elif c in boxes:
                chars.append("*" if self.goal[c] else "$")
            else:
                chars.append("." if self.goal[c] else " ")
        return "\n".join("".join(chars[r * self.cols : (r + 1) * self.cols]).rstrip() for r in range(self.rows))

    def __eq__(self, other) -> bool:
        return isinstance(other, Level) and self.text == other.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"parse_level({self.text!r})"

    @cached_property
    def moves(self) -> np.ndarray:
        """int16 (cells, 4): the cell one step in each direction, -1 where that is a wall or off the grid."""
        r, q = np.divmod(np.arange(self.cells), self.cols)
        table = np.full((self.cells, 4), -1, dtype=np.int16)
        for d, (dr, dq) in enumerate(STEPS):
            rr, qq = r + dr, q + dq
            inside = (rr >= 0) & (rr < self.rows) & (qq >= 0) & (qq < self.cols)
            target = np.where(inside, rr * self.cols + qq, 0)
            table[:, d] = np.where(inside & ~self.wall[target], target, -1)
        return table

    @cached_property
    def _ahead(self) -> list[list[int]]:
        """``moves`` as nested lists of Python ints: ``step`` reads single cells."""
        return self.moves.tolist()

    def step(self, player: int, boxes: frozenset[int], direction: int) -> tuple[int, frozenset[int], int, str]:
        """The rule of one move: the player at ``player`` among ``boxes`` moves in ``direction`` (0..3: U, D, L, R).

        Returns (the player's cell, the boxes, the cell a box was pushed onto or -1, ""), or for an illegal move the
        state unchanged and its error kind: ``wall`` (the player walks into a wall) or ``box_blocked`` (the box
        ahead has a wall or another box behind it)."""
        ahead = self._ahead[player][direction]
        if ahead < 0:
            return player, boxes, -1, "wall"
        if ahead not in boxes:
            return ahead, boxes, -1, ""
        pushed = self._ahead[ahead][direction]
        if pushed < 0 or pushed in boxes:
            return player, boxes, -1, "box_blocked"
        return ahead, (boxes - {ahead}) | {pushed}, pushed, ""

    @cached_property
    def goal_push_distances(self) -> np.ndarray:
        """int16 (goals, cells): pushes that bring a lone box from each cell to goal i, -1 if none can."""
        moves = self.moves.tolist()  # Python ints: the search below reads single cells
        out = np.full((len(self.goals), self.cells), -1, dtype=np.int16)
        back = (1, 0, 3, 2)  # the opposite direction
        for i, g in enumerate(self.goals):
            # backwards from the goal: a box on c reaches c' = c + d when the player stands on c - d
            dist = [-1] * self.cells
            dist[g] = 0
            queue = deque([g])
            while queue:
                t = queue.popleft()
                for d in range(4):
                    c = moves[t][back[d]]  # the box came from c, pushed in direction d
                    if c < 0 or dist[c] >= 0 or moves[c][back[d]] < 0:  # (no room for the player behind it)
                        continue
                    dist[c] = dist[t] + 1
                    queue.append(c)
            out[i] = dist
        return out

    @property
    def dead_pushes(self) -> int:
        """A dead box's h term: ``DEAD_PUSHES`` or the number of cells if more (a push distance is fewer)."""
        return max(DEAD_PUSHES, self.cells)

    @cached_property
    def push_distance(self) -> np.ndarray:
        """int16 (cells,): pushes from each cell to the nearest goal, ``dead_pushes`` where no goal is reachable
        (walls included; a box is never on one)."""
        dist = self.goal_push_distances.astype(np.int32)
        dead = self.dead_pushes
        dist[dist < 0] = dead
        return dist.min(axis=0).astype(np.int16) if len(dist) else np.full(self.cells, dead, np.int16)

    def h(self, boxes=None) -> int:
        """h of the level's boxes, or of the box cells ``boxes``."""
        return int(sum(int(self.push_distance[b]) for b in (self.boxes if boxes is None else boxes)))


class LevelRefused(UserError):
    """A text ``parse_level`` refuses; ``kind`` is "too_big" or "too_many_boxes" (over this build's limits) or
    "refused" (not a level it accepts: bad XSB, not closed by walls, solved at the start, ...)."""

    def __init__(self, message: str, kind: str = "refused"):
        super().__init__(message)
        self.kind = kind


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word.endswith("x") else f"{n} {word}s"


def _where(r: int, q: int) -> str:
    return f"line {r + 1}, column {q + 1}"


def parse_level(text: str) -> Level:
    """A ``Level`` from XSB text, or a ``LevelRefused`` naming the line and column of what is wrong.

    Blank lines before and after the level are ignored, as is a ``\\r`` before each newline; the level is
    cropped to its drawn bounding box (so leading spaces shared by every line do not count toward the size).
    """
    if not isinstance(text, str):
        raise UserTypeError(f"a level must be XSB text (a str), got {type(text).__name__}")
    lines = [line.rstrip("\r") for line in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    lines = lines[first:]
    if not lines:
        raise LevelRefused("the level is empty: XSB text needs walls (#), a player (@), boxes ($) and goals (.)")
    player, boxes, goals, walls = None, [], [], set()
    for r, line in enumerate(lines):
        for q, ch in enumerate(line):
            where = (r + first, q)
            if ch not in _KNOWN:
                raise LevelRefused(
                    f"level {_where(*where)}: {ch!r} is not an XSB character "
                    f"(# wall, space floor, . goal, $ box, * box on goal, @ player, + player on goal)"
                )
            if ch == "#":
                walls.add((r, q))
            if ch in _PLAYER:
                if player is not None:
                    raise LevelRefused(
                        f"level {_where(*where)}: a second player (the first is at "
                        f"{_where(player[0] + first, player[1])})"
                    )
                player = (r, q)
            if ch in _BOX:
                boxes.append((r, q))
            if ch in _GOAL:
                goals.append((r, q))
    if player is None:
        raise LevelRefused("the level has no player (@, or + on a goal)")
    rows, cols = len(lines), max(len(line) for line in lines)
    room = _room(player, walls, rows, cols)
    edge = next(
        (s for s in sorted(room) if s[0] in (0, rows - 1) or s[1] in (0, cols - 1) or s[1] >= len(lines[s[0]])), None
    )
    if edge is not None:
        raise LevelRefused(
            f"level {_where(edge[0] + first, edge[1])}: the level is not closed by walls (the player "
            f"can walk off the drawing here)"
        )
    # a box on a goal that the player cannot reach is walled in for good: a wall, still drawn as *
    fixed = {s for s in boxes if s not in room and s in goals}
    boxes = [s for s in boxes if s not in fixed]
    goals = [s for s in goals if s not in fixed]
    for kind, spots in (("box", boxes), ("goal", goals)):
        for spot in spots:
            if spot not in room:
                raise LevelRefused(
                    f"level {_where(spot[0] + first, spot[1])}: a {kind} the player cannot reach (outside the room)"
                )
    if not 1 <= len(boxes) <= MAX_BOXES:
        raise LevelRefused(
            f"the level has {_count(len(boxes), 'box')}{_walled(fixed)}; a level has 1 to {MAX_BOXES}",
            "too_many_boxes" if boxes else "refused",
        )
    if len(goals) != len(boxes):
        raise LevelRefused(
            f"the level has {_count(len(boxes), 'box')} and {_count(len(goals), 'goal')}; it needs as "
            f"many goals as boxes"
        )
    if set(boxes) <= set(goals):
        raise LevelRefused(
            "the level is solved at the start (every box is on a goal): its d* would be 0 moves, and "
            "an empty answer would score as optimal"
        )
    # crop to the room, the walled-in boxes and the walls around them (diagonal neighbours included), as
    # ``Level.text`` draws it
    kept = room | fixed
    drawn = {(r + dr, q + dq) for r, q in kept for dr in (-1, 0, 1) for dq in (-1, 0, 1)} & (walls | kept)
    top, left = min(r for r, _ in drawn), min(q for _, q in drawn)
    rows, cols = max(r for r, _ in drawn) - top + 1, max(q for _, q in drawn) - left + 1
    if rows > MAX_SIDE or cols > MAX_SIDE:
        raise LevelRefused(
            f"the level is {rows}x{cols}; a level is at most {MAX_SIDE}x{MAX_SIDE} (walls included)", "too_big"
        )

    def cell(spot):
        return (spot[0] - top) * cols + spot[1] - left

    wall = np.ones(rows * cols, dtype=np.bool_)
    wall[[cell(s) for s in room]] = False
    goal = np.zeros(rows * cols, dtype=np.bool_)
    goal[[cell(s) for s in goals]] = True
    wall.flags.writeable = False
    goal.flags.writeable = False
    return Level(
        rows,
        cols,
        wall,
        goal,
        tuple(sorted(cell(s) for s in boxes)),
        cell(player),
        tuple(sorted(cell(s) for s in fixed)),
    )


def _walled(fixed) -> str:
    return f" the player can reach (and {_count(len(fixed), 'box')} walled in on goals)" if fixed else ""


def _room(player, walls, rows, cols) -> set:
    """The cells the player reaches through non-wall cells of the drawn lines (boxes do not stop the fill)."""
    room, queue = {player}, deque([player])
    while queue:
        r, q = queue.popleft()
        for dr, dq in STEPS:
            spot = (r + dr, q + dq)
            if 0 <= spot[0] < rows and 0 <= spot[1] < cols and spot not in walls and spot not in room:
                room.add(spot)
                queue.append(spot)
    return room
