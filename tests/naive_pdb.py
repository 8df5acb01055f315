"""Plain-Python twins of the pattern-database heuristic, written from the rules (no fastspe code): a BFS
that fills one pattern's table, the table lookup (the documented placement rank), the mirrored board,
and an IDA* over max(Manhattan, direct sum, mirrored sum) that reports every iteration's node count.

Boards are tuples of cell values on an open ``rows x cols`` board, goal 1..T row-major, blank last.
"""

from __future__ import annotations

from collections import deque

STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}


def rank(pos, free):
    """Lexicographic rank of the partial permutation ``pos`` of ``free`` cells (kernels/pdb.py's formula)."""
    r = 0
    for i, p in enumerate(pos):
        r = r * (free - i) + p - sum(q < p for q in pos[:i])
    return r


def _cells_beside(c, rows, cols):
    r, q = divmod(c, cols)
    for dr, dq in STEPS.values():
        if 0 <= r + dr < rows and 0 <= q + dq < cols:
            yield (r + dr) * cols + q + dq


def pattern_table(rows, cols, tiles):
    """{placement tuple: fewest moves of the pattern's tiles} by 0-1 BFS over (placement, blank cell):
    a blank move into a non-pattern cell costs 0, a pattern tile's move costs 1."""
    cells = rows * cols
    goal = tuple(t - 1 for t in tiles)
    start = (goal, cells - 1)
    best = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        pos, blank = state
        d = best[state]
        for c in _cells_beside(blank, rows, cols):
            if c in pos:  # a pattern tile slides into the blank: cost 1
                nxt, cost = (tuple(blank if p == c else p for p in pos), c), 1
            else:
                nxt, cost = (pos, c), 0
            if best.get(nxt, 1 << 30) > d + cost:
                best[nxt] = d + cost
                (queue.appendleft if cost == 0 else queue.append)(nxt)
    out = {}
    for (pos, _), d in best.items():
        out[pos] = min(out.get(pos, 1 << 30), d)
    return out


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
