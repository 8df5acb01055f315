"""Pattern-database files: one uint8 table per ``.npy`` file, with a checksummed trailer.

Each file is the table followed by a 16-byte trailer (magic, format version, table length, CRC-32),
checked on load: a file that fails the check is reported (a warning) and not used, never trusted
silently. Writes are atomic; a cache folder that cannot be written (read-only, full) is a warning too,
since the table in memory is as good, only not kept.
"""

from __future__ import annotations

import os
import warnings
import zlib
from pathlib import Path

import numpy as np

from ....boundary.files import atomic_path

FORMAT_VERSION = 1
_MAGIC = b"FSPDB\x00"
_TRAILER = 16  # magic (6) + version (2) + length (4) + crc32 (4)


def _trailer(table: np.ndarray) -> bytes:
    return (_MAGIC + FORMAT_VERSION.to_bytes(2, "little") + len(table).to_bytes(4, "little")
            + zlib.crc32(table.data).to_bytes(4, "little"))


def read_pattern_table(path: Path, size: int) -> np.ndarray | None:
    """The checked table of ``size`` entries in ``path``; None (with a warning) if it is damaged or of
    another format."""
    try:
        raw = np.load(path, mmap_mode="r")
        ok = raw.dtype == np.uint8 and raw.ndim == 1 and raw.shape[0] == size + _TRAILER
        if ok:
            table = np.array(raw[:size])
            ok = bytes(raw[size:]) == _trailer(table)
    except (OSError, ValueError, EOFError) as exc:
        warnings.warn(f"pattern database {path} is unreadable ({exc}); rebuilding it")
        return None
    if not ok:
        warnings.warn(f"pattern database {path} is damaged or of another format; rebuilding it")
        return None
    return table


def write_pattern_table(table: np.ndarray, path: Path) -> None:
    """Keep ``table`` in ``path`` with its trailer, atomically; a warning (not an error) if it cannot be."""
    try:
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                np.save(fh, np.concatenate([table, np.frombuffer(_trailer(table), dtype=np.uint8)]))
    except OSError as exc:  # a read-only or full cache folder: the table in memory is as good, only not kept
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        warnings.warn(f"pattern database {path} could not be cached ({reason}); it is used from memory and built "
                      f"again next time (set FASTSPE_PDB_DIR to a writable folder)")
