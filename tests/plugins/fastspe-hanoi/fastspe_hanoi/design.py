"""Hanoi bank designs: a seed and cells, each asking for ``count`` distinct states of ``disks`` disks at exactly
``depth`` moves from the goal under ``rule``, labelled with a cohort::

    {"seed": 7, "cells": [{"cohort": "primary", "disks": 4, "rule": "adjacent", "depth": 20, "count": 1},
                          {"cohort": "primary", "disks": 4, "rule": "classic", "depth": 7, "count": 8}]}

How many states a cell can give is exact and small: under ``adjacent`` the state graph is one path, so every depth
up to 3**n - 1 holds exactly one state; under ``classic`` depth d (up to 2**n - 1) holds 2**(ones in d's binary
digits). The builder says so (``QuotaError``) when a cell asks for more.

The ``paper`` design takes one state per (disks, rule, depth), so every stratum (cohort x disks x depth) holds one
state of each rule, and its depths lie in the upper half of the classic range, 2**(n-1)..2**n - 1, where every
classic state has its largest disk still to move: cohort ``primary``, n = 3, 4, 5 at depths 2**n - 1 - j 2**(n-3)
(j = 0..3: 7 6 5 4, 15 13 11 9, 31 27 23 19), and cohort ``stress``, n = 6, 7 at j = 0 and 2 (63 47, 127 95);
32 states in all. (One state per cell because the adjacent rule has no more: see above.)
"""

from __future__ import annotations

from dataclasses import dataclass

from fastspe.domains.designs import check_cohort, check_seed, design_cells, design_seed, is_json_int, load_design_file
from fastspe.errors import UserError

from .rules import MAX_DISKS, RULES, max_depth

__all__ = ["HanoiCell", "HanoiDesign", "PAPER_SEED", "MAX_COUNT", "paper_design", "design_from_dict", "load_design"]

PAPER_SEED = 20261010
MAX_COUNT = 59_049  # no cell can give more (3**10 states in all)
_KEYS = ("cohort", "disks", "rule", "depth", "count")


@dataclass(frozen=True)
class HanoiCell:
    """``count`` distinct states of ``disks`` disks with d* = ``depth`` under ``rule``."""

    cohort: str
    disks: int
    rule: str
    depth: int
    count: int

    @property
    def name(self) -> str:
        return f"{self.cohort}-n{self.disks}-{self.rule}-d{self.depth}"


@dataclass(frozen=True)
class HanoiDesign:
    seed: int
    cells: tuple[HanoiCell, ...]

    @property
    def total(self) -> int:
        return sum(c.count for c in self.cells)


def paper_design(seed: int = PAPER_SEED) -> HanoiDesign:
    """The default design (see the module docstring): small enough to build in well under a second."""

    def depth(n: int, j: int) -> int:
        return 2**n - 1 - j * 2 ** (n - 3)

    cells = [HanoiCell("primary", n, rule, depth(n, j), 1) for n in (3, 4, 5) for j in range(4) for rule in RULES]
    cells += [HanoiCell("stress", n, rule, depth(n, j), 1) for n in (6, 7) for j in (0, 2) for rule in RULES]
    return HanoiDesign(check_seed(seed, "seed"), tuple(cells))


def design_from_dict(spec, source: str = "design", seed: int | None = None) -> HanoiDesign:
    """Validate a design given as a dict (as read from JSON); errors name the offending key."""
    seed = design_seed(spec, source, seed, ("seed", "cells"), "a Hanoi design")
    cells, seen = [], set()
    for i, cell in enumerate(design_cells(spec, source)):
        where = f"{source}: cells[{i}]"
        if not isinstance(cell, dict):
            raise UserError(f"{where} must be an object with {', '.join(_KEYS)}")
        missing, extra = set(_KEYS) - set(cell), set(cell) - set(_KEYS)
        if missing:
            raise UserError(f"{where} is missing {sorted(missing)}")
        if extra:
            raise UserError(f"{where} has unknown keys {sorted(extra)} (allowed: {', '.join(_KEYS)})")
        if not check_cohort(cell["cohort"]):
            raise UserError(
                f"{where}.cohort must be a non-empty name of letters, digits, '_' or '.', got {cell['cohort']!r}"
            )
        if cell["rule"] not in RULES:
            raise UserError(f"{where}.rule must be one of {', '.join(RULES)}, got {cell['rule']!r}")
        disks = cell["disks"]
        if not is_json_int(disks) or not 1 <= disks <= MAX_DISKS:
            raise UserError(f"{where}.disks must be an integer in 1..{MAX_DISKS}, got {disks!r}")
        deepest = max_depth(disks, cell["rule"])
        for key, low, high in (("depth", 0, deepest), ("count", 1, MAX_COUNT)):
            v = cell[key]
            if not is_json_int(v) or not low <= v <= high:
                why = f" (the deepest state of {disks} disks under {cell['rule']})" if key == "depth" else ""
                raise UserError(f"{where}.{key} must be an integer in {low}..{high}{why}, got {v!r}")
        key = (cell["cohort"], disks, cell["rule"], cell["depth"])
        if key in seen:
            raise UserError(
                f"{where} repeats cohort {key[0]!r}, disks {disks}, rule {key[2]}, depth {key[3]}: merge their counts"
            )
        seen.add(key)
        cells.append(HanoiCell(*key, cell["count"]))
    return HanoiDesign(seed, tuple(cells))


def load_design(spec: str | None = None, seed: int | None = None) -> HanoiDesign:
    """``None`` or ``"paper"``: the default design; else a path to a JSON design file."""
    named = {"paper": lambda s: paper_design(PAPER_SEED if s is None else s)}
    return load_design_file(spec or "paper", named, design_from_dict, seed)
