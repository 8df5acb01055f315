"""Sokoban bank tables checked once: columns, types, nulls, and what each row says of its level.

A Sokoban bank (``fastspe bank build --domain sokoban``) has one row per level: ``board_id``, ``cohort``,
``depth`` (the certified fewest moves d*), ``level`` (XSB text), ``boxes`` (the second stratum),
``certificate`` (an optimal plan, ``U,D,L,R`` letters, commas allowed) and ``pushes`` (the certificate's
pushes), and the optional ``objective`` and the two optima's moves and pushes (``columns``). Its Parquet schema
metadata says ``fastspe.domain: sokoban`` (``boundary.banks`` records it).

``check_sokoban_bank_table`` is the cheap check every reader, ``score`` and ``run`` rely on: each level
parses (1-4 boxes, as many goals, one player), ``boxes`` is its box count, ids unique and not empty, and the
numbers agree with the objective: for ``moves`` (the default) ``depth`` is the certificate's move count and
``0 <= pushes <= depth``; for ``pushes`` ``depth`` is ``pushes`` and at most the certificate's moves; the optima's
columns, where present, say the same and the move optimum is never longer nor the push optimum pushier than the
other. An optional column is kept when some row fills it, and must then be filled on every row; a bank holds one
objective. Replaying the certificate and re-deriving d* are ``fastspe bank verify``'s (``verify.sokoban_bank``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...boundary.bank_rows import check_ids, rows_to_check, typed_columns
from ...errors import UserError
from .columns import BANK_COLUMNS, OBJECTIVES, OPTIMUM_COLUMNS, OPTIONAL_COLUMNS
from .level import parse_level

__all__ = ["check_sokoban_bank_table", "plan_lengths", "bank_objective"]

_TEXT = ("board_id", "cohort", "level", "certificate")
_INT = ("depth", "boxes", "pushes")


def plan_lengths(plans: pa.Array) -> np.ndarray:
    """int64 (n,): the moves in each plan text (its letters; commas and spaces do not count)."""
    letters = pc.replace_substring_regex(plans, r"[,\s]", "")
    return pc.utf8_length(letters).to_numpy(zero_copy_only=False).astype(np.int64)


def check_sokoban_bank_table(
    table: pa.Table, source: str = "bank", unit: str = "row", line_of=None, meaning: bool = True, fresh: bool = False
) -> pa.Table:
    """Check a Sokoban bank table and return it in canonical types (text as ``string``, counts ``int64``): the
    domain's ``check_bank``. ``InputError`` names ``source``, the row and the board id."""
    names = BANK_COLUMNS + tuple(
        c for c in OPTIONAL_COLUMNS if c in table.column_names and table.column(c).null_count < table.num_rows
    )
    at = rows_to_check(
        table,
        BANK_COLUMNS,
        source,
        unit,
        line_of,
        what="Sokoban bank",
        make="`fastspe bank build --domain sokoban`",
        rows="levels",
        filled=names,
    )
    cols = typed_columns(table, names, _TEXT + ("objective",), at, fresh)
    out = pa.table(cols)
    if "objective" in cols:
        objective = cols["objective"].to_numpy(zero_copy_only=False)
        at.first(
            ~np.isin(objective, OBJECTIVES),
            lambda i: f"objective is {objective[i]!r}, must be one of {', '.join(OBJECTIVES)}",
        )
        at.first(
            objective != objective[0],
            lambda i: f"objective is {objective[i]!r} but row 1's is {objective[0]!r}: a bank certifies one objective",
        )
    if not meaning:
        return out
    ints = {name: cols[name].to_numpy() for name in _INT + OPTIMUM_COLUMNS if name in cols}
    check_ids(cols["board_id"], at)
    moves = plan_lengths(cols["certificate"])
    depth, pushes = ints["depth"], ints["pushes"]
    if bank_objective(out) == "moves":
        at.first(moves != depth, lambda i: f"depth is {depth[i]} but the certificate has {moves[i]} moves")
        at.first((pushes < 0) | (pushes > depth), lambda i: f"pushes is {pushes[i]}, must be 0..depth ({depth[i]})")
        same = (("move_optimal_moves", moves), ("move_optimal_pushes", pushes))
    else:  # d* counts pushes: the certificate pushes depth times, in at least as many moves
        at.first(
            pushes != depth,
            lambda i: f"the bank certifies fewest pushes, so depth ({depth[i]}) must equal pushes ({pushes[i]})",
        )
        at.first(
            (depth < 0) | (moves < depth),
            lambda i: f"depth is {depth[i]}, must be 0..the certificate's moves ({moves[i]})",
        )
        same = (("push_optimal_moves", moves), ("push_optimal_pushes", pushes))
    for name, value in same:  # the certificate is the objective's optimum: its moves and pushes
        if name in ints:
            at.first(
                ints[name] != value, lambda i, n=name, v=value: f"{n} is {ints[n][i]} but the certificate's is {v[i]}"
            )
    bad_letter = pc.match_substring_regex(cols["certificate"], r"[^UDLR,\s]").to_numpy(zero_copy_only=False)
    at.first(bad_letter, lambda i: "the certificate holds a letter that is not U, D, L or R")
    for prefix in ("move_optimal", "push_optimal"):
        if f"{prefix}_moves" in ints and f"{prefix}_pushes" in ints:
            m, p = ints[f"{prefix}_moves"], ints[f"{prefix}_pushes"]
            at.first(
                (p < 0) | (p > m), lambda i, x=prefix, m=m, p=p: f"{x}_pushes is {p[i]}, must be 0..{x}_moves ({m[i]})"
            )
    for name, other, worse in (
        ("move_optimal_moves", "push_optimal_moves", "longer"),
        ("push_optimal_pushes", "move_optimal_pushes", "pushier"),
    ):
        if name in ints and other in ints:
            at.first(
                ints[name] > ints[other],
                lambda i, n=name, o=other, w=worse: f"{n} ({ints[n][i]}) is {w} than {o} ({ints[o][i]})",
            )
    for i, text in enumerate(cols["level"].to_pylist()):  # a level is parsed in Python: levels are few
        try:
            level = parse_level(text)
        except UserError as exc:
            raise at.error(i, f"level: {exc}") from None
        if len(level.boxes) != ints["boxes"][i]:
            raise at.error(i, f"boxes is {ints['boxes'][i]} but the level has {len(level.boxes)}")
    return out


def bank_objective(table: pa.Table) -> str:
    """What a checked bank certifies: its ``objective`` column's (one per bank), else ``moves``."""
    if "objective" not in table.column_names or table.num_rows == 0:
        return OBJECTIVES[0]
    return table.column("objective")[0].as_py() or OBJECTIVES[0]
