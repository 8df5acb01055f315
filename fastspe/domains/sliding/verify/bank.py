"""Independent bank verifier: plain Python and NumPy, sharing no code with the kernels or the solver.

It re-derives everything a bank claims from the rules alone: the goal of each layout, the
free-cell graph distances (its own BFS), h(initial), and a replay of every certificate. A bank
passes when depth = len(certificate), the certificate moves the blank legally from ``initial``
to ``goal``, ``goal`` is the layout's goal, no board or board_id repeats, and

- for h-walk boards (``certificate_kind`` "h-walk", or no such column): h = depth, which proves the
  certificate optimal (h is a lower bound);
- for search-certified boards (``certificate_kind`` "search"): h <= depth, depth - h even and
  ``retreat`` = depth - h; for depth <= ``OPTIMALITY_BOUND`` (30) a bidirectional breadth-first search
  confirms that no plan shorter than depth exists. Deeper boards are not proved optimal here:
  ``verify_optimal`` names them and proves those asked for with a plain-Python IDA*.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

import numpy as np
import pandas as pd

SLICE = 20_000  # boards replayed at once: bounds memory and paces progress
_DELTA = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
KINDS = ("h-walk", "search")
# Search-certified boards up to this depth are proved optimal here: a ball of GOAL_RADIUS around the
# goal (once per layout slice) meets a ball of depth - 2 - GOAL_RADIUS <= 12 around each board iff a
# plan of depth - 2 moves or fewer exists (plan lengths keep one parity). About 30 ms a board on 4 x 4.
OPTIMALITY_BOUND = 30
GOAL_RADIUS = 16


def layout_goal(rows: int, cols: int, blocks: tuple[int, ...]) -> list[int]:
    """The goal board, row-major: tiles 1, 2, ... on the free cells in order, the blank on the last one."""
    free = [c for c in range(rows * cols) if c not in blocks]
    goal = [-1] * (rows * cols)
    for tile, cell in enumerate(free[:-1], start=1):
        goal[cell] = tile
    goal[free[-1]] = 0
    return goal


def graph_distances(rows: int, cols: int, blocks: tuple[int, ...]) -> np.ndarray:
    """All-pairs free-cell distances by a BFS from each free cell (-1 unreachable)."""
    n = rows * cols
    dist = np.full((n, n), -1, dtype=np.int64)
    for src in range(n):
        if src in blocks:
            continue
        dist[src, src] = 0
        queue = deque([src])
        while queue:
            c = queue.popleft()
            r, q = divmod(c, cols)
            for dr, dq in _DELTA.values():
                rr, qq = r + dr, q + dq
                t = rr * cols + qq
                if 0 <= rr < rows and 0 <= qq < cols and t not in blocks and dist[src, t] < 0:
                    dist[src, t] = dist[src, c] + 1
                    queue.append(t)
    return dist


def _verify_layout_group(group: pd.DataFrame, rows: int, cols: int, blocks: tuple[int, ...], seen: dict):
    """Yield (board_id, reason) for each failing row of a slice of one layout (vectorized replay);
    ``seen`` maps the initial boards of the layout's earlier slices to their ids (repeats span slices)."""
    goal = layout_goal(rows, cols, blocks)
    dist = graph_distances(rows, cols, blocks)
    free = [c for c in range(rows * cols) if c not in blocks]
    if (dist[free[0], free] < 0).any():
        for bid in group["board_id"]:
            yield bid, f"the free cells of blocks {list(blocks)} are not connected"
        return
    ids = group["board_id"].tolist()
    ok = np.ones(len(group), dtype=bool)
    reasons: dict[int, str] = {}

    def reject(i: int, reason: str) -> None:
        if ok[i]:
            ok[i] = False
            reasons[i] = reason

    expected = sorted([-1] * len(blocks) + list(range(rows * cols - len(blocks))))
    initial = np.zeros((len(group), rows * cols), dtype=np.int64)
    kinds = group["certificate_kind"].tolist() if "certificate_kind" in group else ["h-walk"] * len(group)
    retreats = group["retreat"].tolist() if "retreat" in group else [None] * len(group)
    for i, (init, g, depth, h, k, cert) in enumerate(
        zip(group["initial"], group["goal"], group["depth"], group["h"], group["k"], group["certificate"])
    ):
        init = list(init)
        if (
            len(init) != rows * cols
            or sorted(init) != expected
            or [c for c, v in enumerate(init) if v == -1] != list(blocks)
        ):
            reject(i, "initial is not a board of this layout (cell count, tiles or blocked cells)")
            continue
        initial[i] = init
        if list(g) != goal:
            reject(i, f"goal is not the layout's goal {goal}")
        if int(k) != len(blocks):
            reject(i, f"k = {k} but the layout has {len(blocks)} blocked cells")
        if not isinstance(cert, str) or set(cert) - set(_DELTA):
            reject(i, "certificate holds characters other than U, D, L, R")
        elif kinds[i] not in KINDS:
            reject(i, f"certificate_kind {kinds[i]!r} is not one of {', '.join(KINDS)}")
        elif kinds[i] == "h-walk" and not (int(h) == int(depth) == len(cert)):
            reject(i, f"h = {h}, depth = {depth} and len(certificate) = {len(cert)} differ")
        elif int(depth) != len(cert):
            reject(i, f"depth = {depth} but len(certificate) = {len(cert)}")
        elif int(h) > int(depth) or (int(depth) - int(h)) % 2:
            reject(i, f"depth = {depth} is below h = {h} or of the other parity")
        elif retreats[i] is not None and int(retreats[i]) != int(depth) - int(h):
            reject(i, f"retreat = {retreats[i]} but depth - h = {int(depth) - int(h)}")
    # h(initial) from the re-derived distances
    goal_cell = {v: c for c, v in enumerate(goal) if v > 0}
    tile_goal = np.array([goal_cell.get(v, 0) for v in range(rows * cols)])
    cell_index = np.broadcast_to(np.arange(rows * cols), initial.shape)
    tiles = np.where(initial > 0, initial, 0)
    h_true = np.where(initial > 0, dist[tile_goal[tiles], cell_index], 0).sum(axis=1)
    for i in np.flatnonzero(ok & (h_true != group["h"].to_numpy())):
        reject(i, f"h(initial) is {h_true[i]}, not the recorded {group['h'].iloc[i]}")
    # replay every certificate, one step for all boards at a time
    certs = [c if isinstance(c, str) and ok[i] else "" for i, c in enumerate(group["certificate"])]
    lengths = np.array([len(c) for c in certs], dtype=np.int64)
    longest = int(lengths.max(initial=0))
    letters = np.full((len(certs), longest), ord(" "), dtype=np.uint8)
    rows_of = np.repeat(np.arange(len(certs)), lengths)
    cols_of = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    letters[rows_of, cols_of] = np.frombuffer("".join(certs).encode("ascii"), dtype=np.uint8)
    board = initial.copy()
    blank = np.argmax(board == 0, axis=1)
    blocked = np.zeros(rows * cols, dtype=bool)
    blocked[list(blocks)] = True
    live = ok.copy()
    for step in range(longest):
        for letter, (dr, dq) in _DELTA.items():
            sel = np.flatnonzero(live & (letters[:, step] == ord(letter)))
            if not len(sel):
                continue
            r, q = blank[sel] // cols + dr, blank[sel] % cols + dq
            inside = (r >= 0) & (r < rows) & (q >= 0) & (q < cols)
            target = np.where(inside, r * cols + q, 0)
            legal = inside & ~blocked[target]
            for i in sel[~legal]:
                reject(i, f"certificate move {step + 1} ({letter}) leaves the board or enters a block")
                live[i] = False
            sel, target = sel[legal], target[legal]
            board[sel, blank[sel]] = board[sel, target]
            board[sel, target] = 0
            blank[sel] = target
    reached = (board == np.array(goal)).all(axis=1)
    for i in np.flatnonzero(live & ~reached):
        reject(i, "the certificate does not end at the goal")
    # search certificates: no shorter plan (checked up to OPTIMALITY_BOUND)
    depths = group["depth"].to_numpy(np.int64)
    prove = [i for i in range(len(group)) if ok[i] and kinds[i] == "search" and depths[i] <= OPTIMALITY_BOUND]
    if prove:
        radius = min(GOAL_RADIUS, int(depths[prove].max()) - 2)
        near_goal = _ball(tuple(goal), radius, rows, cols, blocks)
        for i in prove:
            shorter = _shortest_within(
                tuple(initial[i].tolist()), int(depths[i]) - 2, near_goal, radius, rows, cols, blocks
            )
            if shorter is not None:
                reject(i, f"a plan of {shorter} moves exists: the certificate's {depths[i]} moves are not optimal")
    # no board repeats within a layout
    for i in range(len(group)):
        key = initial[i].tobytes()
        if key in seen and ok[i]:
            reject(i, f"the same initial board as {seen[key]}")
        seen.setdefault(key, ids[i])
    for i in sorted(reasons):
        yield ids[i], reasons[i]


def _ball(start: tuple, radius: int, rows: int, cols: int, blocks: tuple[int, ...]) -> dict[tuple, int]:
    """Every board within ``radius`` moves of ``start``, with its distance (breadth-first)."""
    dist = {start: 0}
    frontier = [start]
    for r in range(1, radius + 1):
        step = []
        for board in frontier:
            blank = board.index(0)
            br, bq = divmod(blank, cols)
            for dr, dq in _DELTA.values():
                rr, qq = br + dr, bq + dq
                t = rr * cols + qq
                if 0 <= rr < rows and 0 <= qq < cols and t not in blocks:
                    nxt = list(board)
                    nxt[blank], nxt[t] = board[t], 0
                    nxt = tuple(nxt)
                    if nxt not in dist:
                        dist[nxt] = r
                        step.append(nxt)
        frontier = step
    return dist


def _shortest_within(
    board: tuple, limit: int, near_goal: dict, goal_radius: int, rows: int, cols: int, blocks: tuple[int, ...]
):
    """The length of a plan from ``board`` of at most ``limit`` moves if there is one, else None.

    ``near_goal`` is the ball of ``goal_radius`` around the goal: a plan of L <= limit moves passes
    through a board within limit - goal_radius of ``board`` and within goal_radius of the goal (or,
    when L <= goal_radius, ``board`` is in the ball itself).
    """
    if limit < 0:
        return None
    if limit <= goal_radius:
        d = near_goal.get(board)
        return d if d is not None and d <= limit else None
    around = _ball(board, limit - goal_radius, rows, cols, blocks)
    best = min((d + near_goal[b] for b, d in around.items() if b in near_goal), default=None)
    return best if best is not None and best <= limit else None


def verify_bank(bank: pd.DataFrame, progress: Callable[[int, int], None] | None = None) -> list[tuple[str, str]]:
    """Every failing row of ``bank`` as (board_id, reason); empty when the bank is sound.

    ``progress(boards_checked, boards)`` is called after each slice of ``SLICE`` boards.
    """
    failures: list[tuple[str, str]] = []
    dup = bank["board_id"][bank["board_id"].duplicated()]
    failures += [(bid, "board_id appears more than once") for bid in dup]
    layout_key = [
        (int(r), int(c), tuple(int(b) for b in bl)) for r, c, bl in zip(bank["rows"], bank["cols"], bank["blocks"])
    ]
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(layout_key):
        groups.setdefault(key, []).append(i)
    done = 0
    for (rows, cols, blocks), index in groups.items():
        if (
            not (2 <= rows <= 8 and 2 <= cols <= 8)
            or any(not 0 <= b < rows * cols for b in blocks)
            or len(set(blocks)) != len(blocks)
        ):
            failures += [
                (bank["board_id"].iloc[i], f"invalid layout rows={rows} cols={cols} blocks={list(blocks)}")
                for i in index
            ]
            continue
        seen: dict[bytes, str] = {}
        for start in range(0, len(index), SLICE):
            part = bank.iloc[index[start : start + SLICE]]
            failures += list(_verify_layout_group(part, rows, cols, tuple(sorted(blocks)), seen))
            done += len(part)
            if progress is not None:
                progress(done, len(bank))
    return failures
