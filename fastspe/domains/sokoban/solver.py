"""Certified optima for Sokoban levels: the exact solvers (``kernels.push_search``, ``kernels.search``) on ``Level``s.

``solve_level`` answers one level (up to 32 x 32 and 16 boxes) for one of two objectives, with one optimal plan:

- ``"moves"``: the fewest moves (pushes included) and, among plans that short, the fewest pushes;
- ``"pushes"``: the fewest pushes and, among plans with that few, the fewest moves.

A level without a plan gets a ``SokobanUnsolved`` naming why (``kind``: "dead" -- a box on a square from which no
goal can be reached, boxes that cannot reach distinct goals, or a frozen box off its goal at the start --
"unsolvable" after every reachable state, or "node_limit" when the search stored ``node_limit`` states, which
bounds its memory: about 100 bytes a state). ``is_solvable`` answers only whether a plan exists (a cheaper search
over pushes, the player's position normalized to its region). ``solve_levels`` answers many small levels (10 x 10,
1-4 boxes) in parallel, move-optimal, as arrays, for the bank builder.
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .level import DIRECTIONS, Level, parse_level
from ...errors import UserError, UserTypeError

__all__ = [
    "SokobanSolution",
    "SokobanUnsolved",
    "SearchProgress",
    "solve_level",
    "is_solvable",
    "solve_levels",
    "solve_level_record",
    "search_arrays",
    "DEFAULT_NODE_LIMIT",
    "OBJECTIVES",
]

DEFAULT_NODE_LIMIT = 20_000_000  # states stored: about 2 GB at the most (16 boxes), well under 4 GB
OBJECTIVES = ("moves", "pushes")
PROGRESS_SECONDS = 0.5  # between calls of a solve's progress callback
MAX_PLAN = 1000  # ``solve_levels``'s default bound in moves: plans of 10x10 levels with 1-4 boxes are far shorter
ANSWER_KEYS = ("length", "pushes", "moves", "objective", "nodes", "seconds", "error")
_NO_BOUND = 1 << 30


class SokobanUnsolved(UserError):
    """A level the solver found no plan for; ``kind`` is "dead", "unsolvable" or "node_limit"."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class SokobanSolution:
    """An optimal plan: ``length`` moves, ``pushes`` of them pushes, ``moves`` the plan as "U,D,L,R" letters,
    ``nodes`` states stored by the search. ``objective`` "moves": ``length`` is the fewest moves (d*) and
    ``pushes`` the fewest among plans that short; "pushes": ``pushes`` is the fewest pushes and ``length`` the
    fewest moves among plans with that few."""

    length: int
    pushes: int
    moves: str
    nodes: int
    seconds: float
    objective: str = "moves"


@dataclass(frozen=True)
class SearchProgress:
    """Where a long solve stands: states ``expanded`` and ``stored`` so far, ``bound`` the least cost (moves or
    pushes, by the objective) any plan not yet ruled out can have, ``seconds`` since the search began."""

    expanded: int
    stored: int
    bound: int
    seconds: float


def _node_limit(node_limit) -> int:
    if node_limit is None:
        return DEFAULT_NODE_LIMIT
    if isinstance(node_limit, bool) or not isinstance(node_limit, (int, np.integer)) or node_limit < 1:
        raise UserError(f"the node limit must be a whole number >= 1, got {node_limit!r}")
    return int(node_limit)


def _level(level) -> Level:
    if isinstance(level, Level):
        return level
    if isinstance(level, str):
        return parse_level(level)
    raise UserTypeError(f"a level is a Level or XSB text, got {type(level).__name__}")


@functools.cache
def _search_loaded() -> None:
    """Load (or compile) the search kernel once, on a one-push level, so ``seconds`` times searches alone."""
    from .kernels.push_search import MOVES, PUSHES, SOLVABLE, push_search

    tiny = parse_level("#####\n#@$.#\n#####")
    for objective in (MOVES, PUSHES, SOLVABLE):
        push_search(
            tiny.wall,
            tiny.goal,
            np.array(tiny.boxes, dtype=np.int64),
            tiny.player,
            tiny.rows,
            tiny.cols,
            10,
            objective,
            True,
            True,
            np.zeros(4, dtype=np.int64),
        )


def _objective(objective) -> int:
    from .kernels.push_search import MOVES, PUSHES

    if objective == "moves":
        return MOVES
    if objective == "pushes":
        return PUSHES
    raise UserError(f"the objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")


def _search(level: Level, limit: int, code: int, heuristic: bool, freeze: bool, progress):
    """The push search's outputs on ``level``; with ``progress``, the kernel runs in a thread (it holds no GIL)
    and ``progress(SearchProgress)`` is called from this one every ``PROGRESS_SECONDS``."""
    from .kernels.push_search import push_search

    _search_loaded()
    board = np.zeros(4, dtype=np.int64)
    args = (
        level.wall,
        level.goal,
        np.array(level.boxes, dtype=np.int64),
        level.player,
        level.rows,
        level.cols,
        limit,
        code,
        heuristic,
        freeze,
        board,
    )
    if progress is None:
        return push_search(*args)
    out: list = []
    start = time.perf_counter()
    worker = threading.Thread(target=lambda: out.append(push_search(*args)), daemon=True)
    worker.start()
    while True:
        worker.join(PROGRESS_SECONDS)
        if not worker.is_alive():
            break
        progress(SearchProgress(int(board[0]), int(board[1]), int(board[2]), time.perf_counter() - start))
    if not out:  # the kernel raised (memory): the thread printed it
        raise RuntimeError("the Sokoban search stopped without an answer")
    return out[0]


def _unsolved(status, stored: int, limit: int) -> SokobanUnsolved:
    from .kernels.push_search import DEAD_START, NO_PLAN

    if status == DEAD_START:
        return SokobanUnsolved(
            "the level is dead from the start: a box stands where no goal can be reached by "
            "pushes, the boxes cannot reach distinct goals, or a box off its goal is frozen",
            "dead",
        )
    if status == NO_PLAN:
        return SokobanUnsolved(
            f"the level has no solution: all {stored:,} reachable states were searched", "unsolvable"
        )
    return SokobanUnsolved(
        f"the search stopped at the node limit ({limit:,} states) without a plan; raise the limit to go on",
        "node_limit",
    )


def solve_level(
    level,
    node_limit: int | None = None,
    objective: str = "moves",
    progress: Callable[[SearchProgress], None] | None = None,
    breadth_first: bool = False,
    prune: bool = True,
) -> SokobanSolution:
    """The optimal plan of ``level`` (a ``Level`` or XSB text) for ``objective`` ("moves" or "pushes", see the
    module docstring), or ``SokobanUnsolved`` saying why not; at most ``node_limit`` states stored.

    ``progress(SearchProgress)`` is called about twice a second while the search runs. ``breadth_first`` turns
    the heuristic off (Dijkstra order: same answer, more states) and ``prune=False`` the freeze-deadlock pruning
    (same answer): both are checks. The plan is replayed by the rules before it is returned."""
    from .kernels.push_search import FOUND

    level = _level(level)
    limit = _node_limit(node_limit)
    code = _objective(objective)
    _search_loaded()  # before the clock starts: ``seconds`` times the search, not a first compile
    start = time.perf_counter()
    status, length, pushes, plan, _, stored = _search(level, limit, code, not breadth_first, prune, progress)
    seconds = time.perf_counter() - start
    if status != FOUND:
        raise _unsolved(status, int(stored), limit)
    moves = ",".join(DIRECTIONS[int(d)] for d in plan)
    _check_plan(level, plan, int(pushes))
    return SokobanSolution(int(length), int(pushes), moves, int(stored), seconds, objective)


def _check_plan(level: Level, plan, pushes: int) -> None:
    """The plan replays legally to the goal with ``pushes`` pushes (a guard on the kernel, never expected)."""
    player, boxes, pushed = level.player, frozenset(level.boxes), 0
    for d in plan:
        player, boxes, moved, error = level.step(player, boxes, int(d))
        if error:
            raise RuntimeError(f"the solver's plan makes an illegal move ({error}):\n{level.text}")
        pushed += moved >= 0
    if pushed != pushes or not all(level.goal[b] for b in boxes):
        raise RuntimeError(f"the solver's plan does not solve the level as it claims:\n{level.text}")


def is_solvable(level, node_limit: int | None = None) -> bool:
    """Whether ``level`` (a ``Level`` or XSB text; any player and box cells) has a plan at all: exact, by a search
    over pushes with the player normalized to its region and no optimality; a dead start is False.
    ``SokobanUnsolved`` (kind "node_limit") when the search stores ``node_limit`` states without an answer."""
    from .kernels.push_search import DEAD_START, FOUND, NO_PLAN, SOLVABLE

    level = _level(level)
    limit = _node_limit(node_limit)
    status, _, _, _, _, stored = _search(level, limit, SOLVABLE, True, True, None)
    if status == FOUND:
        return True
    if status in (DEAD_START, NO_PLAN):
        return False
    raise _unsolved(status, int(stored), limit)


def search_arrays(levels):
    """The batched kernel's level arrays (walls, goals, boxes, nboxes, players, rows, cols) of ``Level``s."""
    from .kernels.search import MAX_BOXES, MAX_CELLS

    n = len(levels)
    walls = np.ones((n, MAX_CELLS), dtype=np.bool_)
    goals = np.zeros((n, MAX_CELLS), dtype=np.bool_)
    boxes = np.zeros((n, MAX_BOXES), dtype=np.int64)
    nboxes = np.zeros(n, dtype=np.int64)
    players = np.zeros(n, dtype=np.int64)
    rows = np.zeros(n, dtype=np.int64)
    cols = np.zeros(n, dtype=np.int64)
    for i, lv in enumerate(levels):
        walls[i, : lv.cells] = lv.wall
        goals[i, : lv.cells] = lv.goal
        boxes[i, : len(lv.boxes)] = lv.boxes
        nboxes[i], players[i], rows[i], cols[i] = len(lv.boxes), lv.player, lv.rows, lv.cols
    return walls, goals, boxes, nboxes, players, rows, cols


def solve_levels(levels, node_limit: int | None = None, bound: int | None = None):
    """Solve ``Level``s in parallel, each within ``node_limit`` states and ``bound`` moves.

    Returns (status, lengths, pushes, stored) int64 (n,) and plans int8 (n, bound) padded with -1 (status codes of
    ``kernels.sokoban_search``: FOUND, NO_PLAN, DEAD_START, NODE_LIMIT, OVER_BOUND -- no plan of <= bound moves).
    """
    from .kernels.search import MAX_BOXES, MAX_CELLS, search_levels

    big = next((lv for lv in levels if lv.cells > MAX_CELLS or len(lv.boxes) > MAX_BOXES), None)
    if big is not None:  # the batched move-level kernel packs a state in one word
        raise UserError(
            f"solve_levels takes levels of at most {MAX_CELLS} cells and {MAX_BOXES} boxes; this one "
            f"is {big.size} with {len(big.boxes)} (solve it with solve_level):\n{big.text}"
        )
    limit = _node_limit(node_limit)
    if bound is None:
        bound = MAX_PLAN
    status, lengths, pushes, _, stored, plans = search_levels(*search_arrays(levels), limit, int(bound))
    return status, lengths, pushes, stored, plans


def solve_level_record(record, node_limit: int | None = None, objective: str = "moves") -> dict:
    """One JSONL line's answer: ``record`` (``id``, ``level`` XSB text) with ``length, pushes, moves, objective, nodes,
    seconds`` added, or ``error`` when the level is invalid or has no plan. Other keys are kept; answer keys the
    record already holds are replaced."""
    if not isinstance(record, dict):
        return {"error": "a line must be a JSON object with id and level (XSB text)"}
    out = {k: v for k, v in record.items() if k not in ANSWER_KEYS}
    try:
        text = record.get("level")
        if not isinstance(text, str):
            raise UserError("level must be the XSB text of the level (a string)")
        sol = solve_level(parse_level(text), node_limit, objective)
    except UserError as exc:
        out["error"] = str(exc)
        return out
    out.update(
        length=sol.length,
        pushes=sol.pushes,
        moves=sol.moves,
        objective=sol.objective,
        nodes=sol.nodes,
        seconds=round(sol.seconds, 6),
    )
    return out
