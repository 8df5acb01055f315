"""Plain-Python twins of ``fastspe.domains.sokoban.kernels.deadlocks``: whether a subset of the boxes alone can reach
goals (a breadth-first search over single moves, exact player cell, no dead squares), the deadlock table's pair
entries and the corral check, written from their definitions. Cells are (r, c); a room is (rows, cols, walls,
goals)."""

from __future__ import annotations

from collections import deque

_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # U, D, L, R


def _free(room, cell):
    rows, cols, walls, _ = room
    return 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in walls


def subset_solvable(room, boxes, starts, opened=frozenset(), max_states: int = 500_000) -> bool:
    """Whether the boxes ``boxes`` alone in ``room`` can all stand on goals, or the player step onto a cell of
    ``opened`` (after pushes onto live cells only: a box on a dead cell never reaches a goal, and the corral
    check's search does not push one there), the player starting on any cell of ``starts`` that holds no box."""
    goals = room[3]
    boxes = frozenset(boxes)
    if boxes <= goals:
        return True
    seen = {(p, boxes) for p in starts if p not in boxes}
    queue = deque(seen)
    live = live_cells(room) if opened else None
    while queue:
        p, bx = queue.popleft()
        for dr, dc in _STEPS:
            t = (p[0] + dr, p[1] + dc)
            if not _free(room, t):
                continue
            if t in opened and t not in bx:
                return True
            nb = bx
            if t in bx:
                beyond = (t[0] + dr, t[1] + dc)
                if not _free(room, beyond) or beyond in bx or (live is not None and beyond not in live):
                    continue
                nb = (bx - {t}) | {beyond}
                if nb <= goals:
                    return True
            if (t, nb) not in seen:
                if len(seen) > max_states:
                    raise RuntimeError(f"naive subset search: over {max_states} states")
                seen.add((t, nb))
                queue.append((t, nb))
    return False


def floor_cells(room):
    rows, cols, _, _ = room
    return [(r, c) for r in range(rows) for c in range(cols) if _free(room, (r, c))]


def pair_dead(room, a, b) -> bool:
    """The deadlock table's entry: boxes on a and b alone reach goals from no player cell."""
    return not subset_solvable(room, {a, b}, floor_cells(room))


def _region(room, start, blocked):
    seen, queue = {start}, deque([start])
    while queue:
        p = queue.popleft()
        for dr, dc in _STEPS:
            t = (p[0] + dr, p[1] + dc)
            if _free(room, t) and t not in blocked and t not in seen:
                seen.add(t)
                queue.append(t)
    return seen


def live_cells(room):
    """Cells from which a lone box reaches a goal by pushes in the empty room (a push from x to x + d needs the
    player on x - d): breadth-first back from the goals."""
    live, queue = set(room[3]), deque(room[3])
    while queue:
        y = queue.popleft()
        for dr, dc in _STEPS:
            x, p = (y[0] - dr, y[1] - dc), (y[0] - 2 * dr, y[1] - 2 * dc)
            if _free(room, x) and _free(room, p) and x not in live:
                live.add(x)
                queue.append(x)
    return live


def corral_dead(room, boxes, player, beyond) -> bool:
    """The corral check after a push onto ``beyond``: some free cell beside it lies in a region the player cannot
    reach, every push of a box bordering it that the player can make (to a live free cell) goes into it, and its
    bordering boxes, alone, reach goals from no push sequence starting at the player's cell, nor let the player
    into that region."""
    boxes = frozenset(boxes)
    reach = _region(room, player, boxes)
    for dr, dc in _STEPS:
        c = (beyond[0] + dr, beyond[1] + dc)
        if not _free(room, c) or c in boxes or c in reach:
            continue
        corral = _region(room, c, boxes)
        border = {x for x in boxes if any((x[0] + er, x[1] + ec) in corral for er, ec in _STEPS)}
        pushes = [
            (x[0] + dr, x[1] + dc)
            for x in border
            for dr, dc in _STEPS
            if (x[0] - dr, x[1] - dc) in reach
            and (x[0] + dr, x[1] + dc) in live_cells(room)
            and (x[0] + dr, x[1] + dc) not in boxes
        ]
        if not all(t in corral for t in pushes):  # not an I-corral: not tested
            continue
        if not subset_solvable(room, border, [player], frozenset(corral)):
            return True
    return False
