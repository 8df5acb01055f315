"""TEMPORARY STUB (lead's scratch; replaced by the compiled parser branch)."""
from __future__ import annotations
from dataclasses import dataclass
import numpy as np, pyarrow as pa
from .parse import parse_answer, EXACT, NORMALIZED, NO_PLAN
from .layout import CODE_OF_BYTE, DIRECTION_BYTES
MODE_EXACT, MODE_NORMALIZED, MODE_NO_PLAN = 0, 1, 2
MODE_NAMES = (EXACT, NORMALIZED, NO_PLAN)
@dataclass(frozen=True)
class ParsedColumn:
    codes: np.ndarray; offsets: np.ndarray; mode: np.ndarray; normalization: np.ndarray; multiple: np.ndarray; compiled: int
def parse_column(texts, strict=False):
    if isinstance(texts, (pa.Array, pa.ChunkedArray)): texts = texts.to_pylist()
    plans = [parse_answer(t, strict) for t in texts]
    moves = "".join(p.moves for p in plans).encode("ascii", "replace")
    lengths = np.array([len(p.moves) for p in plans], dtype=np.int64)
    offsets = np.zeros(len(plans)+1, np.int64); np.cumsum(lengths, out=offsets[1:])
    codes = CODE_OF_BYTE[np.frombuffer(moves, np.uint8)]
    mode = np.array([MODE_NAMES.index(p.mode) for p in plans], dtype=np.int8)
    norm = np.array([p.normalization for p in plans], dtype=object)
    return ParsedColumn(codes, offsets, mode, norm, np.array([p.multiple for p in plans], bool), 0)
def moves_strings(codes, offsets):
    table = np.frombuffer(b"UDLR?", np.uint8)
    return pa.StringArray.from_buffers(len(offsets)-1, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(table[codes].tobytes()))
