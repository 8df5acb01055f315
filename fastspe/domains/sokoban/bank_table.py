"""Sokoban bank tables checked once: columns, types, nulls, and what each row says of its level.

A Sokoban bank (``fastspe bank build --domain sokoban``) has one row per level: ``board_id``, ``cohort``,
``depth`` (the certified fewest moves d*), ``level`` (XSB text), ``boxes`` (the second stratum),
``certificate`` (an optimal plan, ``U,D,L,R`` letters, commas allowed) and ``pushes`` (the certificate's
pushes). Its Parquet schema metadata says ``fastspe.domain: sokoban`` (``boundary.banks`` records it).

``check_sokoban_bank_table`` is the cheap check every reader, ``score`` and ``run`` rely on: each level
parses (1-4 boxes, as many goals, one player), ``boxes`` is its box count, ``depth`` the certificate's
move count, ``0 <= pushes <= depth``, ids unique and not empty. Replaying the certificate and re-deriving
d* are ``fastspe bank verify``'s (``verify.sokoban_bank``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...boundary.bank_rows import check_ids, rows_to_check, typed_columns
from ...errors import UserError
from .columns import BANK_COLUMNS
from .level import parse_level

__all__ = ["check_sokoban_bank_table", "plan_lengths"]

_TEXT = ("board_id", "cohort", "level", "certificate")
_INT = ("depth", "boxes", "pushes")


def plan_lengths(plans: pa.Array) -> np.ndarray:
    """int64 (n,): the moves in each plan text (its letters; commas and spaces do not count)."""
    letters = pc.replace_substring_regex(plans, r"[,\s]", "")
    return pc.utf8_length(letters).to_numpy(zero_copy_only=False).astype(np.int64)


def check_sokoban_bank_table(table: pa.Table, source: str = "bank", unit: str = "row", line_of=None,
                             meaning: bool = True, fresh: bool = False) -> pa.Table:
    """Check a Sokoban bank table and return it in canonical types (text as ``string``, counts ``int64``): the
    domain's ``check_bank``. ``InputError`` names ``source``, the row and the board id."""
    at = rows_to_check(table, BANK_COLUMNS, source, unit, line_of, what="Sokoban bank",
                       make="`fastspe bank build --domain sokoban`", rows="levels")
    cols = typed_columns(table, BANK_COLUMNS, _TEXT, at, fresh)
    out = pa.table(cols)
    if not meaning:
        return out
    ints = {name: cols[name].to_numpy() for name in _INT}
    check_ids(cols["board_id"], at)
    moves = plan_lengths(cols["certificate"])
    at.first(moves != ints["depth"], lambda i: f"depth is {ints['depth'][i]} but the certificate has {moves[i]} moves")
    at.first((ints["pushes"] < 0) | (ints["pushes"] > ints["depth"]),
             lambda i: f"pushes is {ints['pushes'][i]}, must be 0..depth ({ints['depth'][i]})")
    bad_letter = pc.match_substring_regex(cols["certificate"], r"[^UDLR,\s]").to_numpy(zero_copy_only=False)
    at.first(bad_letter, lambda i: "the certificate holds a letter that is not U, D, L or R")
    for i, text in enumerate(cols["level"].to_pylist()):  # a level is parsed in Python: levels are few
        try:
            level = parse_level(text)
        except UserError as exc:
            raise at.error(i, f"level: {exc}") from None
        if len(level.boxes) != ints["boxes"][i]:
            raise at.error(i, f"boxes is {ints['boxes'][i]} but the level has {len(level.boxes)}")
    return out
