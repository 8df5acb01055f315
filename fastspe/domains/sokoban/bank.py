"""Certified Sokoban banks: levels by reverse play, each certified move-optimal by the exact solver.

A design is a seed and cells, each asking for ``count`` distinct levels with ``boxes`` boxes and either exactly
``depth`` fewest moves (d*) or exactly ``pushes`` pushes in the certified plan (any d*), labelled with a cohort;
a depth cell may set a floor ``min_pushes`` (no level with fewer pushes) and any cell may name ``templates``,
fixed rooms (``templates.ROOM_TEMPLATES``) that each get ``count / len(templates)`` of its levels::

    {"seed": 7, "cells": [{"cohort": "primary", "boxes": 2, "depth": 20, "count": 20, "min_pushes": 6,
                           "templates": ["zigzag", "galleries", "two-rooms", "alcoves"]},
                          {"cohort": "pushes", "boxes": 1, "pushes": 8, "count": 10}]}

"Pushes" are the pushes of the certified plan: the plan with the fewest moves, and among those the fewest pushes
(the bank's ``pushes`` column). A cell without templates has rooms carved at random.

Levels of one box count in one kind of room come from one stream of rooms (``kernels.walks``): room i is keyed by
(seed, stream, i), stream = boxes for carved rooms and boxes + 16 (1 + the template's index) for a template, and
offers one level for each target (layer, floor, pushes) its cells still lack, drawn from a breadth-first reverse
play from the solved states. Rooms are taken in order; a level goes to the first cell (design order) of its box
count, room and target still short, unless the same level text was taken before. Every level is then solved by
``solver`` (A*, a different search from the reverse play): it is kept only when the solver's d* and pushes equal
the reverse play's, and the solver's plan is its certificate. A cell's levels are listed template by template in
its order. Nothing depends on the thread count or the machine, so a bank is bit-identical for a seed; a design
with neither floors nor templates builds the bank it built before they existed.
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
from .templates import ROOM_TEMPLATES, check_template_names, template_walls

__all__ = [
    "SokobanCell",
    "SokobanDesign",
    "SOKOBAN_PAPER_SEED",
    "SOKOBAN_PAPER_DESIGN",
    "sokoban_paper_design",
    "sokoban_carved_design",
    "sokoban_design_from_dict",
    "load_sokoban_design",
    "build_sokoban_bank",
    "bank_from_levels",
    "xsb_text",
]  # bank_from_levels: given levels' banks, from ``given`` (kept for old imports)

SOKOBAN_PAPER_SEED = 20261010
MAX_DEPTH = 120  # the deepest cell a design may ask for: deeper layers are rarely reached in a 10 x 10 room
MAX_COUNT = 100_000
MAX_BOXES = 4  # designed levels: the batched move-level search that certifies them (solver.solve_levels) takes 1-4
ROOM_SIDES = (7, 10)  # rooms are 7..10 cells a side, walls included
REVERSE_CAP = 1_500_000  # states one room's reverse play may store (about 20 MB)
CERTIFY_LIMIT = 8_000_000  # states the solver may store certifying one level; a level over it is skipped
ROOMS_PER_LEVEL = 200  # rooms tried per level asked for before a box count gives up
FIRST_ROOMS, MAX_ROOMS = 8, 256  # rooms per kernel call: doubling from the first
DEFAULT_TEMPLATES = ("zigzag", "galleries", "two-rooms", "alcoves")
PUSH_FLOORS = {10: 3, 20: 6, 30: 9, 40: 12, 50: 15, 60: 18}  # the default design's floor on pushes, by d*

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class SokobanCell:
    """``count`` distinct levels with ``boxes`` boxes and d* = ``depth`` fewest moves (a depth cell), or with
    exactly ``pushes`` pushes in the certified plan at any d* (a pushes cell, ``depth`` None). A depth cell's
    levels have at least ``min_pushes`` pushes. With ``templates`` the rooms are those templates
    (``domains.sokoban.templates``), ``count / len(templates)`` levels in each; without, carved at random."""

    cohort: str
    boxes: int
    depth: int | None
    count: int
    pushes: int | None = None
    min_pushes: int = 0
    templates: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.cohort}-b{self.boxes}-" + (f"p{self.pushes}" if self.depth is None else f"d{self.depth}")

    @property
    def target(self) -> tuple[int, int, int]:
        """The reverse play's target (layer, floor, pushes) (``kernels.walks``)."""
        return (-1, 0, self.pushes) if self.depth is None else (self.depth, self.min_pushes, -1)


@dataclass(frozen=True)
class SokobanDesign:
    seed: int
    cells: tuple[SokobanCell, ...]

    @property
    def total(self) -> int:
        return sum(c.count for c in self.cells)


def sokoban_paper_design(seed: int = SOKOBAN_PAPER_SEED) -> SokobanDesign:
    """The default design, the paper's shape with a horizon that means planning: 320 primary levels (boxes 1..4 x
    d* 10, 20, 30, 40, 20 each) and 80 stress levels (boxes 2, 3 x d* 50, 60, 20 each), every cell over the four
    ``DEFAULT_TEMPLATES`` (five levels each) and with a floor on pushes, ``PUSH_FLOORS``
    (docs/sokoban-design.md)."""
    cells = [
        SokobanCell("primary", b, d, 20, min_pushes=PUSH_FLOORS[d], templates=DEFAULT_TEMPLATES)
        for d in (10, 20, 30, 40)
        for b in (1, 2, 3, 4)
    ]
    cells += [
        SokobanCell("stress", b, d, 20, min_pushes=PUSH_FLOORS[d], templates=DEFAULT_TEMPLATES)
        for d in (50, 60)
        for b in (2, 3)
    ]
    return SokobanDesign(check_seed(seed, "seed"), tuple(cells))


def sokoban_carved_design(seed: int = SOKOBAN_PAPER_SEED) -> SokobanDesign:
    """The first default design (``sokoban-paper-v1``): the same cells in rooms carved at random, no push floor."""
    cells = [SokobanCell("primary", b, d, 20) for d in (10, 20, 30, 40) for b in (1, 2, 3, 4)]
    cells += [SokobanCell("stress", b, d, 20) for d in (50, 60) for b in (2, 3)]
    return SokobanDesign(check_seed(seed, "seed"), tuple(cells))


SOKOBAN_PAPER_DESIGN = sokoban_paper_design()

_CELL_KEYS = {"cohort", "boxes", "depth", "pushes", "count", "min_pushes", "templates"}


def sokoban_design_from_dict(spec, source: str = "design", seed: int | None = None) -> SokobanDesign:
    """Validate a Sokoban design given as a dict (as read from JSON); errors name the offending key."""
    seed = design_seed(spec, source, seed, ("seed", "cells"), "a Sokoban design")
    cells_spec = design_cells(spec, source)
    cells, seen = [], set()
    for i, cell in enumerate(cells_spec):
        where = f"{source}: cells[{i}]"
        if not isinstance(cell, dict):
            raise UserError(f"{where} must be an object with cohort, boxes, depth (or pushes) and count")
        missing = {"cohort", "boxes", "count"} - set(cell)
        if missing:
            raise UserError(f"{where} is missing {sorted(missing)}")
        extra = set(cell) - _CELL_KEYS
        if extra:
            raise UserError(
                f"{where} has unknown keys {sorted(extra)} (allowed: cohort, boxes, depth or pushes, "
                f"count, min_pushes, templates)"
            )
        if ("depth" in cell) == ("pushes" in cell):
            raise UserError(f"{where} needs exactly one of depth (d*, fewest moves) and pushes (of the certified plan)")
        cohort = cell["cohort"]
        if not isinstance(cohort, str) or not check_cohort(cohort):
            raise UserError(f"{where}.cohort must be a non-empty name of letters, digits, '_' or '.', got {cohort!r}")
        horizon = "depth" if "depth" in cell else "pushes"
        for key, low, high in (("boxes", 1, MAX_BOXES), (horizon, 1, MAX_DEPTH), ("count", 1, MAX_COUNT)):
            v = cell[key]
            if not is_json_int(v) or not low <= v <= high:
                raise UserError(f"{where}.{key} must be an integer in {low}..{high}, got {v!r}")
        floor = cell.get("min_pushes", 0)
        if "min_pushes" in cell:
            if horizon == "pushes":
                raise UserError(f"{where}.min_pushes goes with depth (a pushes cell fixes its pushes)")
            if not is_json_int(floor) or not 0 <= floor <= cell["depth"]:
                raise UserError(f"{where}.min_pushes must be an integer in 0..depth ({cell['depth']}), got {floor!r}")
        templates = ()
        if "templates" in cell:
            templates = check_template_names(cell["templates"], f"{where}.templates")
            if cell["count"] % len(templates):
                raise UserError(
                    f"{where}.count ({cell['count']}) must be a multiple of the {len(templates)} "
                    "templates: each template gets the same number of levels"
                )
        key = (cohort, cell["boxes"], horizon, cell[horizon])
        if key in seen:
            raise UserError(
                f"{where} repeats cohort {cohort!r}, boxes {cell['boxes']}, {horizon} {cell[horizon]}: "
                f"merge their counts"
            )
        seen.add(key)
        cells.append(
            SokobanCell(cohort, cell["boxes"], cell.get("depth"), cell["count"], cell.get("pushes"), floor, templates)
        )
    return SokobanDesign(seed, tuple(cells))


def load_sokoban_design(name_or_path: str | None = None, seed: int | None = None) -> SokobanDesign:
    """``"sokoban-paper"`` (the default; ``"paper"`` too, as the sliding puzzle's design is called) for the
    default design, ``"sokoban-paper-v1"`` for the first one (carved rooms, no push floor), else a path to a JSON
    design file."""
    paper = lambda s: sokoban_paper_design(SOKOBAN_PAPER_SEED if s is None else s)  # noqa: E731
    carved = lambda s: sokoban_carved_design(SOKOBAN_PAPER_SEED if s is None else s)  # noqa: E731
    return load_design_file(
        name_or_path or "sokoban-paper",
        {"sokoban-paper": paper, "paper": paper, "sokoban-paper-v1": carved},
        sokoban_design_from_dict,
        seed,
    )


def xsb_text(wall, goal, boxes, player: int, rows: int, cols: int) -> str:
    """The XSB drawing of a level given as arrays (cells row-major over ``cols``)."""
    chars = np.where(np.asarray(wall[: rows * cols]), "#", " ").astype("<U1")
    chars[np.asarray(goal[: rows * cols], dtype=bool)] = "."
    for b in boxes:
        chars[b] = "*" if goal[b] else "$"
    chars[player] = "+" if goal[player] else "@"
    return "\n".join("".join(chars[r * cols : (r + 1) * cols]).rstrip() for r in range(rows))


def _room_levels(
    boxes: int,
    template: str | None,
    members: list[tuple[int, SokobanCell, int]],
    seed: int,
    taken: set,
    progress: Progress | None,
):
    """Fill the cells of one box count in one kind of room (a template, or carved: None): members are (design
    index, cell, quota); returns {design index: [(text, plan, pushes, depth)]}."""
    from .kernels.walks import CELLS, propose_levels

    if template is None:
        walls, t_rows, t_cols = np.ones(CELLS, dtype=np.bool_), 0, 0
        stream = boxes
    else:
        walls, t_rows, t_cols = template_walls(template, CELLS)
        stream = boxes + 16 * (1 + list(ROOM_TEMPLATES).index(template))  # carved rooms keep stream = boxes
    have: dict[int, list] = {i: [] for i, _, _ in members}
    need = sum(q for _, _, q in members)
    cap = ROOMS_PER_LEVEL * need
    start, chunk = 0, FIRST_ROOMS
    while start < cap and any(len(have[i]) < q for i, _, q in members):
        n = min(chunk, cap - start)
        # only the targets of cells still short: reverse play stops at the deepest of them (a target's level in a
        # room does not depend on the others, so the bank is the same)
        targets = sorted({c.target for i, c, q in members if len(have[i]) < q}, key=lambda t: (t[0] < 0, t))
        rooms = propose_levels(
            boxes,
            ROOM_SIDES[0],
            ROOM_SIDES[1],
            walls,
            t_rows,
            t_cols,
            np.array(targets, dtype=np.int64),
            REVERSE_CAP,
            seed,
            stream,
            start,
            n,
        )
        start += n
        chunk = min(2 * chunk, MAX_ROOMS)
        wanted = _take_levels(rooms, targets, members, have, taken)
        if wanted:
            _certify(wanted, have, progress, need)
    for i, cell, quota in members:
        if len(have[i]) < quota:
            room = "" if template is None else f" in template {template!r}"
            raise QuotaError(
                f"cell {cell.name}: only {len(have[i])} of {quota} levels{room} after {start:,} rooms; "
                f"ask for fewer levels, another depth or a lower push floor (deep levels are rare, and "
                f"so are very shallow ones with many boxes)"
            )
    return have


def _take_levels(rooms, targets, members, have, taken) -> list:
    """The proposed levels the cells still lack, in room order: (design index, text, level, depth, pushes). A
    level goes to the first cell (design order) of its target still short, unless its text was taken before."""
    walls, goals, rows, cols, players, boxes_at, layers, pushes = rooms
    short = {i: q - len(have[i]) for i, _, q in members}
    wanted = []
    for r in range(players.shape[0]):
        for k, target in enumerate(targets):
            if players[r, k] < 0:
                continue
            into = next((i for i, c, _ in members if c.target == target and short[i] > 0), None)
            if into is None:
                continue
            level = parse_level(
                xsb_text(walls[r], goals[r], boxes_at[r, k], int(players[r, k]), int(rows[r]), int(cols[r]))
            )
            if level.text in taken:
                continue
            taken.add(level.text)
            short[into] -= 1
            wanted.append((into, level.text, level, int(layers[r, k]), int(pushes[r, k])))
    return wanted


def _certify(wanted, have, progress, need) -> None:
    """Solve each proposed level; keep it with the solver's plan when d* and pushes are the reverse play's."""
    from .kernels.search import FOUND, NODE_LIMIT
    from .solver import solve_levels

    status, lengths, pushes, _, plans = solve_levels([w[2] for w in wanted], CERTIFY_LIMIT, max(w[3] for w in wanted))
    for j, (into, text, _, depth, pulls) in enumerate(wanted):
        if status[j] == NODE_LIMIT:  # too costly to certify: skipped (the same on every machine)
            continue
        if status[j] != FOUND or lengths[j] != depth or pushes[j] != pulls:  # two exact searches disagree: a bug
            raise RuntimeError(
                f"reverse play put a level at depth {depth} with {pulls} pushes but the solver says "
                f"status {status[j]}, length {lengths[j]}, pushes {pushes[j]}:\n{text}"
            )
        have[into].append((text, "".join(DIRECTIONS[int(d)] for d in plans[j, :depth]), int(pushes[j]), depth))
        if progress is not None:
            progress(1, need)


def build_sokoban_bank(design: SokobanDesign, seed: int | None = None, progress: Progress | None = None) -> pa.Table:
    """The certified bank of ``design`` (its seed, or ``seed``) as an Arrow table with ``domains.sokoban.columns.BANK_COLUMNS``,
    cells in design order, a cell's levels template by template; ``progress(levels_done, total)`` is called as
    levels are certified."""
    seed = design.seed if seed is None else check_seed(seed, "seed")
    done = [0]

    def tick(n: int, _):
        done[0] += n
        if progress is not None:
            progress(done[0], design.total)

    groups: dict[tuple[int, str | None], list] = {}  # (boxes, template) -> [(design index, cell, quota)]
    for i, cell in enumerate(design.cells):
        for template in cell.templates or (None,):
            quota = cell.count // len(cell.templates) if cell.templates else cell.count
            groups.setdefault((cell.boxes, template), []).append((i, cell, quota))
    order = list(ROOM_TEMPLATES)
    taken: set = set()
    levels: dict[tuple[int, str | None], list] = {}  # (design index, template) -> levels
    for boxes, template in sorted(groups, key=lambda g: (g[0], -1 if g[1] is None else order.index(g[1]))):
        for i, got in _room_levels(boxes, template, groups[boxes, template], seed, taken, tick).items():
            levels[i, template] = got
    rows = []
    for i, cell in enumerate(design.cells):
        width = max(3, len(str(cell.count - 1)))
        got = [level for template in cell.templates or (None,) for level in levels[i, template]]
        rows += [
            (f"{cell.name}-{j:0{width}d}", cell.cohort, depth, text, cell.boxes, plan, pushes)
            for j, (text, plan, pushes, depth) in enumerate(got)
        ]
    return _table(rows)


def _table(rows: list[tuple]) -> pa.Table:
    return pa.table({name: [r[k] for r in rows] for k, name in enumerate(BANK_COLUMNS)}, schema=BANK_SCHEMA)


def check_design_options(args) -> None:
    """A design names its cohorts and certifies every level: ``--cohort``, ``--max-nodes``, ``--skip-unsolved`` and
    ``--objective`` go with ``--levels``."""
    for option, dest in (
        ("--cohort", "cohort"),
        ("--max-nodes", "max_nodes"),
        ("--skip-unsolved", "skip_unsolved"),
        ("--objective", "objective"),
    ):
        if args is not None and getattr(args, dest, None) not in (None, False):
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
    """One level of each cell of the default design: every box count and depth of the demo's bank (in the cell's
    first template)."""
    cells = tuple(replace(cell, count=1, templates=cell.templates[:1]) for cell in SOKOBAN_PAPER_DESIGN.cells)
    return build_sokoban_bank(replace(SOKOBAN_PAPER_DESIGN, cells=cells))


from .given import bank_from_levels  # noqa: E402  (given levels' banks live in ``given``; old imports find them here)
