"""The columns of a Sokoban bank, and their Arrow types: one list that the builder, the checker and the packer share.

Every bank has ``board_id``, ``cohort``, ``depth`` (the certified d* of the bank's objective), ``level`` (XSB
text), ``boxes`` (the second stratum), ``certificate`` (an optimal plan, ``U,D,L,R`` letters) and ``pushes`` (the
certificate's pushes). Banks of given levels (``bank build --levels``) add optional columns, so banks written
before them still read:

- ``objective``: what the bank certifies, ``moves`` (fewest moves, then fewest pushes: d* counts moves) or
  ``pushes`` (fewest pushes, then fewest moves: d* counts pushes); a bank without it certifies ``moves``;
- ``move_optimal_moves``, ``move_optimal_pushes``: the moves and pushes of the move-optimal plan;
- ``push_optimal_moves``, ``push_optimal_pushes``: the moves and pushes of the push-optimal plan (both certified
  only by a solver with the push objective; absent otherwise).

A built bank's schema says ``fastspe.domain: sokoban`` in its metadata (``domains.registry``). The independent
verifier (``verify.sokoban_bank``) keeps its own list on purpose.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["BANK_COLUMNS", "BANK_SCHEMA", "OPTIONAL_COLUMNS", "OPTIMUM_COLUMNS", "OBJECTIVES", "OPTIONAL_TYPES"]

BANK_SCHEMA = pa.schema(
    [
        ("board_id", pa.string()),
        ("cohort", pa.string()),
        ("depth", pa.int64()),
        ("level", pa.string()),
        ("boxes", pa.int64()),
        ("certificate", pa.string()),
        ("pushes", pa.int64()),
    ],
    metadata={"fastspe.domain": "sokoban"},
)
BANK_COLUMNS = tuple(BANK_SCHEMA.names)
OBJECTIVES = ("moves", "pushes")  # ``objective``: the first is the default (and what a bank without it certifies)
OPTIMUM_COLUMNS = ("move_optimal_moves", "move_optimal_pushes", "push_optimal_moves", "push_optimal_pushes")
OPTIONAL_COLUMNS = ("objective",) + OPTIMUM_COLUMNS
OPTIONAL_TYPES = {"objective": pa.string(), **{name: pa.int64() for name in OPTIMUM_COLUMNS}}
