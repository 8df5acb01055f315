"""Bank designs: the paper's Appendix A and any custom design read from JSON.

A design is a seed, a board size and a list of cells, each asking for ``count`` distinct
certified boards of one layout at one depth, labelled with a cohort::

    {"seed": 7, "rows": 4, "cols": 4,
     "cells": [{"cohort": "primary", "blocks": [5, 10], "depth": 30, "count": 1000}]}
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .layout import Layout

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
_COHORT = re.compile(r"^[A-Za-z0-9_.]+$")
_MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class DesignCell:
    """``count`` distinct certified boards of ``layout`` at exact depth ``depth``."""

    cohort: str
    layout: Layout
    depth: int
    count: int

    @property
    def name(self) -> str:
        return f"{self.cohort}-k{self.layout.k}-d{self.depth}-{self.layout.tag}"


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
    for cohort, depths, ks in (("primary", PAPER_PRIMARY_DEPTHS, (0, 1, 2, 3)), ("stress", PAPER_STRESS_DEPTHS, (2, 3))):
        for depth in depths:
            for k in ks:
                layouts, quota = PAPER_LAYOUTS[k]
                for blocks in layouts:
                    cells.append(DesignCell(cohort, Layout(4, 4, blocks), depth, quota))
    return Design(seed=_check_seed(seed, "seed"), rows=4, cols=4, cells=tuple(cells))


def _check_seed(seed, where: str) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= _MAX_SEED:
        raise ValueError(f"{where}: the seed must be an integer in 0..2**63-1, got {seed!r}")
    return seed


def design_from_dict(spec, source: str = "design", seed: int | None = None) -> Design:
    """Validate a design given as a dict (as read from JSON); errors name the offending key."""
    if not isinstance(spec, dict):
        raise ValueError(f"{source}: a design is a JSON object with seed, rows, cols and cells")
    unknown = set(spec) - {"seed", "rows", "cols", "cells"}
    if unknown:
        raise ValueError(f"{source}: unknown keys {sorted(unknown)} (allowed: seed, rows, cols, cells)")
    if seed is None:
        if "seed" not in spec:
            raise ValueError(f"{source}: no seed (give \"seed\" in the file or --seed)")
        seed = spec["seed"]
    seed = _check_seed(seed, f"{source}: seed")
    rows, cols = spec.get("rows", 4), spec.get("cols", 4)
    cells_spec = spec.get("cells")
    if not isinstance(cells_spec, list) or not cells_spec:
        raise ValueError(f"{source}: cells must be a non-empty list")
    cells, seen = [], set()
    for i, cell in enumerate(cells_spec):
        where = f"{source}: cells[{i}]"
        if not isinstance(cell, dict):
            raise ValueError(f"{where} must be an object with cohort, blocks, depth, count")
        missing = {"cohort", "depth", "count"} - set(cell)
        if missing:
            raise ValueError(f"{where} is missing {sorted(missing)}")
        extra = set(cell) - {"cohort", "blocks", "depth", "count"}
        if extra:
            raise ValueError(f"{where} has unknown keys {sorted(extra)}")
        cohort = cell["cohort"]
        if not isinstance(cohort, str) or not _COHORT.match(cohort):
            raise ValueError(f"{where}.cohort must be a non-empty name of letters, digits, '_' or '.', got {cohort!r}")
        try:
            layout = Layout(rows, cols, tuple(cell.get("blocks", [])) if isinstance(cell.get("blocks", []), list) else cell["blocks"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: {exc}") from None
        for key, low in (("depth", 1), ("count", 1)):
            v = cell[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"{where}.{key} must be an integer >= {low}, got {v!r}")
        max_h = layout.tiles * int(layout.distances.max())
        if cell["depth"] > max_h:
            raise ValueError(f"{where}.depth {cell['depth']} exceeds the largest possible h ({max_h}) of this layout")
        key = (cohort, layout.blocks, cell["depth"])
        if key in seen:
            raise ValueError(f"{where} repeats cohort {cohort!r}, blocks {list(layout.blocks)}, depth {cell['depth']}: merge their counts")
        seen.add(key)
        cells.append(DesignCell(cohort, layout, cell["depth"], cell["count"]))
    return Design(seed=seed, rows=cells[0].layout.rows, cols=cells[0].layout.cols, cells=tuple(cells))


def load_design(name_or_path: str, seed: int | None = None) -> Design:
    """``"paper"`` for Appendix A, else a path to a JSON design file."""
    if name_or_path == "paper":
        return paper_design(PAPER_SEED if seed is None else seed)
    path = Path(name_or_path)
    if not path.is_file():
        raise ValueError(f"design {name_or_path!r} is neither 'paper' nor an existing JSON file")
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    return design_from_dict(spec, source=str(path), seed=seed)
