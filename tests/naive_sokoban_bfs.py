"""A plain-Python twin of ``fastspe.domains.sokoban.kernels.search``: breadth-first search over (player, boxes) with no
pruning and no heuristic, layer by layer, keeping each state's fewest pushes within its layer.

``naive_solve(text)`` reads XSB itself (its own tiny parser) and returns (moves, pushes) of the move-optimal,
then push-optimal, solution, or None when there is none; past ``max_states`` states it raises.
``naive_solve_pushes(text)`` is the twin of the push-optimal objective (``kernels.push_search``): Dijkstra by
(pushes, moves).
"""

from __future__ import annotations

_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # U, D, L, R


def naive_parse(text: str):
    """(rows, cols, walls set, goals set, boxes frozenset, player) of an XSB level, cells as (r, c)."""
    lines = text.split("\n")
    walls, goals, boxes, player = set(), set(), set(), None
    cols = max(len(line) for line in lines)
    for r, line in enumerate(lines):
        for c, ch in enumerate(line.ljust(cols)):
            if ch == "#":
                walls.add((r, c))
            if ch in ".*+":
                goals.add((r, c))
            if ch in "$*":
                boxes.add((r, c))
            if ch in "@+":
                player = (r, c)
    return len(lines), cols, walls, goals, frozenset(boxes), player


def naive_solve(text: str, max_states: int = 2_000_000, stats: dict | None = None):
    """(moves, pushes) or None; ``stats["states"]`` receives the number of distinct states seen."""
    rows, cols, walls, goals, boxes, player = naive_parse(text)

    def free(cell):
        r, c = cell
        return 0 <= r < rows and 0 <= c < cols and cell not in walls

    start = (player, boxes)
    if boxes <= goals:
        return 0, 0
    seen = {start}
    layer = {start: 0}  # state -> fewest pushes at this depth
    depth = 0
    while layer:
        depth += 1
        nxt: dict = {}
        best_goal = None
        for (p, bx), pushes in layer.items():
            for dr, dc in _STEPS:
                t = (p[0] + dr, p[1] + dc)
                if not free(t):
                    continue
                push = 0
                nb = bx
                if t in bx:
                    beyond = (t[0] + dr, t[1] + dc)
                    if not free(beyond) or beyond in bx:
                        continue
                    nb = (bx - {t}) | {beyond}
                    push = 1
                state = (t, nb)
                if state in seen and state not in nxt:
                    continue
                total = pushes + push
                if nb <= goals:
                    best_goal = total if best_goal is None else min(best_goal, total)
                if state not in nxt or nxt[state] > total:
                    nxt[state] = total
                    seen.add(state)
        if stats is not None:
            stats["states"] = len(seen)
        if best_goal is not None:
            return depth, best_goal
        if len(seen) > max_states:
            raise RuntimeError(f"naive BFS: over {max_states} states")
        layer = nxt
    return None


def naive_solve_pushes(text: str, max_states: int = 2_000_000):
    """(moves, pushes) of the push-optimal, then move-optimal, solution, or None: Dijkstra over (player, boxes)
    states with the cost (pushes, moves) compared pushes first, no pruning and no heuristic."""
    import heapq

    rows, cols, walls, goals, boxes, player = naive_parse(text)

    def free(cell):
        r, c = cell
        return 0 <= r < rows and 0 <= c < cols and cell not in walls

    if boxes <= goals:
        return 0, 0
    start = (player, tuple(sorted(boxes)))
    best = {start: (0, 0)}
    heap = [(0, 0, start)]
    done = set()
    while heap:
        pushes, moves, state = heapq.heappop(heap)
        if state in done:
            continue
        done.add(state)
        p, bx = state
        if set(bx) <= goals:
            return moves, pushes
        if len(done) > max_states:
            raise RuntimeError(f"naive Dijkstra: over {max_states} states")
        for dr, dc in _STEPS:
            t = (p[0] + dr, p[1] + dc)
            if not free(t):
                continue
            nb, push = bx, 0
            if t in bx:
                beyond = (t[0] + dr, t[1] + dc)
                if not free(beyond) or beyond in bx:
                    continue
                nb, push = tuple(sorted((set(bx) - {t}) | {beyond})), 1
            nxt = (t, nb)
            cost = (pushes + push, moves + 1)
            if nxt not in best or best[nxt] > cost:
                best[nxt] = cost
                heapq.heappush(heap, (*cost, nxt))
    return None
