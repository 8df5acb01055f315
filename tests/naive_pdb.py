"""Plain-Python twins of the pattern-database heuristic, written from the rules (no fastspe code): a 0-1 BFS
that fills one pattern's table (the twin of kernels/pdb.py and kernels/pdb_sweep.py, blocked boards too),
the table lookup (the documented placement rank), the mirrored board, and an IDA* over max(Manhattan, direct sum, mirrored sum) that reports every iteration's node count.

Boards are tuples of cell values on an open ``rows x cols`` board, goal 1..T row-major, blank last.
"""

from __future__ import annotations

from collections import deque

from .naive_search import goal_state, neighbours

STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def rank(pos, free):
    """Lexicographic rank of the partial permutation ``pos`` of ``free`` cells (kernels/pdb.py's formula)."""
    r = 0
    for i, p in enumerate(pos):
        r = r * (free - i) + p - sum(q < p for q in pos[:i])
    return r


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


def mirror_board(board, side):
    """The board reflected about its main diagonal, tiles relabelled so the goal maps onto itself."""
    image = [(c % side) * side + c // side for c in range(side * side)]
    out = [0] * len(board)
    for c, v in enumerate(board):
        out[image[c]] = 0 if v == 0 else image[v - 1] + 1  # tile v's goal cell is v - 1
    return tuple(out)


class Heuristic:
    """h = max(Manhattan, sum of the partition's table values, the same sum on the mirrored board)."""

    def __init__(self, side, partition, tables):
        self.side, self.partition, self.tables = side, partition, tables

    def pdb_sum(self, board):
        where = {v: c for c, v in enumerate(board)}
        free = self.side * self.side
        return sum(int(t[rank([where[v] for v in g], free)]) for g, t in zip(self.partition, self.tables))

    def manhattan(self, board):
        s = self.side
        return sum(abs(c // s - (v - 1) // s) + abs(c % s - (v - 1) % s) for c, v in enumerate(board) if v)

    def parts(self, board):
        return self.manhattan(board), self.pdb_sum(board), self.pdb_sum(mirror_board(board, self.side))

    def __call__(self, board):
        return max(self.parts(board))


def ida_star(board, h, side, stop_at_first=True):
    """(length, plan, [(bound, nodes generated in that iteration)]): children tried in U, D, L, R order,
    only the move undoing the previous one pruned, every generated child counted (also those over the
    bound); ``stop_at_first``: the last iteration ends at its first goal, else it is searched to the end."""
    goal = tuple(list(range(1, side * side)) + [0])
    iterations = []
    plan = []

    def search(s, blank, g, bound, last):
        r, q = divmod(blank, side)
        found, least = False, 1 << 30
        for name, (dr, dq) in STEPS.items():
            if last and name == INVERSE[last]:
                continue
            if not (0 <= r + dr < side and 0 <= q + dq < side):
                continue
            t = (r + dr) * side + q + dq
            child = list(s)
            child[blank], child[t] = child[t], 0
            child = tuple(child)
            iterations[-1][1] += 1
            f = g + 1 + h(child)
            if f > bound:
                least = min(least, f)
                continue
            plan.append(name)
            if child == goal:
                if stop_at_first:
                    return True, least
                found = True
                plan.pop()
                continue
            done, nb = search(child, t, g + 1, bound, name)
            if done and stop_at_first:
                return True, nb
            found = found or done
            plan.pop()
            least = min(least, nb)
        return found, least

    bound = h(board)
    while True:
        iterations.append([bound, 0])
        done, least = search(board, board.index(0), 0, bound, None)
        if done:
            return bound, "".join(plan), [tuple(i) for i in iterations]
        bound = least
