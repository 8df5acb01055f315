"""Independent first dead move: the first move of an answer after which its level can no longer be solved.

Plain Python, sharing no code with the kernels, the solver or ``fastspe.domains.sokoban.dead`` (the verdict column it
re-derives): the room, goals and push distances are ``replay.SokobanRoom``'s own reading of the XSB text.

A state is solvable when some sequence of moves leaves every box on a goal. Only a push can change that (a walk is
undone by walking back), so the first dead move is a push, and what follows a dead state is dead. ``solvable``
decides one state by an exhaustive search over push states, (boxes, the region the player can walk to), best-first
by the boxes' summed push distances so that a solvable state is usually settled in a few steps; a push onto a
square from which no goal can be reached by pushes (absent from the room's push distances) is never made, which
cuts no solvable state. A search that passes ``max_states`` states is undecided (None): the answer's first dead
move is then unknown, never guessed, as the verdict column says ``-2`` where its own search stops.
"""

from __future__ import annotations

import heapq

from .replay import STEP

__all__ = ["DEAD_STATES", "first_dead_move", "solvable"]

DEAD_STATES = 100_000  # push states one solvability check may expand before it is undecided


def _region(room, player, boxes) -> set:
    """The cells the player on ``player`` can walk to without pushing any of ``boxes``."""
    seen, stack = {player}, [player]
    while stack:
        r, q = stack.pop()
        for dr, dq in STEP.values():
            n = (r + dr, q + dq)
            if n in room.floor and n not in boxes and n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def solvable(room, player, boxes: frozenset, max_states: int | None = None) -> bool | None:
    """Whether the level in ``room`` with the player on ``player`` and ``boxes`` can still be solved; None when the
    search expanded ``max_states`` (default ``DEAD_STATES``) states without deciding. Results are kept on the room,
    one per state and bound."""
    bound = DEAD_STATES if max_states is None else max_states
    cache = room.__dict__.setdefault("solvable_states", {})
    start_region = _region(room, player, boxes)
    key = (boxes, min(start_region), bound)
    if key not in cache:
        cache[key] = _search(room, boxes, start_region, bound)
    return cache[key]


def _search(room, boxes: frozenset, region: set, max_states: int) -> bool | None:
    if boxes <= room.goals:
        return True
    order = 0
    heap = [(room.h(boxes), order, boxes, region)]
    expanded = {(boxes, min(region))}
    while heap:
        _, _, boxes, region = heapq.heappop(heap)
        for box in boxes:
            for dr, dq in STEP.values():
                behind, ahead = (box[0] - dr, box[1] - dq), (box[0] + dr, box[1] + dq)
                if behind not in region or ahead not in room.pushes or ahead in boxes:
                    continue  # no room to push from, or a wall, a dead square or a box beyond
                moved = boxes - {box} | {ahead}
                if moved <= room.goals:
                    return True
                reach = _region(room, box, moved)
                key = (moved, min(reach))
                if key in expanded:
                    continue
                if len(expanded) >= max_states:
                    return None
                expanded.add(key)
                order += 1
                heapq.heappush(heap, (room.h(moved), order, moved, reach))
    return False


def first_dead_move(room, pushed: list, complete: bool, max_states: int | None = None) -> int | None:
    """The 0-based index of the first move after which the level is dead, from the (move index, player, boxes) after
    each push of an answer's legal prefix (``replay.played``): -1 when the answer completes or no push makes the
    level dead, None when a check was undecided (beyond ``max_states``)."""
    if complete or not pushed:
        return -1
    last = solvable(room, pushed[-1][1], pushed[-1][2], max_states)
    if last is not False:  # alive after its last push: alive after every push (dead is forever)
        return -1 if last else None
    for index, player, boxes in pushed:
        alive = solvable(room, player, boxes, max_states)
        if alive is None:
            return None
        if not alive:
            return index
    return None  # unreachable: the last push is dead
