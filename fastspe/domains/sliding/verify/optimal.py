"""Which search certificates ``bank verify`` proved optimal, and a deeper independent proof.

``verify_bank`` proves a search certificate optimal with its bidirectional breadth-first search up
to ``OPTIMALITY_BOUND``; a deeper search board is replayed and checked against h and parity, but a
longer-than-optimal certificate there would pass. This module names those boards and, for the ones a
researcher asks for, proves them with iterative-deepening A* in plain Python: the heuristic is the
sum of free-cell graph distances (``verify_bank``'s own BFS, admissible since a move shifts one tile
one step), the f-bounds run h, h + 2, ..., depth - 2 (every move changes h by one, so plan lengths
keep one parity), and exhausting the last bound proves that no plan shorter than the certificate
exists. It shares nothing with the kernels or the solver. Its cost grows fast with the retreat
depth - h (each extra 2 is one more, wider iteration), not with the depth itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import pandas as pd

from . import bank as verify_bank
from ....errors import UserError
from .bank import graph_distances, layout_goal

PROGRESS_NODES = 1 << 20  # nodes between two progress reports within one board


@dataclass(frozen=True)
class Optimality:
    """The search boards of a bank that passed verification, by how their optimality stands.

    ``by_bfs``: proved by ``verify_bank``'s breadth-first search (depth <= ``OPTIMALITY_BOUND``);
    ``by_ida``: proved here; ``unproven``: (board_id, depth) left unproven; ``refuted``: (board_id,
    reason) for certificates the IDA* showed are not optimal (verification failures)."""

    by_bfs: list
    by_ida: list
    unproven: list
    refuted: list


def shorter_plan(
    initial: Iterable[int],
    rows: int,
    cols: int,
    blocks: tuple[int, ...],
    limit: int,
    tick: Callable[[int], None] | None = None,
) -> int | None:
    """The length of the shortest plan of at most ``limit`` moves from ``initial`` to the layout's goal,
    or None when there is none (IDA*; ``tick(nodes)`` every ``PROGRESS_NODES`` nodes expanded).

    Every plan has the parity of h(initial), so the bounds h, h + 2, ... <= ``limit`` miss none; pass
    depth - 2 to prove a plan of depth moves optimal.
    """
    board = [int(v) for v in initial]
    goal = layout_goal(rows, cols, blocks)
    dist = graph_distances(rows, cols, blocks).tolist()
    goal_cell = [0] * (rows * cols)
    for cell, tile in enumerate(goal):
        if tile > 0:
            goal_cell[tile] = cell
    steps = {}
    for cell in range(rows * cols):
        r, q = divmod(cell, cols)
        steps[cell] = [
            t
            for t, ok in (
                (cell - cols, r > 0),
                (cell + cols, r < rows - 1),
                (cell - 1, q > 0),
                (cell + 1, q < cols - 1),
            )
            if ok and t not in blocks
        ]
    h0 = sum(dist[c][goal_cell[v]] for c, v in enumerate(board) if v > 0)
    nodes = [0]

    def search(blank: int, came_from: int, g: int, h: int, bound: int) -> bool:
        if h == 0:
            return True
        nodes[0] += 1
        if tick is not None and not nodes[0] % PROGRESS_NODES:
            tick(nodes[0])
        for cell in steps[blank]:
            if cell == came_from:  # undoing the last move never shortens a plan
                continue
            tile = board[cell]
            home = goal_cell[tile]
            nh = h + dist[blank][home] - dist[cell][home]
            if g + 1 + nh > bound:
                continue
            board[blank], board[cell] = tile, 0
            found = search(cell, blank, g + 1, nh, bound)
            board[blank], board[cell] = 0, tile
            if found:
                return True
        return False

    blank = board.index(0)
    for bound in range(h0, limit + 1, 2):
        if search(blank, -1, 0, h0, bound):
            return bound
    return None


def _search_boards(bank: pd.DataFrame) -> pd.DataFrame:
    return bank[bank["certificate_kind"] == "search"] if "certificate_kind" in bank else bank.iloc[:0]


def check_prove_ids(bank: pd.DataFrame, ids: Iterable[str]) -> list[str]:
    """``ids`` without repeats; a ``ValueError`` names the first that is not a search board of ``bank``."""
    ids = list(dict.fromkeys(ids))
    known = set(_search_boards(bank)["board_id"])
    unknown = [bid for bid in ids if bid not in known]
    if unknown:
        raise UserError(f"--prove-board {unknown[0]!r} is not a search-certified board of this bank")
    return ids


def optimality(
    bank: pd.DataFrame,
    failures: Iterable[tuple[str, str]],
    prove_depth: int | None = None,
    prove_ids: Iterable[str] = (),
    progress: Callable[..., None] | None = None,
) -> Optimality:
    """How the optimality of each search board of ``bank`` that passed ``verify_bank`` stands.

    Boards deeper than ``OPTIMALITY_BOUND`` are proved here when their depth is at most
    ``prove_depth`` or their id is in ``prove_ids`` (a ``ValueError`` names an id that is not a search
    board of the bank). ``progress(boards_proved, boards, nodes=...)`` follows the proofs.
    """
    prove_ids = check_prove_ids(bank, prove_ids)
    failed = {bid for bid, _ in failures}
    search = _search_boards(bank)
    search = search[~search["board_id"].isin(failed)]
    shallow = search["depth"] <= verify_bank.OPTIMALITY_BOUND  # read at call time: tests lower it
    deep = search[~shallow]
    chosen = deep["board_id"].isin(prove_ids)
    if prove_depth is not None:
        chosen |= deep["depth"] <= prove_depth
    by_ida, refuted = [], []
    todo = deep[chosen]
    if progress is not None and len(todo):
        progress(0, len(todo))
    for n, row in enumerate(todo.itertuples(index=False)):
        # nodes: within the board at hand, so that a long proof shows it is moving
        tick = None if progress is None else (lambda count, n=n: progress(n, len(todo), nodes=count))
        depth = int(row.depth)
        length = shorter_plan(
            row.initial, int(row.rows), int(row.cols), tuple(sorted(int(b) for b in row.blocks)), depth - 2, tick
        )
        if length is None:
            by_ida.append(row.board_id)
        else:
            refuted.append(
                (
                    row.board_id,
                    f"a plan of {length} moves exists: the certificate's {depth} moves are not optimal (IDA* proof)",
                )
            )
        if progress is not None:
            progress(n + 1, len(todo))
    unproven = [(bid, int(d)) for bid, d in zip(deep["board_id"][~chosen], deep["depth"][~chosen])]
    return Optimality(search["board_id"][shallow].tolist(), by_ida, unproven, refuted)


__all__ = ["Optimality", "optimality", "check_prove_ids", "shorter_plan"]
