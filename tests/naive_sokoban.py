"""Plain-Python twin of ``fastspe.domains.sokoban.kernels.replay.replay_levels``, written from the rules alone.

It shares no code with the package: its own reading of the XSB characters (by (row, col) coordinates, a wall being
a ``#`` or a step off the drawn lines), h recomputed from scratch at every state by a breadth-first search over
pushes FROM the box (the package searches backwards from the goals), states as (player, frozenset of boxes) in a
set, and the goal checked by comparing the box set with the goal set (not via h == 0).
"""

from __future__ import annotations

from collections import deque

STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
DEAD = 100  # a box from which no goal can be reached by pushes counts 100 (the package's DEAD_PUSHES)


class NaiveLevel:
    """A level read from XSB text: walls, goals, boxes and the player as (row, col) coordinates."""

    def __init__(self, text: str):
        self.grid = [line.rstrip("\r") for line in text.strip("\n").split("\n")]
        self.walls, self.goals, self.boxes, self.player = set(), set(), set(), None
        for r, line in enumerate(self.grid):
            for q, ch in enumerate(line):
                if ch == "#":
                    self.walls.add((r, q))
                if ch in ".*+":
                    self.goals.add((r, q))
                if ch in "$*":
                    self.boxes.add((r, q))
                if ch in "@+":
                    self.player = (r, q)
        self.height = len(self.grid)
        self.width = max(len(line) for line in self.grid)

    def wall(self, spot) -> bool:
        r, q = spot
        return not (0 <= r < self.height and 0 <= q < self.width) or spot in self.walls

    def pushes_to_goal(self, box) -> int:
        """Fewest pushes of a lone box from ``box`` onto any goal (forward BFS), DEAD if none."""
        seen = {box: 0}
        queue = deque([box])
        while queue:
            here = queue.popleft()
            if here in self.goals:
                return seen[here]
            for dr, dq in STEPS.values():
                ahead, behind = (here[0] + dr, here[1] + dq), (here[0] - dr, here[1] - dq)
                if not self.wall(ahead) and not self.wall(behind) and ahead not in seen:
                    seen[ahead] = seen[here] + 1
                    queue.append(ahead)
        return DEAD

    def h(self, boxes) -> int:
        return sum(self.pushes_to_goal(b) for b in boxes)


def naive_replay(text: str, plan) -> dict:
    """Replay ``plan`` (a sequence of tokens; "U", "D", "L", "R" are moves, anything else is not) on the level.

    Returns a dict with status, error_kind, first_error, final_h, min_h, revisits, goal_midway, L.
    """
    level = NaiveLevel(text)
    player, boxes = level.player, frozenset(level.boxes)
    states = [(player, boxes)]
    kind, first_error = "", -1
    for i, action in enumerate(plan):
        if action not in STEPS:
            kind, first_error = "invalid_action", i
            break
        dr, dq = STEPS[action]
        t = (player[0] + dr, player[1] + dq)
        if level.wall(t):
            kind, first_error = "wall", i
            break
        if t in boxes:
            beyond = (t[0] + dr, t[1] + dq)
            if level.wall(beyond) or beyond in boxes:
                kind, first_error = "box_blocked", i
                break
            boxes = (boxes - {t}) | {beyond}
        player = t
        states.append((player, boxes))
    hs = [level.h(b) for _, b in states]
    at_goal = [b == level.goals for _, b in states]
    seen, revisits = set(), 0
    for s in states:
        revisits += s in seen
        seen.add(s)
    final_goal = at_goal[-1]
    status = "illegal" if kind else "complete" if final_goal else "legal_noncompletion"
    # the states before each action that was taken or refused: every state but a legal plan's last one
    before_actions = states if kind else states[:-1]
    return {
        "status": status,
        "error_kind": kind,
        "first_error": first_error,
        "final_h": hs[-1],
        "min_h": min(hs),
        "revisits": revisits,
        "goal_midway": any(at_goal[: len(before_actions)]),
        "L": len(plan),
    }
