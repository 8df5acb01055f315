"""Exact optimal solver for sliding-puzzle boards of any solvable layout (IDA*, kernels/search.py).

``solve`` answers one board: first by a bounded serial search with graph distances alone
(``kernels/graph_search.py``, quick to compile, no tables), and only if that gives up within
FIRST_TRY_NODES nodes with the pattern tables (a hard board is split over the subtrees of the first moves, in
parallel); both are exact. ``solve_boards`` answers many boards of one layout in parallel. Answers report the
paper's h(s) (the free-cell graph-distance sum) as ``h`` and the search's bound as ``h_search``: the maximum of
h(s) and, on layouts with 10..15 tiles, additive disjoint pattern databases
(``fastspe.domains.sliding.planners.pdb``), built once per layout into the user's cache folder.
Linear conflicts are not used: their usual admissibility argument assumes the open grid.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ....errors import FastspeError, UserError
from ..layout import DIRECTIONS, Layout
from ..kernels.pdb import UNSEEN
from .pdb import (
    PatternDatabases,
    board_rank,
    empty_databases,
    free_neighbours,
    parity_decides,
    pattern_databases,
    reachable_table,
    uses_pdb,
)
from .pdb_packed import strong_databases, strong_partition, strong_present

SPLIT_DEPTH = 3  # subtrees at this depth are searched in parallel by `solve`
FIRST_TRY_NODES = 250_000  # the graph-distance try before any table: milliseconds, and d* ~30 on the open 4x4
_NO_LIMIT = 2**62


class UnsolvableBoard(UserError):
    """A board whose tiles cannot reach the layout's goal (permutation parity)."""


class SearchLimit(FastspeError, RuntimeError):
    """The search stopped at its node budget (``max_nodes``) or at the longest plan it can hold."""


@dataclass(frozen=True)
class Solution:
    """One board's optimal plan: ``length`` moves ``moves`` (U/D/L/R); ``h`` the paper's h(s), the free-cell
    graph-distance sum (so ``length - h`` is the heuristic retreat); ``h_search`` the bound the search
    started from (``heuristic``: the larger of h(s) and the pattern-database sum); ``nodes`` generated and
    ``seconds`` spent by the search that answered (compiling its kernel not counted). ``tables``: how that
    search got its pattern tables, ``not needed`` (graph distances alone), ``in memory`` (this process had
    them), ``loaded`` (from the cache folder) or ``built``, in ``tables_seconds``; ``first_try_nodes`` and
    ``first_try_seconds``: the graph-distance try that gave up before the tables were used (0 if none)."""

    length: int
    moves: str
    h: int
    h_search: int
    nodes: int
    seconds: float
    heuristic: str
    tables: str = "not needed"
    tables_seconds: float = 0.0
    first_try_nodes: int = 0
    first_try_seconds: float = 0.0


@dataclass(frozen=True)
class SolvedBoards:
    """Per board: optimal ``lengths``, ``moves`` (U/D/L/R strings), ``nodes`` generated, the paper's ``h``
    (graph-distance sum) and the search's initial bound ``h_search`` (as in ``Solution``)."""

    lengths: np.ndarray
    moves: list
    nodes: np.ndarray
    h: np.ndarray
    h_search: np.ndarray
    seconds: float
    heuristic: str


@dataclass(frozen=True)
class _Tables:
    layout: Layout
    databases: PatternDatabases
    tile_dist: np.ndarray
    free_idx: np.ndarray
    nfree: int

    @property
    def name(self) -> str:
        return f"{self.databases.name}+graph-distance" if self.databases.partition else "graph-distance"

    def args(self):
        db = self.databases
        return (
            self.layout.moves,
            self.tile_dist,
            self.free_idx,
            db.group_of,
            db.group_tiles,
            db.group_size,
            db.group_side,
            db.offsets,
            db.data,
            self.nfree,
        )

    def h(self, board) -> int:
        """The search's h of a packed board: max(graph-distance sum, PDB sum)."""
        from ..kernels.search import heuristic

        db = self.databases
        return int(
            heuristic(
                np.asarray(board, dtype=np.int8),
                self.tile_dist,
                self.free_idx,
                db.group_tiles,
                db.group_size,
                db.group_side,
                db.offsets,
                db.data,
                self.nfree,
            )
        )


def search_tables(layout: Layout, databases: PatternDatabases) -> _Tables:
    """The kernel's inputs for ``layout`` with ``databases`` (``empty_databases`` for graph distances only)."""
    goal_cell = layout.goal_cell.astype(np.int64)
    tile_dist = layout.distances[:, goal_cell].T.astype(np.int16).copy()
    tile_dist[0] = 0
    tile_dist[tile_dist < 0] = 0  # blocked cells: never looked up
    _, index = free_neighbours(layout)
    mirror = databases.mirror if databases.mirror is not None else np.arange(layout.cells)
    free_idx = np.stack([index, index[mirror]]).astype(np.int16)  # row 1: free index of the mirror image
    return _Tables(layout, databases, tile_dist, free_idx, int((~layout.blocked).sum()))


_TABLES: dict = {}
HEURISTICS = ("auto", "7-8", "layout")


def _strong(layout: Layout, pdb: bool, heuristic: str) -> bool:
    """Whether the search uses the 7-8 tables: ``auto`` when they are in the cache folder (the open 4x4
    board), ``7-8`` always (built first if missing), ``layout`` never (the layout's groups of <= 6 tiles)."""
    if heuristic not in HEURISTICS:
        raise UserError(f"heuristic must be one of {', '.join(HEURISTICS)}, got {heuristic!r}")
    if heuristic == "7-8":
        if strong_partition(layout) is None:
            raise UserError(
                f"heuristic '7-8' is for the open 4x4 board, not {layout.rows}x{layout.cols}"
                + (f" with blocks {list(layout.blocks)}" if layout.blocks else "")
            )
        if not pdb:
            raise UserError("heuristic '7-8' needs the pattern databases (use_pdb=False turns them off)")
        return True
    return pdb and heuristic == "auto" and strong_present(layout)


def _tables(layout: Layout, use_pdb: bool | None, progress, heuristic: str = "auto") -> _Tables:
    return _timed_tables(layout, use_pdb, progress, heuristic)[0]


def _timed_tables(layout: Layout, use_pdb: bool | None, progress, heuristic: str) -> tuple[_Tables, str, float]:
    """The search's tables, how they came (``Solution.tables``) and the seconds that took."""
    pdb = uses_pdb(layout) if use_pdb is None else bool(use_pdb)
    strong = _strong(layout, pdb, heuristic)
    key = (layout, pdb, strong)
    if key in _TABLES:
        return _TABLES[key], "in memory" if pdb else "not needed", 0.0
    built = []

    def step(done: int, total: int) -> None:  # called only while a table is built
        built.append(True)
        if progress is not None:
            progress(done, total)

    start = time.perf_counter()
    if strong:
        databases = strong_databases(layout, step)
    else:
        databases = pattern_databases(layout, progress=step) if pdb else empty_databases(layout)
    _TABLES[key] = search_tables(layout, databases)
    how = "not needed" if not pdb else "built" if built else "loaded"
    return _TABLES[key], how, time.perf_counter() - start


def _layout_of(board, rows: int, cols: int, blocks) -> Layout:
    if blocks is None or (isinstance(blocks, (list, tuple, np.ndarray)) and len(blocks) == 0):
        blocks = [i for i, v in enumerate(board) if v == -1]  # inferred from the board
    # anything but a sequence goes to Layout as it is, which says what is wrong with it
    return Layout(rows, cols, tuple(blocks) if isinstance(blocks, (list, tuple, np.ndarray)) else blocks)


_REACHABLE: dict = {}


def _reachable(layout: Layout, progress) -> np.ndarray | None:
    """The exact table of a small layout where parity does not decide solvability, else None."""
    if parity_decides(layout):
        return None
    if layout not in _REACHABLE:
        _REACHABLE[layout] = reachable_table(layout, progress)
    return _REACHABLE[layout]


def _check(layout: Layout, board, what: str, progress=None) -> np.ndarray:
    """The packed board, or UnsolvableBoard / ValueError before any search."""
    try:
        packed = layout.validate_board(board, what)
    except ValueError as exc:
        if "unsolvable" in str(exc):
            raise UnsolvableBoard(str(exc)) from None
        raise
    table = _reachable(layout, progress)  # dead ends, bridges or a ring: parity is not enough
    if table is not None:
        if table[board_rank(layout, packed)] == UNSEEN:
            raise UnsolvableBoard(f"{what} is unsolvable: its tiles cannot pass each other on this layout")
    return packed


def _max_nodes(max_nodes) -> int:
    if max_nodes is None:
        return _NO_LIMIT
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer)) or max_nodes < 1:
        raise UserError(f"max_nodes must be a whole number >= 1, got {max_nodes!r}")
    return int(max_nodes)


UNDECIDED_MAX_NODES = 2_000_000_000  # default budget where neither parity nor an exact table decides solvability


def _undecided_checks(layout: Layout, tables: _Tables, packed_boards, limit: int, explicit: bool) -> int:
    """On layouts where parity does not decide solvability and no exact table exists (dead ends or cut
    cells with more than MAX_EXACT_TILES tiles): refuse boards whose pattern placement the tables never
    reach (a necessary condition), and cap the search so an unsolvable board cannot run forever."""
    if parity_decides(layout) or _reachable(layout, None) is not None:
        return limit
    for i, board in enumerate(packed_boards):
        if tables.databases.partition and tables.h(board) >= UNSEEN:
            what = "board" if len(packed_boards) == 1 else f"board {i}"
            raise UnsolvableBoard(f"{what} is unsolvable: its tiles cannot pass each other on this layout")
    return limit if explicit else UNDECIDED_MAX_NODES


def _raise_for(status: int, nodes: int, what: str) -> None:
    from ..kernels.search import MAX_DEPTH, NO_PLAN, OVER_BUDGET, TOO_DEEP

    if status == OVER_BUDGET:
        raise SearchLimit(
            f"{what}: no plan found within max_nodes (searched {nodes:,} nodes); on layouts with "
            f"dead ends or cut cells the board may be unsolvable"
        )
    if status == TOO_DEEP:
        raise SearchLimit(f"{what}: optimal plan is longer than {MAX_DEPTH - 1} moves")
    if status == NO_PLAN:
        raise UnsolvableBoard(f"{what}: no plan reaches the goal")


def _plan(codes) -> str:
    return "".join(DIRECTIONS[int(c)] for c in codes)


GOALS = ("blank-last", "blank-first")
_TURNED_MOVES = str.maketrans("UDLR", "DURL")  # the blank's moves on the board turned by 180 degrees


def _blank_last(board: list, blocks, goal: str) -> tuple[list, object]:
    """A board whose goal has the blank first (Korf's convention: 0 1 2 ... on the open board, the tiles
    after the blank in row-major order over the free cells) as the same puzzle with the blank last: turned
    by 180 degrees (cell i to cells-1-i) and relabelled (tile t to tiles+1-t, the blank stays). Optimal
    lengths and h are the same; the blank's moves turn with it (U <-> D, L <-> R)."""
    if goal not in GOALS:
        raise UserError(f"goal must be one of {', '.join(GOALS)}, got {goal!r}")
    if goal == "blank-last":
        return board, blocks
    tiles = sum(1 for v in board if isinstance(v, (int, np.integer)) and v > 0)
    turned = [v if v in (0, -1) or not isinstance(v, (int, np.integer)) else tiles + 1 - v for v in reversed(board)]
    if isinstance(blocks, (list, tuple, np.ndarray)):
        blocks = [len(board) - 1 - int(b) if isinstance(b, (int, np.integer)) else b for b in blocks]
    return turned, blocks


def solve(
    board: Sequence[int],
    rows: int = 4,
    cols: int = 4,
    blocks: Sequence[int] = (),
    *,
    max_nodes=None,
    progress: Callable[[int, int], None] | None = None,
    use_pdb: bool | None = None,
    goal: str = "blank-last",
    heuristic: str = "auto",
) -> Solution:
    """The optimal plan (blank moves U/D/L/R) of one board; -1 marks blocked cells.

    ``goal``: ``blank-last`` (fastspe's and the banks': tiles 1.. in row-major order over the free cells, the
    blank last) or ``blank-first`` (Korf's published sets: the blank first, then the tiles); the moves are
    those of the blank on ``board`` as given, whichever the goal.

    ``blocks`` (cell indices) may be left out: the board's -1 cells are the blocks; if given, the
    board's -1 cells must match them. ``progress(done, total)`` reports a pattern-database build;
    ``use_pdb`` (default: by layout, see ``fastspe.domains.sliding.planners.pdb.uses_pdb``) turns the tables on or off;
    left at its default with ``heuristic="auto"``, a bounded search with graph distances alone comes first
    (FIRST_TRY_NODES nodes; ``max_nodes`` bounds both searches together) and the tables only if it gives up;
    ``heuristic`` chooses them: ``auto`` the 7-8 tables of the open 4x4 board when they are in the cache
    folder, else the layout's (6-6-3 on the open board); ``7-8`` those, built first if missing (minutes,
    see ``fastspe.domains.sliding.planners.pdb_packed``); ``layout`` the layout's. ``Solution.heuristic`` names the one used.
    Raises ``UnsolvableBoard`` before searching if the board cannot reach the goal, and
    ``SearchLimit`` if ``max_nodes`` nodes are generated without finding a plan.
    """
    from ..kernels.search import MAX_DEPTH, ida_star_split

    board, blocks = _blank_last(list(board), blocks, goal)
    layout = _layout_of(board, rows, cols, blocks)
    packed = _check(layout, board, "board", progress)
    limit = _max_nodes(max_nodes)
    turn = (lambda plan: plan) if goal == "blank-last" else (lambda plan: plan.translate(_TURNED_MOVES))
    tried = (0, 0.0)
    if heuristic == "auto" and use_pdb is None:  # the solver chooses: no tables for a board without need of them
        from ..kernels.search import OVER_BUDGET

        first = _first_try(layout, packed, min(limit, FIRST_TRY_NODES))
        if first.status != OVER_BUDGET or limit <= FIRST_TRY_NODES:  # solved, unsolvable, or the budget spent
            _raise_for(first.status, first.nodes, "board")
            return Solution(
                first.length, turn(first.moves), first.h, first.h, first.nodes, first.seconds, "graph-distance"
            )
        tried = (first.nodes, first.seconds)
        limit = max(1, limit - first.nodes)  # max_nodes bounds both searches together
    tables, how, tables_seconds = _timed_tables(layout, use_pdb, progress, heuristic)
    limit = _undecided_checks(layout, tables, [packed], limit, max_nodes is not None)
    path = np.zeros(MAX_DEPTH, dtype=np.int64)
    ida_star_split(_goal_board(layout), *tables.args(), 1, SPLIT_DEPTH, path)  # compile (or load) before the clock
    start = time.perf_counter()
    length, nodes, h, status = ida_star_split(packed, *tables.args(), limit, SPLIT_DEPTH, path)
    seconds = time.perf_counter() - start
    _raise_for(int(status), int(nodes), "board")
    return Solution(
        int(length),
        turn(_plan(path[:length])),
        int(layout_h(layout, packed[None])[0]),
        int(h),
        int(nodes),
        seconds,
        tables.name,
        how,
        tables_seconds,
        *tried,
    )


@dataclass(frozen=True)
class _Try:
    length: int
    moves: str
    h: int
    nodes: int
    seconds: float
    status: int


def _goal_board(layout: Layout) -> np.ndarray:
    return layout.goal.astype(np.int8)


def _first_try(layout: Layout, packed: np.ndarray, budget: int) -> _Try:
    """IDA* with graph distances alone within ``budget`` nodes (``kernels/graph_search.py``): exact where it
    finishes, and it neither needs tables nor compiles the table search's kernels."""
    from ..kernels.graph_search import ida_star_graph
    from ..kernels.search import MAX_DEPTH

    tile_dist = search_tables(layout, empty_databases(layout)).tile_dist
    path = np.zeros(MAX_DEPTH, dtype=np.int64)
    ida_star_graph(_goal_board(layout), layout.moves, tile_dist, 1, path)  # compile (or load) before the clock
    start = time.perf_counter()
    length, nodes, h, status = ida_star_graph(packed, layout.moves, tile_dist, budget, path)
    seconds = time.perf_counter() - start
    return _Try(int(length), _plan(path[: max(int(length), 0)]), int(h), int(nodes), seconds, int(status))


def solve_boards(
    boards: np.ndarray,
    rows: int = 4,
    cols: int = 4,
    blocks: Sequence[int] = (),
    *,
    max_nodes=None,
    progress: Callable[[int, int], None] | None = None,
    use_pdb: bool | None = None,
    heuristic: str = "auto",
) -> SolvedBoards:
    """Optimal plans of int8 boards ``(n, cells)`` of one layout, in parallel over boards.

    ``max_nodes`` applies per board; ``progress`` reports a pattern-database build. Every board is
    checked first (``UnsolvableBoard`` / ``ValueError`` name the row) so the search never meets one
    it cannot finish. ``heuristic`` as in ``solve``.
    """
    from ..kernels.search import ida_star_boards

    layout = Layout(rows, cols, tuple(blocks))
    arr = np.asarray(boards)
    if arr.ndim != 2 or arr.shape[1] != layout.cells:
        raise UserError(f"boards must be an array (n, {layout.cells}), got shape {arr.shape}")
    packed = np.empty(arr.shape, dtype=np.int8)
    for i, row in enumerate(arr):
        packed[i] = _check(layout, row.tolist(), f"board {i}", progress)
    limit = _max_nodes(max_nodes)
    tables = _tables(layout, use_pdb, progress, heuristic)
    limit = _undecided_checks(layout, tables, packed, limit, max_nodes is not None)
    ida_star_boards(_goal_board(layout)[None], *tables.args(), 1)  # compile (or load) before the clock
    start = time.perf_counter()
    lengths, nodes, h, status, plans = ida_star_boards(packed, *tables.args(), limit)
    seconds = time.perf_counter() - start
    for i in range(len(packed)):
        _raise_for(int(status[i]), int(nodes[i]), f"board {i}")
    moves = [_plan(plans[i, : lengths[i]]) for i in range(len(packed))]
    return SolvedBoards(lengths, moves, nodes, layout_h(layout, packed), h, seconds, tables.name)


def layout_h(layout: Layout, packed: np.ndarray) -> np.ndarray:
    """The paper's h(s) of packed int8 boards ``(n, cells)``: each tile's free-cell graph distance to its goal, summed."""
    from ..kernels.graph import boards_h

    return boards_h(packed, layout.goal_cell, layout.distances).astype(np.int64)


ANSWER_KEYS = (
    "length",
    "moves",
    "h",
    "h_search",
    "nodes",
    "seconds",
    "heuristic",
    "tables",
    "tables_seconds",
    "first_try_nodes",
    "first_try_seconds",
    "error",
)


def answer_fields(sol: Solution) -> dict:
    """A ``Solution`` as the JSON fields of an answer (seconds rounded to microseconds)."""
    return {
        "length": sol.length,
        "moves": sol.moves,
        "h": sol.h,
        "h_search": sol.h_search,
        "nodes": sol.nodes,
        "seconds": round(sol.seconds, 6),
        "heuristic": sol.heuristic,
        "tables": sol.tables,
        "tables_seconds": round(sol.tables_seconds, 6),
        "first_try_nodes": sol.first_try_nodes,
        "first_try_seconds": round(sol.first_try_seconds, 6),
    }


def solve_record(
    record: dict,
    *,
    max_nodes=None,
    progress: Callable[[int, int], None] | None = None,
    goal: str = "blank-last",
    heuristic: str = "auto",
) -> dict:
    """One JSONL line's answer: ``record`` (``rows``, ``cols`` default 4, optional ``blocks``, ``board``)
    with ``answer_fields`` added, or ``error`` if the board is
    invalid, unsolvable or over ``max_nodes``. Other keys (``id``) are kept; answer keys the record
    already holds (a file solved before) are replaced, never carried over."""
    if not isinstance(record, dict):
        return {"error": "a line must be a JSON object with rows, cols, blocks and board"}
    out = {k: v for k, v in record.items() if k not in ANSWER_KEYS}
    try:
        board = record.get("board")
        if not isinstance(board, list):
            raise UserError("board must be a list of cell values (0 blank, -1 blocked)")
        sol = solve(
            board,
            record.get("rows", 4),
            record.get("cols", 4),
            record.get("blocks") or (),
            max_nodes=max_nodes,
            progress=progress,
            goal=goal,
            heuristic=heuristic,
        )
    except (UserError, SearchLimit) as exc:
        out["error"] = str(exc)
        return out
    out.update(answer_fields(sol))
    return out
