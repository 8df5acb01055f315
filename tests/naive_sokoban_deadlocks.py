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


def subset_solvable(room, boxes, starts, max_states: int = 500_000) -> bool:
    """Whether the boxes ``boxes`` alone in ``room`` can all stand on goals, the player starting on any cell of
    ``starts`` that holds no box."""
    goals = room[3]
    boxes = frozenset(boxes)
    if boxes <= goals:
        return True
    seen = {(p, boxes) for p in starts if p not in boxes}
    queue = deque(seen)
    while queue:
        p, bx = queue.popleft()
        for dr, dc in _STEPS:
            t = (p[0] + dr, p[1] + dc)
            if not _free(room, t):
                continue
            nb = bx
            if t in bx:
                beyond = (t[0] + dr, t[1] + dc)
                if not _free(room, beyond) or beyond in bx:
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


def corral_dead(room, boxes, player, beyond) -> bool:
    """The corral check after a push onto ``beyond``: some free cell beside it lies in a region the player cannot
    reach whose bordering boxes, alone, reach goals from no push sequence starting at the player's cell."""
    boxes = frozenset(boxes)
    reach = _region(room, player, boxes)
    for dr, dc in _STEPS:
        c = (beyond[0] + dr, beyond[1] + dc)
        if not _free(room, c) or c in boxes or c in reach:
            continue
        corral = _region(room, c, boxes)
        border = {x for x in boxes if any((x[0] + er, x[1] + ec) in corral for er, ec in _STEPS)}
        if not subset_solvable(room, border, [player]):
            return True
    return False
