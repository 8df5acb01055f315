"""Clean JSONL bytes into the Arrow table pyarrow's JSON reader would give, without pyarrow's JSON reader.

``scanned_table(data, schema, names)`` runs the compiled scanner (``fastspe.kernels.jsonl_scan``) over a buffer
of lines and builds the table from the spans it found: the ``schema`` fields first, as given, then every other
key in the order of its first appearance, typed as Arrow infers it (null, bool, int64, double, string). It
returns None for any buffer whose reading it cannot prove identical to ``pyarrow.json.read_json(buffer,
explicit_schema=schema, unexpected_field_behavior="infer")``: a line the scanner does not prove clean, a value
that does not fit its field's type, a column that mixes kinds Arrow would refuse or whose strings Arrow might
read as timestamps. The caller then reads the buffer with pyarrow (and, on any doubt, the line reader).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..kernels import jsonl_scan as scan
from .jsonl import ARROW_BLOCK_BYTES

MAX_KEYS = 1024  # keys learned from a file at most (a file with more reads through pyarrow)


class KnownKeys:
    """The keys learned so far (a file's chunks share them), as the scanner takes them."""

    def __init__(self, names):
        self.names = list(names)
        self.scratch = scan.Scratch()  # (a file's chunks are scanned one after another)
        self._pack()

    def learn(self, name: str) -> bool:
        if len(self.names) >= MAX_KEYS:
            return False
        self.names.append(name)
        self._pack()
        return True

    def _pack(self) -> None:
        encoded = [name.encode("ascii") for name in self.names]
        self.bytes = np.frombuffer(b"".join(encoded) or b"\0", dtype=np.uint8)
        self.offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=self.offsets[1:])


def scanned_table(
    data: np.ndarray, schema: pa.Schema, keys: KnownKeys, block_size: int = ARROW_BLOCK_BYTES
) -> pa.Table | None:
    """The table of ``data`` (uint8, one JSON object per line), or None where the scanner cannot vouch for it;
    its columns are chunked as pyarrow's reader with ``block_size`` would chunk them.

    ``keys`` must start with the ``schema`` names, in order; keys found on the way are added to it."""
    while True:
        status, kind, start, end, value, escaped, first, where, line_start = scan.scan_records(
            data, keys.bytes, keys.offsets, scratch=keys.scratch
        )
        if status == scan.UNKNOWN_KEY:
            name = bytes(data[where[0] : where[1]]).decode("ascii")  # (printable ASCII: the scanner checked)
            # the other new keys of its line too, so that a file's first line costs one scan, not one per key
            if keys.learn(name) and all(
                keys.learn(other) for other in _line_keys(data, where[0]) if other not in keys.names
            ):
                continue
        if status != scan.CLEAN:
            return None
        break
    n = kind.shape[0]
    columns_of_kind = kind.T.copy()  # (keys, lines): each key's kinds together, for the column checks
    plans = [(field.name, k, _typed_plan(columns_of_kind[k], field.type)) for k, field in enumerate(schema)]
    others = sorted((k for k in range(len(schema), len(keys.names)) if first[k] >= 0), key=lambda k: first[k])
    plans += [
        (
            keys.names[k],
            k,
            _inferred_plan(
                columns_of_kind[k], partial(scan.any_untimely, data, columns_of_kind[k], start[:, k], end[:, k])
            ),
        )
        for k in others
    ]
    if any(plan is None for _, _, plan in plans):
        return None
    texts = [(k, plan) for _, k, plan in plans if plan in (_STRING, _DOUBLE)]
    for k, plan in texts:
        if plan == _DOUBLE:  # Arrow reads every number of the column as a double from its text
            value[:, k] = end[:, k] - start[:, k]
    valid = kind[:, [k for k, _ in texts]] > scan.NULL  # (lines, text columns)
    offsets, chars, base = scan.gather_strings(
        data, np.array([k for k, _ in texts], dtype=np.int64), valid, start, end, value, escaped
    )
    if texts and offsets.shape[0] == 0:  # more than a string array holds: leave it to pyarrow
        return None
    strings = {
        k: _string_array(offsets[c], chars[base[c] : base[c + 1]], valid[:, c]) for c, (k, _) in enumerate(texts)
    }
    columns = {}
    for name, k, plan in plans:
        present = columns_of_kind[k] > scan.NULL
        if plan == _STRING:
            columns[name] = strings[k]
        elif plan == _DOUBLE:
            columns[name] = pc.cast(strings[k], pa.float64())
        elif plan == _INT:
            columns[name] = pa.array(value[:, k].copy(), mask=~present)
        elif plan == _BOOL:
            columns[name] = pa.array(columns_of_kind[k] == scan.TRUE, mask=~present)
        else:
            columns[name] = pa.nulls(n)
    table = pa.table(columns)
    # the chunks pyarrow's reader would give (the Parquet writer's dictionary pages follow them)
    cuts = scan.block_cuts(data, block_size)
    if len(cuts) == 0:  # a line longer than pyarrow's block: pyarrow refuses it, and so the caller must hear it
        return None
    rows = np.searchsorted(line_start, cuts)
    return pa.concat_tables([table.slice(a, b - a) for a, b in zip(rows[:-1], rows[1:])])


def _line_keys(data: np.ndarray, at: int) -> list[str]:
    """The plain printable-ASCII keys of the JSON object on the line holding byte ``at`` (none if it is no object)."""
    lo = at - 1
    while lo >= 0 and data[lo] != 10:
        lo -= 1
    hi = at
    while hi < len(data) and data[hi] != 10:
        hi += 1
    try:
        obj = json.loads(bytes(data[lo + 1 : hi]))
    except (ValueError, RecursionError):
        return []
    return (
        [k for k in obj if k.isascii() and k.isprintable() and '"' not in k and "\\" not in k]
        if isinstance(obj, dict)
        else []
    )


_NULL, _BOOL, _INT, _DOUBLE, _STRING = "null", "bool", "int64", "double", "string"  # how a column is built


def _kinds_found(kind: np.ndarray) -> set:
    """The value kinds (but absent and null) among a column's ``kind`` codes (a count per code: no sort)."""
    return set(np.flatnonzero(np.bincount(kind.view(np.uint8), minlength=scan.TEXT + 1)).tolist()) - {
        scan.ABSENT,
        scan.NULL,
    }


def _typed_plan(kind: np.ndarray, kind_of_field: pa.DataType) -> str | None:
    """How to build a column of the explicit schema, or None if a value does not fit its type."""
    found = _kinds_found(kind)
    if pa.types.is_string(kind_of_field) and found <= {scan.TEXT}:
        return _STRING
    if pa.types.is_int64(kind_of_field) and found <= {scan.INT}:
        return _INT
    return None


def _inferred_plan(kind: np.ndarray, untimely: Callable[[], bool]) -> str | None:
    """The type Arrow infers from the kinds of a column's values, or None where that is not certain
    (``untimely()``: whether one of its strings is not time-like, ``jsonl_scan.any_untimely``)."""
    found = _kinds_found(kind)
    if not found:
        return _NULL
    if found <= {scan.TRUE, scan.FALSE}:
        return _BOOL
    if found == {scan.INT}:
        return _INT
    if found <= {scan.INT, scan.FLOAT}:
        return _DOUBLE
    if found == {scan.TEXT} and untimely():  # one string that no timestamp can be: a string column
        return _STRING
    return None


def _string_array(offsets: np.ndarray, chars: np.ndarray, valid: np.ndarray) -> pa.Array:
    n = len(valid)
    nulls = n - int(np.count_nonzero(valid))
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(chars), bitmap, nulls)


__all__ = ["KnownKeys", "scanned_table"]
