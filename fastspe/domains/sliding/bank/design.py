"""Bank designs: the paper's Appendix A and any custom design read from JSON.

A design is a seed, a board size and a list of cells, each asking for ``count`` distinct
certified boards of one layout at one depth, labelled with a cohort::

    {"seed": 7, "rows": 4, "cols": 4,
     "cells": [{"cohort": "primary", "blocks": [5, 10], "depth": 30, "count": 1000},
               {"cohort": "retreat", "blocks": [5, 10], "depth": 30, "retreat": 4, "count": 20}]}

A cell with ``retreat`` asks for boards whose optimal plan must undo the heuristic: d* = depth and
h = depth - retreat, certified by exact search (``fastspe.domains.sliding.bank.search``) instead of an h-walk
(``retreat`` 0 cells are built by h-walks, which certify d* = h without a search).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ....errors import UserError
from ...designs import check_cohort, check_seed, design_cells, design_seed, is_json_int, load_design_file
from ..layout import Layout

PAPER_SEED = 20261010
PAPER_PRIMARY_DEPTHS = (10, 20, 30, 40)
PAPER_STRESS_DEPTHS = (50, 60)
# Appendix A: block count -> (layouts, boards per layout and depth)
PAPER_LAYOUTS: dict[int, tuple[tuple[tuple[int, ...], ...], int]] = {
    0: (((),), 20),
    1: (((5,), (6,), (9,), (10,)), 5),
    2: (((5, 10), (6, 9)), 10),
    3: (((5, 6, 9), (5, 6, 10), (5, 9, 10), (6, 9, 10)), 5),
}
# The most boards one design may ask for: a bank this size already takes hours and tens of GB.
MAX_DESIGN_BOARDS = 100_000_000


@dataclass(frozen=True)
class DesignCell:
    """``count`` distinct certified boards of ``layout`` at exact depth ``depth``.

    ``retreat`` None: h-walk boards (h = d*); an even integer r: search-certified boards with
    h = depth - r (an optimal plan must raise h r / 2 times).
    """

    cohort: str
    layout: Layout
    depth: int
    count: int
    retreat: int | None = None

    @property
    def name(self) -> str:
        r = "" if self.retreat is None else f"-r{self.retreat}"
        return f"{self.cohort}-k{self.layout.k}-d{self.depth}{r}-{self.layout.tag}"


@dataclass(frozen=True)
class Design:
    seed: int
    rows: int = 4
    cols: int = 4
    cells: tuple[DesignCell, ...] = field(default_factory=tuple)

    @property
    def total(self) -> int:
        return sum(c.count for c in self.cells)


def paper_design(seed: int = PAPER_SEED) -> Design:
    """Appendix A: 320 primary boards (k 0..3 x d* 10..40) and 80 stress boards (k 2,3 x d* 50,60)."""
    cells = []
    for cohort, depths, ks in (
        ("primary", PAPER_PRIMARY_DEPTHS, (0, 1, 2, 3)),
        ("stress", PAPER_STRESS_DEPTHS, (2, 3)),
    ):
        for depth in depths:
            for k in ks:
                layouts, quota = PAPER_LAYOUTS[k]
                for blocks in layouts:
                    cells.append(DesignCell(cohort, Layout(4, 4, blocks), depth, quota))
    return Design(seed=check_seed(seed, "seed"), rows=4, cols=4, cells=tuple(cells))


def max_distinct_boards(layout: Layout, depth: int) -> int:
    """An upper bound on the distinct certified boards of ``layout`` at ``depth``, computed in microseconds.

    Every step of a certified walk raises h by one, so no step undoes the one before it: a board at
    depth d is the end of a non-backtracking walk of the blank, d steps long, from the goal's blank
    cell over the free cells. The number of such walks (a dynamic program over directed edges)
    bounds the boards, and so does (free cells)! / 2, the boards of one parity.
    """
    cols, cells = layout.cols, layout.cells
    free = [c for c in range(cells) if c not in set(layout.blocks)]
    free_set = set(free)

    def neighbours(c: int) -> list[int]:
        r, q = divmod(c, cols)
        around = [(r - 1, q), (r + 1, q), (r, q - 1), (r, q + 1)]
        return [
            rr * cols + qq
            for rr, qq in around
            if 0 <= rr < layout.rows and 0 <= qq < cols and rr * cols + qq in free_set
        ]

    adjacent = {c: neighbours(c) for c in free}
    # walks[(prev, here)]: non-backtracking walks of the current length ending with the step prev -> here
    walks = {(free[-1], nxt): 1 for nxt in adjacent[free[-1]]}  # the goal's blank sits on the last free cell
    for _ in range(depth - 1):
        step: dict = {}
        for (prev, here), n in walks.items():
            for nxt in adjacent[here]:
                if nxt != prev:
                    step[(here, nxt)] = step.get((here, nxt), 0) + n
        walks = step
    return min(sum(walks.values()), math.factorial(len(free)) // 2)


def design_from_dict(spec, source: str = "design", seed: int | None = None) -> Design:
    """Validate a design given as a dict (as read from JSON); errors name the offending key."""
    seed = design_seed(spec, source, seed, ("seed", "rows", "cols", "cells"), "a design")
    rows, cols = spec.get("rows", 4), spec.get("cols", 4)
    for key, value in (("rows", rows), ("cols", cols)):
        if not is_json_int(value):
            raise UserError(f"{source}: {key} must be an integer, got {value!r}")
    cells_spec = design_cells(spec, source)
    cells, seen = [], set()
    for i, cell in enumerate(cells_spec):
        where = f"{source}: cells[{i}]"
        if not isinstance(cell, dict):
            raise UserError(f"{where} must be an object with cohort, blocks, depth, count (and optional retreat)")
        missing = {"cohort", "depth", "count"} - set(cell)
        if missing:
            raise UserError(f"{where} is missing {sorted(missing)}")
        extra = set(cell) - {"cohort", "blocks", "depth", "count", "retreat"}
        if extra:
            raise UserError(f"{where} has unknown keys {sorted(extra)}")
        cohort = cell["cohort"]
        if not check_cohort(cohort):
            raise UserError(f"{where}.cohort must be a non-empty name of letters, digits, '_' or '.', got {cohort!r}")
        blocks = cell.get("blocks", [])
        if not isinstance(blocks, list):
            raise UserError(f"{where}.blocks must be a list of cell indices, got {blocks!r}")
        for j, b in enumerate(blocks):
            if not is_json_int(b):
                raise UserError(f"{where}.blocks[{j}] must be an integer cell index, got {b!r}")
        try:
            layout = Layout(rows, cols, tuple(blocks))
        except (TypeError, ValueError) as exc:
            raise UserError(f"{where}: {exc}") from None
        for key, low in (("depth", 1), ("count", 1)):
            v = cell[key]
            if not is_json_int(v) or v < low:
                raise UserError(f"{where}.{key} must be an integer >= {low}, got {v!r}")
        retreat = _check_retreat(cell, where)
        max_h = layout.tiles * int(layout.distances.max())
        if cell["depth"] - (retreat or 0) > max_h:
            raise UserError(f"{where}.depth {cell['depth']} exceeds the largest possible h ({max_h}) of this layout")
        if cell["count"] > MAX_DESIGN_BOARDS:
            raise UserError(
                f"{where}.count {cell['count']:,} exceeds the {MAX_DESIGN_BOARDS:,} boards a design may ask for"
            )
        most = max_distinct_boards(layout, cell["depth"])
        if cell["count"] > most:
            raise UserError(
                f"{where}.count {cell['count']:,} exceeds the at most {most:,} distinct boards that blocks "
                f"{list(layout.blocks)} can have at depth {cell['depth']}"
            )
        key = (cohort, layout.blocks, cell["depth"], retreat)
        if key in seen:
            also = "" if retreat is None else f", retreat {retreat}"
            raise UserError(
                f"{where} repeats cohort {cohort!r}, blocks {list(layout.blocks)}, depth {cell['depth']}"
                f"{also}: merge their counts"
            )
        seen.add(key)
        cells.append(DesignCell(cohort, layout, cell["depth"], cell["count"], retreat))
    total = sum(c.count for c in cells)
    if total > MAX_DESIGN_BOARDS:
        raise UserError(
            f"{source}: the cells ask for {total:,} boards in all; a design may ask for at most "
            f"{MAX_DESIGN_BOARDS:,} (split it into several banks)"
        )
    return Design(seed=seed, rows=cells[0].layout.rows, cols=cells[0].layout.cols, cells=tuple(cells))


def _check_retreat(cell: dict, where: str) -> int | None:
    """The cell's ``retreat`` (None when absent). Every move changes h by exactly one (grid graphs are
    bipartite), so d* and h have the same parity and d* - h is even; h = 0 only at the goal."""
    if "retreat" not in cell or cell["retreat"] is None:
        return None
    r = cell["retreat"]
    if not is_json_int(r) or r < 0:
        raise UserError(f"{where}.retreat must be an even integer >= 0, got {r!r}")
    if r % 2:
        raise UserError(f"{where}.retreat {r} is odd: every move changes h by one, so depth - h is always even")
    if r >= cell["depth"]:
        raise UserError(
            f"{where}.retreat {r} must be below depth {cell['depth']} (h = depth - retreat is 0 only at the goal)"
        )
    return r


def load_design(name_or_path: str | None = None, seed: int | None = None) -> Design:
    """``"paper"`` (the default) for Appendix A, else a path to a JSON design file."""
    named = {"paper": lambda s: paper_design(PAPER_SEED if s is None else s)}
    return load_design_file(name_or_path or "paper", named, design_from_dict, seed)
