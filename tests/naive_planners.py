"""Plain-Python twins of ``fastspe.domains.sliding.kernels.planners`` (and of the RNG it draws from).

Written from the rules, sharing no code with the package: boards are lists, neighbours and
graph distances come from a BFS here, random numbers from a pure-int SplitMix64. The tests
compare these with the kernel move for move.
"""

from __future__ import annotations

from . import naive_bank
from .naive_bank import random_below, stream_key  # the one plain-Python RNG twin

LETTERS = "UDLR"
STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}
TRIAL_SLOTS = 1 << 20
PLANNER_STREAM = {"oracle": 0, "greedy": 1, "detour": 2, "noisy": 3, "random": 4}


# -- the grid -------------------------------------------------------------------------------------
class Grid:
    """A layout's plain-Python tables, from the bank twin's neighbour rule and BFS."""

    def __init__(self, rows: int, cols: int, blocks):
        self.rows, self.cols, self.blocks = rows, cols, set(blocks)
        self.cells = rows * cols
        self.nbr = naive_bank.neighbours(rows, cols, self.blocks)
        self.dist = naive_bank.distances(rows, cols, self.blocks)
        self.goal = naive_bank.goal_board(rows, cols, self.blocks)
        self.goal_cell = {v: c for c, v in enumerate(self.goal) if v > 0}

    def target(self, cell: int, letter: str):
        """The cell the blank enters, or None when the move leaves the board or hits a block."""
        t = self.nbr[cell][LETTERS.index(letter)]
        return t if t >= 0 else None

    def h(self, board) -> int:
        return naive_bank.h_of(board, self.goal, self.dist)


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
