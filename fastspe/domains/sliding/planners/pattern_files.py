"""Pattern-database files: one uint8 table per ``.npy`` file, bound to what it is by a checksummed trailer.

A file is the table, then its binding (compact JSON: the kind of table, rows, cols, blocked cells, goal and
the pattern's tiles, everything that decides its content; see ``table_binding``), then a 20-byte tail
(binding length, magic, format version, table length, CRC-32 of table and binding). The last 16 bytes keep
format 1's layout (magic, version, length, CRC), so a file of format 1, which bound no layout or tiles, is
recognised as such. On load, a file that is damaged, of another format or bound to another table (swapped
with another group's, renamed, copied from another layout) is rebuilt with one warning naming the file and
what differs: a foreign table is not admissible, so it is never used. Writes are atomic; a folder that
cannot be created or written warns once and the tables are used from memory.
"""

from __future__ import annotations

import json
import os
import warnings
import zlib
from pathlib import Path
from typing import Sequence

import numpy as np

from ....boundary.files import atomic_path
from ..layout import Layout

FORMAT_VERSION = 2
_MAGIC = b"FSPDB\x00"
_TAIL = 20  # binding length (4) + magic (6) + version (2) + table length (4) + crc32 (4)
_OLD_TAIL = 16  # format 1: magic, version, table length, crc32: the last 16 bytes of either format
_UNWRITABLE: set[Path] = set()  # folders already warned about in this process


def table_binding(layout: Layout, tiles: Sequence[int], kind: str) -> dict:
    """What decides a table's content: its ``kind`` (how the entries are computed and packed), the layout
    (rows, cols, blocked cells, goal) and the pattern's tiles. A group's table does not depend on the
    partition it is part of, so the partition is not bound."""
    return {
        "kind": kind,
        "rows": layout.rows,
        "cols": layout.cols,
        "blocks": [int(b) for b in layout.blocks],
        "goal": [int(v) for v in layout.goal],
        "tiles": [int(t) for t in tiles],
    }


def _binding_bytes(binding: dict) -> bytes:
    return json.dumps(binding, sort_keys=True, separators=(",", ":")).encode()


def _tail(table: np.ndarray, bound: bytes) -> bytes:
    crc = zlib.crc32(bound, zlib.crc32(table.data))
    return (
        len(bound).to_bytes(4, "little")
        + _MAGIC
        + FORMAT_VERSION.to_bytes(2, "little")
        + len(table).to_bytes(4, "little")
        + crc.to_bytes(4, "little")
    )


def _shown(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _differences(found: dict, wanted: dict) -> str:
    keys = [k for k in wanted if found.get(k) != wanted[k]] + [k for k in found if k not in wanted]
    return "; ".join(
        f"{k} {_shown(found.get(k, '(none)'))} where {_shown(wanted.get(k, '(none)'))} is needed" for k in keys
    )


def _check(raw: np.ndarray, size: int, binding: dict) -> tuple[np.ndarray | None, str]:
    """(the table, '') if ``raw`` holds the table bound to ``binding``, else (None, what is wrong)."""
    if raw.dtype != np.uint8 or raw.ndim != 1 or raw.shape[0] < size + _OLD_TAIL:
        return None, "is damaged or of another format"
    end = bytes(raw[-_OLD_TAIL:])
    if end[:6] != _MAGIC:
        return None, "is damaged or of another format"
    version = int.from_bytes(end[6:8], "little")
    if version != FORMAT_VERSION:
        return None, (
            f"is of format {version}, which does not bind its layout and tiles"
            if version < FORMAT_VERSION
            else f"is of a newer format ({version}) than this fastspe reads ({FORMAT_VERSION})"
        )
    bound_len = int.from_bytes(bytes(raw[-_TAIL:-_OLD_TAIL]), "little")
    if raw.shape[0] != size + bound_len + _TAIL:
        return None, "is damaged or of another format (its length is not that of this table)"
    table = np.array(raw[:size])
    bound = bytes(raw[size : size + bound_len])
    if bytes(raw[-_TAIL:]) != _tail(table, bound):
        return None, "is damaged (its checksum fails)"
    try:
        found = json.loads(bound)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        return None, "is damaged (its binding is not readable)"
    if found != binding:
        return None, f"holds another table ({_differences(found, binding)})"
    return table, ""


def read_pattern_table(path: Path, size: int, binding: dict) -> np.ndarray | None:
    """The checked table of ``size`` entries in ``path``, bound to ``binding``; None if there is no such file
    (silently), or (with one warning naming the file and what is wrong) if it is damaged, of another format
    or bound to another table."""
    try:
        raw = np.load(path, mmap_mode="r")
        table, wrong = _check(raw, size, binding)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError, EOFError) as exc:
        table, wrong = None, f"is unreadable ({exc})"
    if table is None:
        warnings.warn(f"pattern database {path} {wrong}; rebuilding it")
    return table


def table_present(path: Path) -> bool:
    """Whether a file is at ``path`` (False, not an error, where the folder cannot be looked into)."""
    try:
        return path.is_file()
    except OSError:
        return False


def write_pattern_table(table: np.ndarray, path: Path, binding: dict) -> None:
    """Keep ``table`` bound to ``binding`` in ``path``, atomically. A folder that cannot be created or written
    (a file in its path, read-only, full) is one warning per folder, not an error: the table in memory is as
    good, only not kept; later tables are not tried there again in this process."""
    folder = path.parent
    if folder in _UNWRITABLE:
        return
    bound = _binding_bytes(binding)
    try:
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as fh:
                np.save(fh, np.concatenate([table, np.frombuffer(bound + _tail(table, bound), dtype=np.uint8)]))
    except OSError as exc:
        _UNWRITABLE.add(folder)
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        warnings.warn(
            f"pattern database folder {folder} cannot be written ({reason}); its tables are built in "
            f"memory for this run and again next time (set FASTSPE_PDB_DIR to a writable folder)"
        )
