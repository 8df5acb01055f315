"""Banks of given Sokoban levels (a published collection, a JSONL file): each certified by the exact solver.

``bank_from_levels`` solves every level for the bank's objective (``moves``: fewest moves, then fewest pushes;
``pushes``: fewest pushes, then fewest moves) and, where the solver offers both objectives, for the other one too,
so that every row records both optima (``columns``). A level that cannot be certified (over this build's size or
box limits, dead from the start, unsolvable, over the node limit, or refused: not closed by walls, solved at the
start, given twice, not XSB) stops the build with one error naming it; given a ``skipped`` list, it is appended
there as a ``SkippedLevel`` instead and the build goes on, so a whole collection banks what fits.
"""

from __future__ import annotations

import inspect
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import pyarrow as pa

from ...errors import UserError
from ..designs import check_cohort
from .columns import BANK_SCHEMA, OBJECTIVES, OPTIONAL_TYPES
from .level import LevelRefused, parse_level

__all__ = ["SkippedLevel", "SKIP_REASONS", "bank_from_levels", "push_objective_available", "skip_report"]

# why a level is not banked, in the order reports list them
SKIP_REASONS = ("too_big", "too_many_boxes", "dead", "unsolvable", "node_limit", "refused")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class SkippedLevel:
    """A given level left out of the bank: ``where`` it is ("FILE: line N", or None), its ``board_id``, ``reason``
    (one of ``SKIP_REASONS``) and the ``message`` that says why."""

    where: str | None
    board_id: str
    reason: str
    message: str

    @property
    def line(self) -> str:
        """One line of the skip report."""
        return f"{_named(self.where, self.board_id)}: {self.reason.replace('_', ' ')}: {self.message}"


def push_objective_available() -> bool:
    """Whether this build's solver certifies push-optimal plans (``solve_level(..., objective="pushes")``)."""
    from .solver import solve_level

    return "objective" in inspect.signature(solve_level).parameters


def _solve(level, node_limit, objective: str, watch=None):
    """The solver's answer for ``objective``; ``watch(progress)`` is passed on as the solver's ``progress`` where it
    takes one (called about twice a second during a long search)."""
    from .solver import solve_level

    if objective == OBJECTIVES[0] and not push_objective_available():
        return solve_level(level, node_limit)
    if watch is not None and "progress" in inspect.signature(solve_level).parameters:
        return solve_level(level, node_limit, objective=objective, progress=watch)
    return solve_level(level, node_limit, objective=objective)


def bank_from_levels(
    texts,
    ids=None,
    cohort: str = "custom",
    node_limit: int | None = None,
    where=None,
    progress: Progress | None = None,
    objective: str = "moves",
    skipped: list | None = None,
    searching: Callable | None = None,
) -> pa.Table:
    """A bank of given levels (XSB texts), each certified by the exact solver for ``objective`` (see the module
    docstring): ``depth`` its d* (moves, or pushes), ``certificate`` an optimal plan, ``pushes`` its pushes, and the
    optional ``objective`` and optima columns. ``ids`` default to COHORT-000, ...; ``where[i]`` (e.g. "FILE: line
    N") names level i in messages. A level that cannot be certified raises a ``UserError`` naming it, or, with
    ``skipped`` given, is appended to it (``SkippedLevel``) and left out. ``progress(levels_done, total)`` is called
    after each level, banked or not; ``searching(name, objective, search_progress)`` while a long search runs (where
    the solver reports one), ``name`` as messages name the level."""
    texts = list(texts)
    if objective not in OBJECTIVES:
        raise UserError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    both = push_objective_available()
    if objective != OBJECTIVES[0] and not both:
        raise UserError(
            "push-optimal solving needs a solver with the push objective (solve_level(..., "
            "objective='pushes')), which this build lacks: build with --objective moves"
        )
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
            raise UserError(
                f"{_named(where[j], bid)}: ids must be distinct, and level {first[bid] + 1} has this one"
                + (f" ({where[first[bid]]})" if where[first[bid]] else "")
            )
        first[bid] = j

    left_out: dict[int, SkippedLevel] = {}

    def leave_out(j: int, reason: str, message: str) -> None:
        if skipped is None:
            raise UserError(f"{_named(where[j], ids[j])}: {message}")
        left_out[j] = SkippedLevel(where[j], ids[j], reason, message)

    # every level is read before any is solved: a bad file fails in seconds, not after an hour
    levels: list = [None] * len(texts)
    seen: dict[str, int] = {}
    for j, text in enumerate(texts):
        try:
            level = parse_level(text)
        except LevelRefused as exc:
            leave_out(j, exc.kind, str(exc))
            continue
        except UserError as exc:  # not text at all
            leave_out(j, "refused", str(exc))
            continue
        # a level given twice (also drawn with other indentation or trailing spaces: the canonical text the bank
        # stores is the same) would weigh double in every mean; ``bank verify`` fails such a bank
        k = seen.setdefault(level.text, j)
        if k != j:
            leave_out(
                j,
                "refused",
                f"the same level as {_named(where[k], ids[k])} (equal up to indentation and "
                "trailing spaces); a bank holds each level once",
            )
            continue
        levels[j] = level
    rows = []
    for j, level in enumerate(levels):
        if level is not None:
            watch = (
                None
                if searching is None
                else (lambda goal, at, name=_named(where[j], ids[j]): searching(name, goal, at))
            )
            row = _certified(
                level, node_limit, objective, both, lambda reason, message: leave_out(j, reason, message), watch
            )
            if row is not None:
                rows.append((ids[j], cohort, *row))
        if progress is not None:
            progress(j + 1, len(texts))
    if skipped is not None:
        skipped.extend(left_out[j] for j in sorted(left_out))  # in file order
    return _table(rows, both)


def _certified(level, node_limit, objective: str, both: bool, leave_out, watch=None) -> tuple | None:
    """(depth, level text, boxes, certificate, pushes, objective, optima...) of one level, or None (left out)."""
    from .solver import SokobanUnsolved

    optima = {}
    for goal in (objective, *(o for o in OBJECTIVES if o != objective and both)):
        try:
            optima[goal] = _solve(level, node_limit, goal, None if watch is None else (lambda at, g=goal: watch(g, at)))
        except SokobanUnsolved as exc:
            leave_out(exc.kind, str(exc) if goal == objective else f"{exc} (solving for fewest {goal})")
            return None
    sol = optima[objective]
    depth = sol.length if objective == "moves" else sol.pushes
    row = (depth, level.text, len(level.boxes), sol.moves.replace(",", ""), sol.pushes, objective)
    for goal in OBJECTIVES:
        if goal in optima:
            row += (optima[goal].length, optima[goal].pushes)
    return row


def _table(rows: list[tuple], both: bool) -> pa.Table:
    names = list(BANK_SCHEMA.names) + ["objective", "move_optimal_moves", "move_optimal_pushes"]
    if both:
        names += ["push_optimal_moves", "push_optimal_pushes"]
    schema = pa.schema(
        [BANK_SCHEMA.field(n) if n in BANK_SCHEMA.names else pa.field(n, OPTIONAL_TYPES[n]) for n in names],
        metadata=BANK_SCHEMA.metadata,
    )
    return pa.table({name: [r[k] for r in rows] for k, name in enumerate(names)}, schema=schema)


def skip_report(skipped: list[SkippedLevel], total: int) -> list[str]:
    """The lines that report the levels left out of a bank: a count by reason, then one line per level."""
    if not skipped:
        return []
    counts = Counter(s.reason for s in skipped)
    by_reason = ", ".join(f"{counts[r]} {r.replace('_', ' ')}" for r in SKIP_REASONS if counts[r])
    return [f"skipped {len(skipped):,} of {total:,} levels ({by_reason}):"] + [f"  {s.line}" for s in skipped]


def _named(where: str | None, bid: str) -> str:
    return f"level {bid}" if where is None else f"{where}: level {bid!r}"
