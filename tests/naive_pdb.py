"""Plain-Python twin of the pattern-database builds (kernels/pdb.py, kernels/pdb_sweep.py), written from
the rules (no fastspe code): a 0-1 BFS over (pattern tiles' cells, blank cell) from the goal, where a
blank move onto a non-pattern tile costs 0 and onto a pattern tile 1; a placement's value is the least
over blank cells (the others are indistinguishable tiles).
"""

from __future__ import annotations

from collections import deque

from .naive_search import goal_state, neighbours


def pattern_table(rows, cols, blocks, tiles):
    """{tuple of the tiles' cells (in ``tiles`` order): fewest pattern-tile moves to the goal}, over the
    placements reachable from the goal."""
    nbrs = neighbours(rows, cols, blocks)
    goal = goal_state(rows, cols, blocks)
    start = (tuple(goal.index(t) for t in tiles), goal.index(0))
    dist = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        cells, blank = state
        for _, target in nbrs[blank]:
            if target in cells:  # the pattern tile on target slides into the blank: cost 1
                moved = tuple(blank if c == target else c for c in cells)
                nxt, cost = (moved, target), 1
            else:
                nxt, cost = (cells, target), 0
            d = dist[state] + cost
            if d < dist.get(nxt, 1 << 30):
                dist[nxt] = d
                if cost:
                    queue.append(nxt)
                else:
                    queue.appendleft(nxt)
    table = {}
    for (cells, _), d in dist.items():
        table[cells] = min(d, table.get(cells, d))
    return table
