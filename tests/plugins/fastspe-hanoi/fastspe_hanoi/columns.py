"""The columns of a Hanoi bank and their Arrow types: the one list the builder, the check and the pack share (the
independent verifier keeps its own on purpose).

``board_id``, ``cohort``, ``disks`` (the second stratum), ``rule`` (classic or adjacent), ``depth`` (the certified
d*), ``start`` (one peg letter per disk, disk 1 first) and ``certificate`` (an optimal plan, one symbol per action:
a=AB b=AC c=BA d=BC e=CA f=CB).
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["BANK_SCHEMA", "BANK_COLUMNS", "TEXT_COLUMNS", "INT_COLUMNS"]

BANK_SCHEMA = pa.schema(
    [
        ("board_id", pa.string()),
        ("cohort", pa.string()),
        ("disks", pa.int64()),
        ("rule", pa.string()),
        ("depth", pa.int64()),
        ("start", pa.string()),
        ("certificate", pa.string()),
    ],
    metadata={"fastspe.domain": "hanoi"},
)
BANK_COLUMNS = tuple(BANK_SCHEMA.names)
TEXT_COLUMNS = ("board_id", "cohort", "rule", "start", "certificate")
INT_COLUMNS = ("disks", "depth")
