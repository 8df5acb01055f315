"""Hypothesis strategies for Sokoban: small random rooms with a plan, goals often where the plan takes the boxes.

The room is drawn as XSB text, closed by walls (an open one is refused), with random inner walls; now and then a wall
cell with walls all round becomes a box on its goal walled in (``*``), which the rules treat as a wall.
The plan is either random tokens (mostly moves; pushes into walls and boxes wherever they lead; now and then a
token that is not a move) or a walk that mostly takes legal moves, so that boxes travel and states repeat. The goals are the box cells after some prefix of the plan's legal moves (so plans
complete, pass the goal midway and step past it), or random room cells.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def _component(floor: set, start) -> set:
    seen, todo = {start}, [start]
    while todo:
        r, q = todo.pop()
        for dr, dq in STEP.values():
            n = (r + dr, q + dq)
            if n in floor and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def _step(floor: set, player, boxes: frozenset, a):
    """(player, boxes) after action ``a``, or None if it is not a legal move."""
    if a not in STEP:
        return None
    dr, dq = STEP[a]
    t = (player[0] + dr, player[1] + dq)
    if t not in floor:
        return None
    if t in boxes:
        b = (t[0] + dr, t[1] + dq)
        if b not in floor or b in boxes:
            return None
        boxes = (boxes - {t}) | {b}
    return t, boxes


def _walk(draw, floor: set, player, boxes: frozenset, max_len: int):
    """A plan that mostly takes legal moves (pushes included) and now and then any token."""
    plan = []
    for _ in range(draw(st.integers(0, max_len))):
        legal = [a for a in "UDLR" if _step(floor, player, boxes, a) is not None]
        if not legal or draw(st.integers(0, 9)) == 0:
            plan.append(draw(st.sampled_from("UDLRx")))
            break_here = _step(floor, player, boxes, plan[-1])
            if break_here is None:
                continue
            player, boxes = break_here
        else:
            plan.append(draw(st.sampled_from(legal)))
            player, boxes = _step(floor, player, boxes, plan[-1])
    return plan


def _legal_states(floor: set, player, boxes: frozenset, plan):
    """Box sets along the legal prefix of ``plan`` (the start included)."""
    out = [boxes]
    for a in plan:
        state = _step(floor, player, boxes, a)
        if state is None:
            break
        player, boxes = state
        out.append(boxes)
    return out


def draw_text(rows, cols, walls, goals, boxes, player) -> str:
    lines = []
    for r in range(rows):
        chars = []
        for q in range(cols):
            s = (r, q)
            if s in walls:
                chars.append("#")
            elif s == player:
                chars.append("+" if s in goals else "@")
            elif s in boxes:
                chars.append("*" if s in goals else "$")
            else:
                chars.append("." if s in goals else " ")
        lines.append("".join(chars).rstrip())
    return "\n".join(lines)


@st.composite
def level_and_plan(draw, max_side: int = 7, max_len: int = 40):
    """(XSB text, plan as a list of tokens)."""
    rows, cols = draw(st.integers(3, max_side)), draw(st.integers(3, max_side))
    walls = set()
    for r in range(rows):
        for q in range(cols):
            if r in (0, rows - 1) or q in (0, cols - 1) or draw(st.integers(0, 5)) == 0:
                walls.add((r, q))
    walled_in = [
        s
        for s in sorted(walls)
        if all(
            (s[0] + dr, s[1] + dq) in walls or not (0 <= s[0] + dr < rows and 0 <= s[1] + dq < cols)
            for dr, dq in STEP.values()
        )
    ]
    fixed = (
        {walled_in[draw(st.integers(0, len(walled_in) - 1))]} if walled_in and draw(st.integers(0, 3)) == 0 else set()
    )
    floor = {(r, q) for r in range(rows) for q in range(cols)} - walls
    assume(len(floor) >= 2)
    ordered = sorted(floor)
    player = ordered[draw(st.integers(0, len(ordered) - 1))]
    room = sorted(_component(floor, player) - {player})
    assume(room)
    nboxes = draw(st.integers(1, min(4, len(room))))
    boxes = frozenset(draw(st.permutations(room))[:nboxes])
    if draw(st.booleans()):
        plan = _walk(draw, floor, player, boxes, max_len)
    else:
        plan = draw(st.lists(st.sampled_from("UDLRUDLRUDLRx"), max_size=max_len))
    if draw(st.integers(0, 3)) > 0:
        states = list(dict.fromkeys(_legal_states(floor, player, boxes, plan)))  # each box set once: pushed ones too
        goals = states[draw(st.integers(0, len(states) - 1))]
    else:
        goals = frozenset(draw(st.permutations(room + [player]))[:nboxes])
    if goals == boxes:  # a level solved at the start is refused: one goal moves under the player
        goals = (goals - {min(goals)}) | {player}
    return draw_text(rows, cols, walls - fixed, goals | fixed, boxes | fixed, player), plan
