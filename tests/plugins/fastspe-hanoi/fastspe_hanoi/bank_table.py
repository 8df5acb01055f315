"""The check every reader of a Hanoi bank relies on (``Domain.check_bank``): columns, types, nulls and ranges, then
what each row claims, each failure an ``InputError`` naming the file, the row and the board id.

The schema part (``meaning=False``, what ``bank verify`` reads with): every column present, text and integers as
``columns`` types them, no nulls, disks 1..10, a known rule. The meaning part: unique non-empty ids; each ``start``
is ``disks`` peg letters; ``depth`` is the exact goal distance of the start (the solver's breadth-first tables, cheap
at 3**10 states); the certificate holds only action symbols and is ``depth`` long. Replaying the certificate is
``bank verify``'s (with code of its own).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fastspe.boundary.bank_rows import check_ids, rows_to_check, typed_columns

from .columns import BANK_COLUMNS, BANK_SCHEMA, TEXT_COLUMNS
from .rules import MAX_DISKS, PEGS, RULES, SYMBOLS, read_start, state_code

__all__ = ["check_hanoi_bank"]


def check_hanoi_bank(
    table: pa.Table, source: str = "bank", unit: str = "row", line_of=None, meaning: bool = True, fresh: bool = False
) -> pa.Table:
    """The bank in canonical types, ``BANK_COLUMNS`` first (extra columns kept after them)."""
    at = rows_to_check(
        table,
        BANK_COLUMNS,
        source,
        unit,
        line_of,
        what="Hanoi bank",
        make="`fastspe bank build --domain hanoi`",
        rows="states",
    )
    cols = typed_columns(table, BANK_COLUMNS, TEXT_COLUMNS, at, fresh)
    for name in table.column_names:
        if name not in cols:
            cols[name] = table.column(name)
    disks = cols["disks"].to_numpy()
    at.first((disks < 1) | (disks > MAX_DISKS), lambda i: f"disks is {disks[i]}, must be 1..{MAX_DISKS}")
    known = pc.is_in(cols["rule"], value_set=pa.array(RULES)).to_numpy(zero_copy_only=False)
    at.first(~known, lambda i: f"rule is {cols['rule'][i].as_py()!r}, must be one of {', '.join(RULES)}")
    out = pa.table(cols).replace_schema_metadata(BANK_SCHEMA.metadata)  # a checked table names its domain
    if not meaning:
        return out
    check_ids(cols["board_id"], at)
    starts = cols["start"]
    lengths = pc.utf8_length(starts).to_numpy(zero_copy_only=False)
    at.first(
        lengths != disks, lambda i: f"start {starts[i].as_py()!r} gives {lengths[i]} disks, the row says {disks[i]}"
    )
    bad_peg = pc.match_substring_regex(starts, f"[^{PEGS}]").to_numpy(zero_copy_only=False)
    at.first(bad_peg, lambda i: f"start {starts[i].as_py()!r} holds a letter that is not a peg ({', '.join(PEGS)})")
    certificate = cols["certificate"]
    bad_symbol = pc.match_substring_regex(certificate, f"[^{SYMBOLS}]").to_numpy(zero_copy_only=False)
    at.first(bad_symbol, lambda i: f"the certificate holds a character that is not an action symbol ({SYMBOLS})")
    depth = cols["depth"].to_numpy()
    moves = pc.utf8_length(certificate).to_numpy(zero_copy_only=False)
    at.first(moves != depth, lambda i: f"depth is {depth[i]} but the certificate has {moves[i]} moves")
    exact = _goal_distances(starts.to_pylist(), disks, cols["rule"].to_pylist())
    at.first(exact != depth, lambda i: f"depth is {depth[i]} but the start is {exact[i]} moves from the goal")
    return out


def _goal_distances(starts: list[str], disks: np.ndarray, rules: list[str]) -> np.ndarray:
    from .solver import distance_table

    out = np.empty(len(starts), dtype=np.int64)
    for i, (start, n, rule) in enumerate(zip(starts, disks.tolist(), rules)):
        out[i] = distance_table(n, rule).dist[state_code(read_start(start))]
    return out
