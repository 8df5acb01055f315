"""The columns of a Sokoban bank, and their Arrow types: one list that the builder, the checker and the packer share.

``board_id``, ``cohort``, ``depth`` (the certified fewest moves d*), ``level`` (XSB text), ``boxes`` (the second
stratum), ``certificate`` (an optimal plan, ``U,D,L,R`` letters) and ``pushes`` (the certificate's pushes). A built
bank's schema says ``fastspe.domain: sokoban`` in its metadata (``domains.registry``). The independent verifier
(``verify.sokoban_bank``) keeps its own list on purpose.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["BANK_COLUMNS", "BANK_SCHEMA"]

BANK_SCHEMA = pa.schema([("board_id", pa.string()), ("cohort", pa.string()), ("depth", pa.int64()),
                         ("level", pa.string()), ("boxes", pa.int64()), ("certificate", pa.string()),
                         ("pushes", pa.int64())], metadata={"fastspe.domain": "sokoban"})
BANK_COLUMNS = tuple(BANK_SCHEMA.names)
