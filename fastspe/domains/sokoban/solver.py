"""Certified optima for Sokoban levels: the exact move-optimal solver (``kernels.sokoban_search``) on ``Level``s.

``solve_level`` answers one level: the fewest moves (pushes included) and, among plans that short, the fewest
pushes, with one such plan; a level without a plan gets a ``SokobanUnsolved`` naming why (``kind``:
"dead" -- a box on a square from which no goal can be reached, or boxes that cannot reach distinct goals, or a
player who can reach no box -- "unsolvable" after every reachable state, or "node_limit"). ``solve_levels``
answers many in parallel, as arrays, for the bank builder.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from .level import DIRECTIONS, Level, parse_level
from ...errors import UserError, UserTypeError

__all__ = ["SokobanSolution", "SokobanUnsolved", "solve_level", "solve_levels", "solve_level_record",
           "search_arrays", "DEFAULT_NODE_LIMIT"]

DEFAULT_NODE_LIMIT = 20_000_000  # states stored: about 1 GB at the most
MAX_PLAN = 1000  # ``solve_levels``'s default bound in moves: plans of 10x10 levels with 1-4 boxes are far shorter
ANSWER_KEYS = ("length", "pushes", "moves", "nodes", "seconds", "error")
_NO_BOUND = 1 << 30


class SokobanUnsolved(UserError):
    """A level the solver found no plan for; ``kind`` is "dead", "unsolvable" or "node_limit"."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class SokobanSolution:
    """A move-optimal plan: ``length`` moves (the certified d*), ``pushes`` of them pushes (the fewest among plans
    of ``length`` moves), ``moves`` the plan as "U,D,L,R" letters, ``nodes`` states stored by the search."""

    length: int
    pushes: int
    moves: str
    nodes: int
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
    from .kernels.search import search

    tiny = parse_level("#####\n#@$.#\n#####")
    search(tiny.wall, tiny.goal, np.array(tiny.boxes, dtype=np.int64), tiny.player, tiny.rows, tiny.cols, 10,
           _NO_BOUND, True)


def solve_level(level, node_limit: int | None = None, breadth_first: bool = False) -> SokobanSolution:
    """The move-optimal plan of ``level`` (a ``Level`` or XSB text), or ``SokobanUnsolved`` saying why not.

    ``breadth_first`` searches in plain breadth-first order instead of A* (same answer, more states: a check)."""
    from .kernels.search import DEAD_START, FOUND, NO_PLAN, search

    level = _level(level)
    limit = _node_limit(node_limit)
    _search_loaded()
    start = time.perf_counter()
    status, length, pushes, plan, _, stored = search(level.wall, level.goal, np.array(level.boxes, dtype=np.int64),
                                                     level.player, level.rows, level.cols, limit, _NO_BOUND,
                                                     not breadth_first)
    seconds = time.perf_counter() - start
    if status == FOUND:
        return SokobanSolution(int(length), int(pushes), ",".join(DIRECTIONS[int(d)] for d in plan), int(stored),
                               seconds)
    if status == DEAD_START:
        raise SokobanUnsolved("the level is dead from the start: a box stands where no goal can be reached by "
                              "pushes, the boxes cannot reach distinct goals, or the player can reach no box", "dead")
    if status == NO_PLAN:
        raise SokobanUnsolved(f"the level has no solution: all {stored:,} reachable states were searched",
                              "unsolvable")
    raise SokobanUnsolved(f"the search stopped at the node limit ({limit:,} states) without a plan; raise the "
                          f"limit to go on", "node_limit")


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
        walls[i, :lv.cells] = lv.wall
        goals[i, :lv.cells] = lv.goal
        boxes[i, :len(lv.boxes)] = lv.boxes
        nboxes[i], players[i], rows[i], cols[i] = len(lv.boxes), lv.player, lv.rows, lv.cols
    return walls, goals, boxes, nboxes, players, rows, cols


def solve_levels(levels, node_limit: int | None = None, bound: int | None = None):
    """Solve ``Level``s in parallel, each within ``node_limit`` states and ``bound`` moves.

    Returns (status, lengths, pushes, stored) int64 (n,) and plans int8 (n, bound) padded with -1 (status codes of
    ``kernels.sokoban_search``: FOUND, NO_PLAN, DEAD_START, NODE_LIMIT, OVER_BOUND -- no plan of <= bound moves).
    """
    from .kernels.search import search_levels

    limit = _node_limit(node_limit)
    if bound is None:
        bound = MAX_PLAN
    status, lengths, pushes, _, stored, plans = search_levels(*search_arrays(levels), limit, int(bound))
    return status, lengths, pushes, stored, plans


def solve_level_record(record, node_limit: int | None = None) -> dict:
    """One JSONL line's answer: ``record`` (``id``, ``level`` XSB text) with ``length, pushes, moves, nodes,
    seconds`` added, or ``error`` when the level is invalid or has no plan. Other keys are kept; answer keys the
    record already holds are replaced."""
    if not isinstance(record, dict):
        return {"error": "a line must be a JSON object with id and level (XSB text)"}
    out = {k: v for k, v in record.items() if k not in ANSWER_KEYS}
    try:
        text = record.get("level")
        if not isinstance(text, str):
            raise UserError("level must be the XSB text of the level (a string)")
        sol = solve_level(parse_level(text), node_limit)
    except UserError as exc:
        out["error"] = str(exc)
        return out
    out.update(length=sol.length, pushes=sol.pushes, moves=sol.moves, nodes=sol.nodes, seconds=round(sol.seconds, 6))
    return out
