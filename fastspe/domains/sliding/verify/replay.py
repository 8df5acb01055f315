"""Independent sliding-puzzle replay: a plan's verdict fields re-derived in plain Python from the rules alone.

It shares no code with ``fastspe.domains.sliding.kernels`` or ``fastspe.domains.sliding.layout``: each layout's goal
and free-cell graph distances come from its own breadth-first search over rows, cols and blocked cells, h from those,
and the replay stops at the first illegal action. U/D/L/R move the blank; a move off the board is ``boundary``, into a
block ``obstacle``, any other token ``invalid_action``. ``fastspe.verify.verdicts`` compares what it finds with every
verdict of a file.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from ...contract import Verifier

__all__ = ["Board", "bank_boards", "replay", "VERIFIER"]

STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
OFF, BLOCKED = -1, -2


class _Layout:
    """A layout's goal, graph distances and blank moves, from rows, cols and blocked cells alone."""

    def __init__(self, rows: int, cols: int, blocks: tuple[int, ...]):
        blocked = set(blocks)
        self.tag = "b" + ".".join(map(str, blocks)) if blocks else "bnone"
        free = [c for c in range(rows * cols) if c not in blocked]
        self.goal_of = {tile: cell for tile, cell in enumerate(free[:-1], start=1)}  # blank on the last free cell
        self.target = []
        for c in range(rows * cols):
            r, q = divmod(c, cols)
            out = {}
            for letter, (dr, dq) in STEP.items():
                rr, qq = r + dr, q + dq
                t = rr * cols + qq
                out[letter] = OFF if not (0 <= rr < rows and 0 <= qq < cols) else BLOCKED if t in blocked else t
            self.target.append(out)
        self.dist = [self._bfs(c, blocked) if c not in blocked else None for c in range(rows * cols)]
        self.weight = [1 << (7 * c) for c in range(rows * cols)]  # state key: sum of tile << 7*cell
        self.goal_key = sum(t * self.weight[c] for t, c in self.goal_of.items())

    def _bfs(self, src: int, blocked: set) -> list[int]:
        dist = [-1] * len(self.target)
        dist[src] = 0
        queue = deque([src])
        while queue:
            c = queue.popleft()
            for t in self.target[c].values():
                if t >= 0 and dist[t] < 0:
                    dist[t] = dist[c] + 1
                    queue.append(t)
        return dist

    def h(self, board) -> int:
        return sum(self.dist[c][self.goal_of[v]] for c, v in enumerate(board) if v > 0)

    def key(self, board) -> int:
        return sum(v * self.weight[c] for c, v in enumerate(board) if v > 0)


class Board(NamedTuple):
    initial: tuple
    layout: _Layout
    cohort: str
    k: int
    depth: int

    @property
    def stratum(self) -> int:
        return self.k

    @property
    def tag(self) -> str:
        return self.layout.tag


def replay(board: Board, moves: str) -> dict:
    """Status, first illegal action, h along the legal prefix, revisits and a midway goal of ``moves``."""
    lay, cells = board.layout, list(board.initial)
    blank, h, key = cells.index(0), lay.h(cells), lay.key(cells)
    seen, min_h, revisits, midway, kind, first_error = {key}, h, 0, False, "", -1
    for i, letter in enumerate(moves):
        midway = midway or key == lay.goal_key
        t = lay.target[blank].get(letter)
        if t is None or t < 0:
            kind, first_error = ("invalid_action" if t is None else "boundary" if t == OFF else "obstacle"), i
            break
        tile, goal = cells[t], lay.goal_of[cells[t]]
        h += lay.dist[blank][goal] - lay.dist[t][goal]
        key += tile * (lay.weight[blank] - lay.weight[t])
        cells[blank], cells[t], blank = tile, 0, t
        revisits += key in seen
        seen.add(key)
        min_h = min(min_h, h)
    status = "illegal" if kind else "complete" if key == lay.goal_key else "legal_noncompletion"
    return {
        "status": status,
        "error_kind": kind,
        "first_error": first_error,
        "final_h": h,
        "min_h": min_h,
        "revisits": revisits,
        "goal_midway": midway,
    }


def bank_boards(bank) -> dict[str, Board]:
    """A bank's boards (an Arrow table or a DataFrame) keyed by board_id, layouts re-derived once each."""
    names = ("board_id", "initial", "rows", "cols", "blocks", "cohort", "k", "depth")
    columns = [bank.column(c).to_pylist() if hasattr(bank, "schema") else list(bank[c]) for c in names]
    layouts: dict[tuple, _Layout] = {}
    boards = {}
    for bid, init, rows, cols, blocks, cohort, k, depth in zip(*columns):
        shape = (int(rows), int(cols), tuple(sorted(int(b) for b in blocks)))
        lay = layouts.get(shape) or layouts.setdefault(shape, _Layout(*shape))
        boards[str(bid)] = Board(tuple(int(v) for v in init), lay, str(cohort), int(k), int(depth))
    return boards


VERIFIER = Verifier(bank_boards, replay)
