"""Certified Sokoban banks: levels by reverse play, each certified move-optimal by the exact solver.

A design is a seed and cells, each asking for ``count`` distinct levels with ``boxes`` boxes and exactly
``depth`` fewest moves, labelled with a cohort::

    {"seed": 7, "cells": [{"cohort": "primary", "boxes": 2, "depth": 20, "count": 20}]}

Levels of one box count come from one stream of rooms (``kernels.sokoban_walks``): room i is keyed by (seed,
boxes, i) and offers one level for each depth its cells ask for, drawn from that layer of a breadth-first
reverse play from the solved states. Rooms are taken in order; a level goes to the first cell (design order)
of its box count and depth still short of its count, unless the same level text was taken before. Every level
is then solved by ``planners.sokoban`` (A*, a different search from the reverse play): it is kept only when the
solver's d* equals the layer, and the solver's plan (fewest moves, then fewest pushes) is its certificate.
Nothing depends on the thread count or the machine, so a bank is bit-identical for a seed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import pyarrow as pa

from .columns import BANK_COLUMNS, BANK_SCHEMA
from .level import DIRECTIONS, parse_level
from ...errors import UserError
from ..designs import QuotaError, check_cohort, check_seed, design_cells, design_seed, is_json_int, load_design_file

__all__ = ["SokobanCell", "SokobanDesign", "SOKOBAN_PAPER_SEED", "SOKOBAN_PAPER_DESIGN", "sokoban_paper_design",
           "sokoban_design_from_dict", "load_sokoban_design", "build_sokoban_bank", "bank_from_levels",
           "xsb_text"]

SOKOBAN_PAPER_SEED = 20261010
MAX_DEPTH = 120  # the deepest cell a design may ask for: deeper layers are rarely reached in a 10 x 10 room
MAX_COUNT = 100_000
MAX_BOXES = 4  # designed levels: the batched move-level search that certifies them (solver.solve_levels) takes 1-4
ROOM_SIDES = (7, 10)  # rooms are 7..10 cells a side, walls included
REVERSE_CAP = 1_500_000  # states one room's reverse play may store (about 20 MB)
CERTIFY_LIMIT = 8_000_000  # states the solver may store certifying one level; a level over it is skipped
ROOMS_PER_LEVEL = 200  # rooms tried per level asked for before a box count gives up
FIRST_ROOMS, MAX_ROOMS = 8, 256  # rooms per kernel call: doubling from the first

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class SokobanCell:
    """``count`` distinct levels with ``boxes`` boxes and d* = ``depth`` fewest moves."""

    cohort: str
    boxes: int
    depth: int
    count: int

    @property
    def name(self) -> str:
        return f"{self.cohort}-b{self.boxes}-d{self.depth}"


@dataclass(frozen=True)
class SokobanDesign:
    seed: int
    cells: tuple[SokobanCell, ...]

    @property
    def total(self) -> int:
        return sum(c.count for c in self.cells)


def sokoban_paper_design(seed: int = SOKOBAN_PAPER_SEED) -> SokobanDesign:
    """The paper's shape: 320 primary levels (boxes 1..4 x d* 10, 20, 30, 40, 20 each) and 80 stress levels
    (boxes 2, 3 x d* 50, 60, 20 each)."""
    cells = [SokobanCell("primary", b, d, 20) for d in (10, 20, 30, 40) for b in (1, 2, 3, 4)]
    cells += [SokobanCell("stress", b, d, 20) for d in (50, 60) for b in (2, 3)]
    return SokobanDesign(check_seed(seed, "seed"), tuple(cells))


SOKOBAN_PAPER_DESIGN = sokoban_paper_design()


def sokoban_design_from_dict(spec, source: str = "design", seed: int | None = None) -> SokobanDesign:
    """Validate a Sokoban design given as a dict (as read from JSON); errors name the offending key."""
    seed = design_seed(spec, source, seed, ("seed", "cells"), "a Sokoban design")
    cells_spec = design_cells(spec, source)
    cells, seen = [], set()
    for i, cell in enumerate(cells_spec):
        where = f"{source}: cells[{i}]"
        if not isinstance(cell, dict):
            raise UserError(f"{where} must be an object with cohort, boxes, depth and count")
        missing = {"cohort", "boxes", "depth", "count"} - set(cell)
        if missing:
            raise UserError(f"{where} is missing {sorted(missing)}")
        extra = set(cell) - {"cohort", "boxes", "depth", "count"}
        if extra:
            raise UserError(f"{where} has unknown keys {sorted(extra)} (allowed: cohort, boxes, depth, count)")
        cohort = cell["cohort"]
        if not isinstance(cohort, str) or not check_cohort(cohort):
            raise UserError(f"{where}.cohort must be a non-empty name of letters, digits, '_' or '.', got {cohort!r}")
        for key, low, high in (("boxes", 1, MAX_BOXES), ("depth", 1, MAX_DEPTH), ("count", 1, MAX_COUNT)):
            v = cell[key]
            if not is_json_int(v) or not low <= v <= high:
                raise UserError(f"{where}.{key} must be an integer in {low}..{high}, got {v!r}")
        key = (cohort, cell["boxes"], cell["depth"])
        if key in seen:
            raise UserError(f"{where} repeats cohort {cohort!r}, boxes {cell['boxes']}, depth {cell['depth']}: "
                            f"merge their counts")
        seen.add(key)
        cells.append(SokobanCell(cohort, cell["boxes"], cell["depth"], cell["count"]))
    return SokobanDesign(seed, tuple(cells))


def load_sokoban_design(name_or_path: str | None = None, seed: int | None = None) -> SokobanDesign:
    """``"sokoban-paper"`` (the default; ``"paper"`` too, as the sliding puzzle's design is called) for the
    paper-shaped design, else a path to a JSON design file."""
    paper = lambda s: sokoban_paper_design(SOKOBAN_PAPER_SEED if s is None else s)  # noqa: E731
    return load_design_file(name_or_path or "sokoban-paper", {"sokoban-paper": paper, "paper": paper},
                            sokoban_design_from_dict, seed)


def xsb_text(wall, goal, boxes, player: int, rows: int, cols: int) -> str:
    """The XSB drawing of a level given as arrays (cells row-major over ``cols``)."""
    chars = np.where(np.asarray(wall[:rows * cols]), "#", " ").astype("<U1")
    chars[np.asarray(goal[:rows * cols], dtype=bool)] = "."
    for b in boxes:
        chars[b] = "*" if goal[b] else "$"
    chars[player] = "+" if goal[player] else "@"
    return "\n".join("".join(chars[r * cols:(r + 1) * cols]).rstrip() for r in range(rows))


def _box_levels(cells: list[tuple[int, SokobanCell]], seed: int, taken: set, progress: Progress | None):
    """Fill the cells of one box count (design index, cell); returns {design index: [(text, plan, pushes)]}."""
    from .kernels.search import FOUND, NODE_LIMIT
    from .kernels.walks import propose_levels
    from .solver import solve_levels

    boxes = cells[0][1].boxes
    depths = np.array(sorted({c.depth for _, c in cells}), dtype=np.int64)
    have: dict[int, list] = {i: [] for i, _ in cells}
    by_index = dict(cells)
    need = sum(c.count for _, c in cells)
    cap = ROOMS_PER_LEVEL * need
    start, chunk = 0, FIRST_ROOMS
    while start < cap and any(len(have[i]) < c.count for i, c in cells):
        n = min(chunk, cap - start)
        walls, goals, rows, cols, players, boxes_at = propose_levels(boxes, ROOM_SIDES[0], ROOM_SIDES[1], depths,
                                                                     REVERSE_CAP, seed, boxes, start, n)
        start += n
        chunk = min(2 * chunk, MAX_ROOMS)
        wanted: list[tuple[int, str, object]] = []  # (design index, text, level) in room order
        short = {i: c.count - len(have[i]) for i, c in cells}
        for r in range(n):
            for k, depth in enumerate(depths):
                if players[r, k] < 0:
                    continue
                target = next((i for i, c in cells if c.depth == depth and short[i] > 0), None)
                if target is None:
                    continue
                level = parse_level(xsb_text(walls[r], goals[r], boxes_at[r, k], int(players[r, k]), int(rows[r]),
                                             int(cols[r])))
                if level.text in taken:
                    continue
                taken.add(level.text)
                short[target] -= 1
                wanted.append((target, level.text, level))
        if not wanted:
            continue
        status, lengths, pushes, _, plans = solve_levels([w[2] for w in wanted], CERTIFY_LIMIT, int(depths[-1]))
        for j, (target, text, _) in enumerate(wanted):
            depth = by_index[target].depth
            if status[j] == NODE_LIMIT:  # too costly to certify: skipped (the same on every machine)
                continue
            if status[j] != FOUND or lengths[j] != depth:  # two exact searches disagree: a bug, never a level
                raise RuntimeError(f"reverse play put a level at depth {depth} but the solver says status "
                                   f"{status[j]}, length {lengths[j]}:\n{text}")
            have[target].append((text, "".join(DIRECTIONS[int(d)] for d in plans[j, :depth]), int(pushes[j])))
            if progress is not None:
                progress(1, need)
    for i, c in cells:
        if len(have[i]) < c.count:
            raise QuotaError(f"cell {c.name}: only {len(have[i])} of {c.count} levels after {start:,} rooms; ask for "
                             f"fewer levels or another depth (deep levels are rare, and so are very shallow ones "
                             f"with many boxes)")
    return have


def build_sokoban_bank(design: SokobanDesign, seed: int | None = None, progress: Progress | None = None) -> pa.Table:
    """The certified bank of ``design`` (its seed, or ``seed``) as an Arrow table with ``domains.sokoban.columns.BANK_COLUMNS``,
    cells in design order; ``progress(levels_done, total)`` is called as levels are certified."""
    seed = design.seed if seed is None else check_seed(seed, "seed")
    done = [0]

    def tick(n: int, _):
        done[0] += n
        if progress is not None:
            progress(done[0], design.total)

    by_boxes: dict[int, list] = {}
    for i, cell in enumerate(design.cells):
        by_boxes.setdefault(cell.boxes, []).append((i, cell))
    taken: set = set()
    levels: dict[int, list] = {}
    for b in sorted(by_boxes):
        levels.update(_box_levels(by_boxes[b], seed, taken, tick))
    rows = []
    for i, cell in enumerate(design.cells):
        width = max(3, len(str(cell.count - 1)))
        rows += [(f"{cell.name}-{j:0{width}d}", cell.cohort, cell.depth, text, cell.boxes, plan, pushes)
                 for j, (text, plan, pushes) in enumerate(levels[i])]
    return _table(rows)


def _table(rows: list[tuple]) -> pa.Table:
    return pa.table({name: [r[k] for r in rows] for k, name in enumerate(BANK_COLUMNS)}, schema=BANK_SCHEMA)


def bank_from_levels(texts, ids=None, cohort: str = "custom", node_limit: int | None = None, where=None,
                     progress: Progress | None = None) -> pa.Table:
    """A bank of given levels (XSB texts, e.g. a published set), each certified by the exact solver: ``depth`` its
    fewest moves, ``certificate`` a plan that short with the fewest pushes. ``ids`` default to COHORT-000, ...
    A level that does not parse or has no plan raises a ``UserError`` naming it: ``where[i]`` (e.g. "FILE: line
    N") and its id. ``progress(levels_done, total)`` is called as levels are certified."""
    from .solver import solve_level

    texts = list(texts)
    if not check_cohort(cohort):
        raise UserError(f"cohort must be a non-empty name of letters, digits, '_' or '.', got {cohort!r}")
    width = max(3, len(str(len(texts) - 1)))
    ids = [f"{cohort}-{j:0{width}d}" for j in range(len(texts))] if ids is None else [str(i) for i in ids]
    where = [None] * len(texts) if where is None else list(where)
    if len(ids) != len(texts) or len(where) != len(texts):
        raise UserError(f"ids and where must give one name per level ({len(texts)})")
    first: dict[str, int] = {}
    for j, bid in enumerate(ids):
        if bid in first:
            raise UserError(f"{_named(where[j], bid)}: ids must be distinct, and level {first[bid] + 1} has this one"
                            + (f" ({where[first[bid]]})" if where[first[bid]] else ""))
        first[bid] = j
    levels = [_parsed(text, at, bid) for bid, text, at in zip(ids, texts, where)]
    _refuse_repeats(levels, ids, where)  # before any solving: a bad file fails in seconds, not after an hour
    rows = []
    for bid, level, at in zip(ids, levels, where):
        try:
            sol = solve_level(level, node_limit)
        except UserError as exc:
            raise UserError(f"{_named(at, bid)}: {exc}") from None
        rows.append((bid, cohort, sol.length, level.text, len(level.boxes), sol.moves.replace(",", ""), sol.pushes))
        if progress is not None:
            progress(len(rows), len(texts))
    return _table(rows)


def _parsed(text, where: str | None, bid: str):
    try:
        return parse_level(text)
    except UserError as exc:
        raise UserError(f"{_named(where, bid)}: {exc}") from None


def _refuse_repeats(levels, ids, where) -> None:
    """A level given twice (byte for byte, or drawn with other indentation or trailing spaces) would be banked
    twice and weigh double in every mean; ``bank verify`` fails such a bank. The canonical ``Level.text`` is what
    the bank stores, so equal texts are the same level to the verifier too."""
    first: dict[str, int] = {}
    for j, level in enumerate(levels):
        k = first.setdefault(level.text, j)
        if k != j:
            raise UserError(f"{_named(where[j], ids[j])}: the same level as {_named(where[k], ids[k])} (equal up to "
                            "indentation and trailing spaces); a bank holds each level once")


def _named(where: str | None, bid: str) -> str:
    return f"level {bid}" if where is None else f"{where}: level {bid!r}"


def check_design_options(args) -> None:
    """A design names its cohorts and certifies every level: ``--cohort`` and ``--max-nodes`` go with ``--levels``."""
    for option, dest in (("--cohort", "cohort"), ("--max-nodes", "max_nodes")):
        if args is not None and getattr(args, dest, None) is not None:
            raise UserError(f"{option} goes with --levels (a design names its cohorts and certifies every level)")


def design_pieces(design: SokobanDesign, progress: Progress | None = None, executor=None, args=None):
    """The domain's ``bank_pieces``: the bank of ``design`` as one table (levels are certified one box count at a
    time, in this process); a design's command line takes no ``--levels`` options."""
    check_design_options(args)
    yield build_sokoban_bank(design, progress=progress)


def demo_bank() -> pa.Table:
    """The default design's bank: the demo's."""
    return build_sokoban_bank(SOKOBAN_PAPER_DESIGN)


def warm_bank() -> pa.Table:
    """One level of each cell of the default design: every box count and depth of the demo's bank."""
    cells = tuple(replace(cell, count=1) for cell in SOKOBAN_PAPER_DESIGN.cells)
    return build_sokoban_bank(replace(SOKOBAN_PAPER_DESIGN, cells=cells))
