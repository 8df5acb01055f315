"""Plain-Python twins of ``fastspe.kernels.planners`` (and of the RNG it draws from).

Written from the rules, sharing no code with the package: boards are lists, neighbours and
graph distances come from a BFS here, random numbers from a pure-int SplitMix64. The tests
compare these with the kernel move for move.
"""

from __future__ import annotations

from collections import deque

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
M1 = 0xBF58476D1CE4E5B9
M2 = 0x94D049BB133111EB
LETTERS = "UDLR"
STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}
TRIAL_SLOTS = 1 << 20
PLANNER_STREAM = {"oracle": 0, "greedy": 1, "detour": 2, "noisy": 3, "random": 4}


# -- RNG: SplitMix64 finalizer, keyed by (seed, stream, index), counter-based ----------------------
def mix64(z: int) -> int:
    z &= MASK
    z = ((z ^ (z >> 30)) * M1) & MASK
    z = ((z ^ (z >> 27)) * M2) & MASK
    return z ^ (z >> 31)


def stream_key(seed: int, stream: int, index: int) -> int:
    k = mix64(seed + GAMMA)
    k = mix64(k ^ ((stream * GAMMA + M1) & MASK))
    return mix64(k ^ ((index * M2 + GAMMA) & MASK))


def random_below(key: int, counter: int, n: int) -> int:
    x = mix64(key + (counter + 1) * GAMMA) >> 32
    return (x * n) >> 32


# -- the grid -------------------------------------------------------------------------------------
class Grid:
    def __init__(self, rows: int, cols: int, blocks):
        self.rows, self.cols, self.blocks = rows, cols, set(blocks)
        self.cells = rows * cols
        self.dist = {c: self._bfs(c) for c in range(self.cells) if c not in self.blocks}
        free = [c for c in range(self.cells) if c not in self.blocks]
        self.goal = [-1] * self.cells
        for tile, c in enumerate(free[:-1], start=1):
            self.goal[c] = tile
        self.goal[free[-1]] = 0
        self.goal_cell = {v: c for c, v in enumerate(self.goal) if v > 0}

    def target(self, cell: int, letter: str):
        """The cell the blank enters, or None when the move leaves the board or hits a block."""
        r, c = divmod(cell, self.cols)
        dr, dc = STEP[letter]
        rr, cc = r + dr, c + dc
        if not (0 <= rr < self.rows and 0 <= cc < self.cols):
            return None
        t = rr * self.cols + cc
        return None if t in self.blocks else t

    def _bfs(self, src: int) -> dict:
        dist = {src: 0}
        queue = deque([src])
        while queue:
            c = queue.popleft()
            for letter in LETTERS:
                t = self.target(c, letter)
                if t is not None and t not in dist:
                    dist[t] = dist[c] + 1
                    queue.append(t)
        return dist

    def h(self, board) -> int:
        return sum(self.dist[self.goal_cell[v]][c] for c, v in enumerate(board) if v > 0)


def replay(grid: Grid, initial, moves: str):
    """(status, final board): 'illegal' at the first illegal move, else complete or legal_noncompletion."""
    board = list(initial)
    blank = board.index(0)
    for letter in moves:
        t = grid.target(blank, letter)
        if t is None:
            return "illegal", board
        board[blank], board[t] = board[t], 0
        blank = t
    return ("complete" if board == grid.goal else "legal_noncompletion"), board


# -- the planners ---------------------------------------------------------------------------------
def naive_plan(planner: str, grid: Grid, initial, certificate: str, board_key: int, trial: int, seed: int) -> str:
    """The planner's move letters for one (board, trial)."""
    key = stream_key(seed, PLANNER_STREAM[planner], board_key * TRIAL_SLOTS + trial)
    depth = len(certificate)
    if planner == "oracle":
        return certificate
    if planner == "random":
        return "".join(LETTERS[random_below(key, i, 4)] for i in range(depth))
    if planner == "noisy":
        out = []
        for i, letter in enumerate(certificate):
            if random_below(key, 2 * i, 20) == 0:
                letter = LETTERS[(LETTERS.index(letter) + 1 + random_below(key, 2 * i + 1, 3)) % 4]
            out.append(letter)
        return "".join(out)
    if planner == "greedy":
        return _greedy(grid, initial, key)
    if planner == "detour":
        return _detour(grid, initial, certificate, key)
    raise ValueError(planner)


def _greedy(grid: Grid, initial, key: int) -> str:
    board = list(initial)
    out = []
    while True:
        blank = board.index(0)
        better = []
        for letter in LETTERS:
            t = grid.target(blank, letter)
            if t is None:
                continue
            after = list(board)
            after[blank], after[t] = board[t], 0
            if grid.h(after) < grid.h(board):
                better.append((letter, after))
        if not better:
            return "".join(out)
        letter, board = better[random_below(key, len(out), len(better))]
        out.append(letter)


def _detour(grid: Grid, initial, certificate: str, key: int) -> str:
    depth = len(certificate)
    pairs = 1 + random_below(key, 0, max(1, depth // 4))
    at = [0] * (depth + 1)
    for p in range(pairs):
        at[random_below(key, 1 + p, depth + 1)] += 1
    counter = 1 + pairs
    blank = list(initial).index(0)
    out = []
    for i in range(depth + 1):
        for _ in range(at[i]):
            legal = [letter for letter in LETTERS if grid.target(blank, letter) is not None]
            letter = legal[random_below(key, counter, len(legal))]
            counter += 1
            out += [letter, INVERSE[letter]]
        if i < depth:
            out.append(certificate[i])
            blank = grid.target(blank, certificate[i])
    return "".join(out)
