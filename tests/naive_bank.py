"""Plain-Python twins of the bank kernels (RNG, BFS distances, h, certified walks, cell builds).

Written for clarity, but not naively: the walk keeps h incremental and uses a precomputed
neighbour table, so the benchmark ratio against the kernel is an honest one.
"""

from __future__ import annotations

from collections import deque

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB


def mix64(z: int) -> int:
    z &= MASK
    z = ((z ^ (z >> 30)) * M1) & MASK
    z = ((z ^ (z >> 27)) * M2) & MASK
    return z ^ (z >> 31)


def stream_key(seed: int, stream: int, index: int) -> int:
    k = mix64(seed + GAMMA)
    k = mix64(k ^ ((stream * GAMMA + M1) & MASK))
    return mix64(k ^ ((index * M2 + GAMMA) & MASK))


def random_u64(key: int, counter: int) -> int:
    return mix64(key + (counter + 1) * GAMMA)


def random_below(key: int, counter: int, n: int) -> int:
    return ((random_u64(key, counter) >> 32) * n) >> 32


def neighbours(rows: int, cols: int, blocks) -> list[list[int]]:
    """For each cell, the cell the blank enters with U, D, L, R (-1 off board, -2 a block)."""
    table = []
    for c in range(rows * cols):
        r, q = divmod(c, cols)
        row = []
        for dr, dq in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, qq = r + dr, q + dq
            if not (0 <= rr < rows and 0 <= qq < cols):
                row.append(-1)
            elif rr * cols + qq in blocks:
                row.append(-2)
            else:
                row.append(rr * cols + qq)
        table.append(row)
    return table


def distances(rows: int, cols: int, blocks) -> list[list[int]]:
    nbr = neighbours(rows, cols, blocks)
    n = rows * cols
    dist = [[-1] * n for _ in range(n)]
    for src in range(n):
        if src in blocks:
            continue
        dist[src][src] = 0
        queue = deque([src])
        while queue:
            c = queue.popleft()
            for t in nbr[c]:
                if t >= 0 and dist[src][t] < 0:
                    dist[src][t] = dist[src][c] + 1
                    queue.append(t)
    return dist


def goal_board(rows: int, cols: int, blocks) -> list[int]:
    free = [c for c in range(rows * cols) if c not in blocks]
    board = [-1] * (rows * cols)
    for tile, cell in enumerate(free[:-1], start=1):
        board[cell] = tile
    board[free[-1]] = 0
    return board


def h_of(board, goal, dist) -> int:
    goal_cell = {v: c for c, v in enumerate(goal) if v > 0}
    return sum(dist[goal_cell[v]][c] for c, v in enumerate(board) if v > 0)


class WalkTables:
    """Per-layout tables a walk needs, computed once."""

    def __init__(self, rows: int, cols: int, blocks):
        self.nbr = neighbours(rows, cols, set(blocks))
        self.dist = distances(rows, cols, set(blocks))
        self.goal = goal_board(rows, cols, set(blocks))
        self.goal_cell = [0] * (max(self.goal) + 1)
        for c, v in enumerate(self.goal):
            if v > 0:
                self.goal_cell[v] = c
        self.blank = self.goal.index(0)


def walk(tables: WalkTables, depth: int, key: int):
    """One certified-walk proposal: (board, path) or None when it gets stuck."""
    board = list(tables.goal)
    blank = tables.blank
    dist, nbr, goal_cell = tables.dist, tables.nbr, tables.goal_cell
    path = []
    for step in range(depth):
        options = []
        for d, t in enumerate(nbr[blank]):
            if t >= 0:
                g = goal_cell[board[t]]
                if dist[g][blank] - dist[g][t] == 1:
                    options.append(d)
        if not options:
            return None
        d = options[random_below(key, step, len(options))]
        t = nbr[blank][d]
        board[blank], board[t] = board[t], 0
        blank = t
        path.append(d)
    return board, path


def build_cell(rows, cols, blocks, depth, count, seed, stream, cap=200_000, taken=()):
    """Accepted (board, path, proposal_index) in proposal order, duplicates dropped."""
    tables = WalkTables(rows, cols, blocks)
    seen = {tuple(b) for b in taken}
    out = []
    index = 0
    while len(out) < count and index < cap:
        result = walk(tables, depth, stream_key(seed, stream, index))
        if result is not None and tuple(result[0]) not in seen:
            seen.add(tuple(result[0]))
            out.append((result[0], result[1], index))
        index += 1
    return out


def certificate(path) -> str:
    inverse = "DURL"  # the inverse of U, D, L, R
    return "".join(inverse[d] for d in reversed(path))
