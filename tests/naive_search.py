"""Plain-Python twins of the solver, written from the rules (no fastspe code): BFS over whole
state spaces, bidirectional BFS, IDA* with the graph-distance heuristic, plan replay and walks.

A state is a tuple of cell values (0 blank, -1 blocked); directions name the blank's move.
"""

from __future__ import annotations

import random
from collections import deque

STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def goal_state(rows, cols, blocks):
    free = [c for c in range(rows * cols) if c not in set(blocks)]
    state = [-1] * (rows * cols)
    for i, c in enumerate(free[:-1]):
        state[c] = i + 1
    state[free[-1]] = 0
    return tuple(state)


def neighbours(rows, cols, blocks):
    """{cell: [(direction, cell the blank enters)]} over free cells, in U, D, L, R order."""
    blocked = set(blocks)
    out = {}
    for c in range(rows * cols):
        r, q = divmod(c, cols)
        out[c] = []
        for name, (dr, dq) in STEPS.items():
            rr, qq = r + dr, q + dq
            if 0 <= rr < rows and 0 <= qq < cols and rr * cols + qq not in blocked:
                out[c].append((name, rr * cols + qq))
    return out


def successors(state, nbrs):
    blank = state.index(0)
    for name, target in nbrs[blank]:
        s = list(state)
        s[blank], s[target] = s[target], 0
        yield name, tuple(s)


def apply_plan(state, plan, nbrs):
    """The state after the blank moves of ``plan``; None at the first illegal move."""
    for move in plan:
        nxt = dict(successors(state, nbrs)).get(move)
        if nxt is None:
            return None
        state = nxt
    return state


def bfs_all(rows, cols, blocks):
    """{state: distance to the goal} over every state reachable from the goal."""
    nbrs = neighbours(rows, cols, blocks)
    goal = goal_state(rows, cols, blocks)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for _, t in successors(s, nbrs):
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist


def bidirectional_distance(start, rows, cols, blocks, limit=40):
    """Shortest plan length from ``start`` to the goal, meeting in the middle (None past ``limit``)."""
    nbrs = neighbours(rows, cols, blocks)
    goal = goal_state(rows, cols, blocks)
    if start == goal:
        return 0
    sides = [{start: 0}, {goal: 0}]
    frontiers = [[start], [goal]]
    depth = [0, 0]
    while depth[0] + depth[1] < limit:
        i = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        seen, other = sides[i], sides[1 - i]
        nxt, best = [], None
        for s in frontiers[i]:
            for _, t in successors(s, nbrs):
                if t in other:
                    total = depth[i] + 1 + other[t]
                    best = total if best is None else min(best, total)
                if t not in seen:
                    seen[t] = depth[i] + 1
                    nxt.append(t)
        if best is not None:
            return best
        frontiers[i] = nxt
        depth[i] += 1
    return None


def cell_distances(rows, cols, blocks):
    """{(a, b): free-cell graph distance}."""
    nbrs = neighbours(rows, cols, blocks)
    out = {}
    for src in nbrs:
        if src in set(blocks):
            continue
        out[(src, src)] = 0
        queue = deque([src])
        while queue:
            c = queue.popleft()
            for _, t in nbrs[c]:
                if (src, t) not in out:
                    out[(src, t)] = out[(src, c)] + 1
                    queue.append(t)
    return out


def graph_h(state, rows, cols, blocks, dist=None):
    dist = dist or cell_distances(rows, cols, blocks)
    goal = goal_state(rows, cols, blocks)
    where = {v: c for c, v in enumerate(goal)}
    return sum(dist[(c, where[v])] for c, v in enumerate(state) if v > 0)


def ida_star(start, rows, cols, blocks, max_nodes=10**7):
    """(length, plan, nodes): IDA* with the graph-distance h, U/D/L/R order, parent pruning only."""
    nbrs = neighbours(rows, cols, blocks)
    dist = cell_distances(rows, cols, blocks)
    goal = goal_state(rows, cols, blocks)
    where = {v: c for c, v in enumerate(goal)}

    def h(s):
        return sum(dist[(c, where[v])] for c, v in enumerate(s) if v > 0)

    nodes = 0
    plan = []

    def search(s, g, bound, last):
        nonlocal nodes
        best = None
        for name, t in successors(s, nbrs):
            if last and name == INVERSE[last]:
                continue
            nodes += 1
            if nodes > max_nodes:
                raise RuntimeError("node budget exceeded")
            f = g + 1 + h(t)
            if f > bound:
                best = f if best is None else min(best, f)
                continue
            plan.append(name)
            if t == goal:
                return True, None
            done, nb = search(t, g + 1, bound, name)
            if done:
                return True, None
            plan.pop()
            if nb is not None:
                best = nb if best is None else min(best, nb)
        return False, best

    bound = h(start)
    if start == goal:
        return 0, "", 0
    while True:
        done, nb = search(start, 0, bound, None)
        if done:
            return len(plan), "".join(plan), nodes
        bound = nb


def random_walk(rows, cols, blocks, length, rng: random.Random):
    """A state ``length`` random blank moves (no immediate reversal but out of dead ends) from the goal."""
    nbrs = neighbours(rows, cols, blocks)
    state, last = goal_state(rows, cols, blocks), None
    for _ in range(length):
        moves = list(successors(state, nbrs))
        options = [(n, t) for n, t in moves if not last or n != INVERSE[last]] or moves  # a dead end: go back
        last, state = rng.choice(options)
    return state
