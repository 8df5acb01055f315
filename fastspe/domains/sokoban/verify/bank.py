"""Independent Sokoban bank verifier: plain Python, sharing no code with the kernels, the solver or the builder.

It re-derives what each bank row claims from the XSB text and the rules alone. A row passes when its ``level`` is an
XSB drawing of one player, ``boxes`` boxes (1..16) and as many goals, at most 32 x 32; its ``certificate`` is U/D/L/R
letters (``depth`` of them on a move bank) that replay legally (the player never walks into a wall or off the
drawing, never pushes a box into a wall or another box) to every box on a goal; the replay pushes ``pushes`` times;
no board_id or level repeats; and, for levels whose breadth-first search stays within ``max_states`` states (default
``OPTIMALITY_STATES``), no plan shorter than ``depth`` exists and none of ``depth`` moves pushes fewer times. A bank
certifying fewest pushes (``objective`` pushes) has ``depth`` = ``pushes`` and is proved by ``fewest_pushes`` (no
plan pushes fewer times, none with as few pushes takes fewer moves); the optima a bank records of both objectives
(``move_optimal_*``, ``push_optimal_*``) must be what each search finds. The search is exhaustive over (player,
boxes) states, pruned only of boxes on squares from which no goal can be reached by pushes (its own computation),
which no plan can visit. A box on a goal walled in out of the player's reach never moves: it is a wall, not one of
the ``boxes``.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

import pandas as pd

from .replay import reachable_cells

OPTIMALITY_STATES = 2_000_000  # states the optimality search may visit per level before the level is skipped
_COLUMNS = ("board_id", "cohort", "depth", "level", "boxes", "certificate", "pushes")
_STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


class BadLevel(Exception):
    """A bank row's level text that is not a level (the verifier reports it as that row's failure)."""


def read_xsb(text) -> tuple:
    """(rows, cols, walls, goals, boxes, player) with cells as (row, col), or ``BadLevel`` saying what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise BadLevel("level is not XSB text")
    lines = text.split("\n")
    rows, cols = len(lines), max(len(line) for line in lines)
    if rows > 32 or cols > 32:
        raise BadLevel(f"level is {rows}x{cols}, over 32x32")
    walls, goals, boxes, players = set(), set(), set(), []
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch not in "# -_.$*@+":
                raise BadLevel(f"level line {r + 1} holds {ch!r}")
            if ch == "#":
                walls.add((r, c))
            if ch in ".*+":
                goals.add((r, c))
            if ch in "$*":
                boxes.add((r, c))
            if ch in "@+":
                players.append((r, c))
    walled_in = (boxes & goals) - reachable_cells(players[0], walls, rows, cols) if len(players) == 1 else set()
    walls, boxes, goals = walls | walled_in, boxes - walled_in, goals - walled_in  # never moves: a wall
    if len(players) != 1:
        raise BadLevel(f"level has {len(players)} players")
    if not 1 <= len(boxes) <= 16 or len(goals) != len(boxes):
        raise BadLevel(f"level has {len(boxes)} boxes and {len(goals)} goals")
    return rows, cols, walls, goals, frozenset(boxes), players[0]


def replay(level: tuple, certificate: str):
    """(pushes, solved) after the certificate, or a str naming its first illegal move."""
    rows, cols, walls, goals, boxes, player = level
    boxes = set(boxes)

    def open_cell(cell):
        return 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in walls

    pushes = 0
    for i, letter in enumerate(certificate):
        dr, dc = _STEP[letter]
        to = (player[0] + dr, player[1] + dc)
        if not open_cell(to):
            return f"certificate move {i + 1} ({letter}) walks into a wall"
        if to in boxes:
            beyond = (to[0] + dr, to[1] + dc)
            if not open_cell(beyond) or beyond in boxes:
                return f"certificate move {i + 1} ({letter}) pushes a box into a wall or a box"
            boxes.remove(to)
            boxes.add(beyond)
            pushes += 1
        player = to
    return pushes, boxes <= goals


def _live_squares(level: tuple) -> set:
    """Cells from which a lone box can be pushed to some goal (a backward search over pushes from each goal)."""
    rows, cols, walls, goals, _, _ = level

    def open_cell(cell):
        return 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in walls

    live = set(goals)
    queue = deque(goals)
    while queue:
        r, c = queue.popleft()
        for dr, dc in _STEP.values():  # pushed by (dr, dc) onto (r, c): from (r-dr, c-dc), the player behind it
            frm, stand = (r - dr, c - dc), (r - 2 * dr, c - 2 * dc)
            if frm not in live and open_cell(frm) and open_cell(stand):
                live.add(frm)
                queue.append(frm)
    return live


def _moves_from(player, boxes, open_cell, live):
    """Each legal move of the player on ``player`` among ``boxes`` (a set of cells): (the player's new cell, the cell
    the pushed box goes to, or None for a walk); a box is never pushed off the ``live`` squares."""
    for dr, dc in _STEP.values():
        to = (player[0] + dr, player[1] + dc)
        if not open_cell(to):
            continue
        if to not in boxes:
            yield to, None
            continue
        beyond = (to[0] + dr, to[1] + dc)
        if open_cell(beyond) and beyond not in boxes and beyond in live:
            yield to, beyond


def fewest_moves(level: tuple, max_states: int = OPTIMALITY_STATES):
    """(moves, pushes): the fewest moves to solve the level and the fewest pushes among plans that short, by
    breadth-first search; None if unsolvable; raises OverflowError past ``max_states`` states."""
    rows, cols, walls, goals, boxes, player = level
    live = _live_squares(level)

    def open_cell(cell):
        return 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in walls

    if boxes <= goals:
        return 0, 0
    seen = {(player, boxes)}
    layer = {(player, boxes): 0}  # state -> fewest pushes reaching it in this many moves
    moves = 0
    while layer:
        moves += 1
        nxt: dict = {}
        solved = None
        for (p, bx), pushes in layer.items():
            for to, beyond in _moves_from(p, bx, open_cell, live):
                nb, extra = (bx, 0) if beyond is None else ((bx - {to}) | {beyond}, 1)
                state = (to, nb)
                if nb <= goals:
                    solved = pushes + extra if solved is None else min(solved, pushes + extra)
                    continue
                if state in seen and state not in nxt:
                    continue
                if state not in nxt or nxt[state] > pushes + extra:
                    nxt[state] = pushes + extra
                    seen.add(state)
        if solved is not None:
            return moves, solved
        if len(seen) > max_states:
            raise OverflowError(f"more than {max_states:,} states within {moves} moves")
        layer = nxt
    return None


def fewest_pushes(level: tuple, max_states: int = OPTIMALITY_STATES):
    """(moves, pushes): the fewest pushes to solve the level and the fewest moves among plans with that few, by
    Dijkstra's search over (player, boxes) states with the cost (pushes, moves) compared pushes first; None if
    unsolvable; raises OverflowError past ``max_states`` states. Pruned as ``fewest_moves`` is."""
    import heapq

    rows, cols, walls, goals, boxes, player = level
    live = _live_squares(level)

    def open_cell(cell):
        return 0 <= cell[0] < rows and 0 <= cell[1] < cols and cell not in walls

    start = (player, tuple(sorted(boxes)))
    best = {start: (0, 0)}
    heap = [(0, 0, start)]
    done = set()
    while heap:
        pushes, moves, state = heapq.heappop(heap)
        if state in done:
            continue
        done.add(state)
        p, bx = state
        if set(bx) <= goals:
            return moves, pushes
        if len(done) > max_states:
            raise OverflowError(f"more than {max_states:,} states within {pushes} pushes")
        for to, beyond in _moves_from(p, set(bx), open_cell, live):
            nb, extra = (bx, 0) if beyond is None else (tuple(sorted(set(bx) - {to} | {beyond})), 1)
            cost = (pushes + extra, moves + 1)
            if (to, nb) not in best or best[to, nb] > cost:
                best[to, nb] = cost
                heapq.heappush(heap, (*cost, (to, nb)))
    return None


def verify_sokoban_bank(
    bank: pd.DataFrame,
    progress: Callable[[int, int], None] | None = None,
    max_states: int = OPTIMALITY_STATES,
    skipped: list | None = None,
    unproven: dict | None = None,
) -> list[tuple[str, str]]:
    """Every failing row of a Sokoban ``bank`` (a DataFrame or Arrow table) as (board_id, reason); empty when the
    bank is sound (a bank without the Sokoban columns is one failure with board_id "").

    A bank with an ``objective`` column of "pushes" certifies the fewest pushes: ``depth`` and ``pushes`` are the
    certificate's pushes, and ``fewest_pushes`` must find (len(certificate), depth). The optima's columns, where the
    bank has them (``OPTIMA``), must be what ``fewest_moves`` and ``fewest_pushes`` find.

    The ids of levels whose search passed ``max_states`` states (replayed and checked, but not proved optimal) are
    appended to ``skipped`` when it is given, and ``unproven[id]`` lists the objectives ("moves", "pushes") not
    proved. ``progress(levels_checked, levels)`` after each level.
    """
    if not isinstance(bank, pd.DataFrame):  # an Arrow table
        bank = bank.to_pandas()
    missing = [c for c in _COLUMNS if c not in bank.columns]
    if missing:
        return [("", f"the bank lacks the columns {missing} (a Sokoban bank has {list(_COLUMNS)})")]
    failures: list[tuple[str, str]] = []
    ids = bank["board_id"].tolist()
    failures += [(bid, "board_id appears more than once") for bid in bank["board_id"][bank["board_id"].duplicated()]]
    aims = bank["objective"].fillna("moves").tolist() if "objective" in bank.columns else ["moves"] * len(ids)
    optima = [
        dict(zip(OPTIMA, values))
        for values in zip(*(bank[c] if c in bank.columns else [None] * len(ids) for c in OPTIMA))
    ]
    first_of: dict[str, str] = {}
    for i, (bid, text, depth, nboxes, cert, pushes) in enumerate(
        zip(ids, bank["level"], bank["depth"], bank["boxes"], bank["certificate"], bank["pushes"])
    ):
        not_proved: list = []
        reason = _check_row(
            text, int(depth), int(nboxes), cert, int(pushes), aims[i], optima[i], max_states, not_proved
        )
        if not_proved and reason is None:
            if skipped is not None:
                skipped.append(bid)
            if unproven is not None:
                unproven[bid] = not_proved
        if reason is None and text in first_of:
            reason = f"the same level as {first_of[text]}"
        first_of.setdefault(text, bid)
        if reason is not None:
            failures.append((bid, reason))
        if progress is not None:
            progress(i + 1, len(ids))
    return failures


OPTIMA = ("move_optimal_moves", "move_optimal_pushes", "push_optimal_moves", "push_optimal_pushes")


def _check_row(
    text, depth: int, nboxes: int, cert, pushes: int, aim: str, optima: dict, max_states: int, not_proved: list
) -> str | None:
    try:
        level = read_xsb(text)
    except BadLevel as exc:
        return str(exc)
    if len(level[4]) != nboxes:
        return f"boxes = {nboxes} but the level has {len(level[4])}"
    if not isinstance(cert, str) or set(cert) - set(_STEP):
        return "certificate holds characters other than U, D, L, R"
    if aim not in ("moves", "pushes"):
        return f"objective = {aim!r}, not moves or pushes"
    if aim == "moves" and len(cert) != depth:
        return f"depth = {depth} but len(certificate) = {len(cert)}"
    played = replay(level, cert)
    if isinstance(played, str):
        return played
    if not played[1]:
        return "the certificate does not leave every box on a goal"
    if played[0] != pushes:
        return f"pushes = {pushes} but the certificate pushes {played[0]} times"
    if aim == "pushes" and pushes != depth:
        return f"depth = {depth} but the certificate pushes {pushes} times (the bank certifies fewest pushes)"
    mine = "move_optimal" if aim == "moves" else "push_optimal"
    for name, value in ((f"{mine}_moves", len(cert)), (f"{mine}_pushes", pushes)):  # the certificate is that optimum
        if optima.get(name) is not None and optima[name] != value:
            return f"{name} = {optima[name]} but the verified certificate's is {value}"
    for objective, search in (("moves", fewest_moves), ("pushes", fewest_pushes)):
        recorded = (optima.get(f"{objective[:4]}_optimal_moves"), optima.get(f"{objective[:4]}_optimal_pushes"))
        if objective != aim and None in recorded:
            continue  # the bank records no such optimum
        try:
            best = search(level, max_states)
        except OverflowError:
            not_proved.append(objective)
            continue
        if objective == aim:
            reason = _not_optimal(best, aim, depth, len(cert), pushes)
            if reason is not None:
                return reason
        elif best != recorded:
            prefix = objective[:4] + "_optimal"
            return (
                f"{prefix}_moves, {prefix}_pushes = {recorded[0]}, {recorded[1]} but the fewest {objective} "
                f"are {best and (best[0] if objective == 'moves' else best[1])}, in {best and best[0]} moves "
                f"and {best and best[1]} pushes"
            )
    return None


def _not_optimal(best, aim: str, depth: int, moves: int, pushes: int) -> str | None:
    """Why the certificate (``moves`` long, ``pushes`` pushes) is not the optimum ``best`` of ``aim``, or None."""
    if aim == "moves":
        if best is None or best[0] != depth:
            return f"the fewest moves are {best and best[0]}, not depth = {depth}"
        if best[1] != pushes:
            return f"plans of {depth} moves push at least {best[1]} times, not pushes = {pushes}"
        return None
    if best is None or best[1] != depth:
        return f"the fewest pushes are {best and best[1]}, not depth = {depth}"
    if best[0] != moves:
        return f"plans of {depth} pushes take at least {best[0]} moves, not the certificate's {moves}"
    return None
