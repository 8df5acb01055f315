"""The attempt records of run logs as Arrow columns, for the run statistics (``fastspe.report.run_stats``).

A log is read in chunks with Arrow's JSON reader (``boundary.jsonl.read_object_lines``), keeping only the
columns the statistics need, so a 1M-line log costs neither a Python dict per line nor much memory. A chunk
Arrow cannot read (a torn line, a value of an unexpected type, text that is not UTF-8) is read again line by
line with ``json.loads``, which skips exactly what ``runners.log.read_run_log`` skips: blank lines, lines that
are not JSON objects (counted) and ``torn_line`` markers. A JSON object without a text ``condition``,
``board_id`` and ``status`` and a whole-number ``trial`` is no attempt record: the file is refused as not a
run log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ..errors import UserError
from .jsonl import read_object_lines
from .responses import MARKER_EVENTS, log_objects

CHUNK_BYTES = 16 << 20  # a chunk Arrow refuses is re-read line by line: keep that cheap
_TEXT = ("condition", "board_id", "status", "error_type")
NUMBER_FIELDS = (
    "http_status",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "latency_s",
    "cost_usd",
    "turns",
    "tool_call_count",
    "turn",
)  # the last three: conversations' records (fastspe.protocols)
_REQUIRED = ("condition", "board_id", "trial", "status")
_SCHEMA = pa.schema(
    [
        ("event", pa.string()),
        *((n, pa.string()) for n in _TEXT),
        ("trial", pa.int64()),
        *((n, pa.float64()) for n in NUMBER_FIELDS),
    ]
)
ATTEMPT_SCHEMA = _SCHEMA.remove(0)  # the columns of the attempts read (no event)
_PARSE = pj.ParseOptions(explicit_schema=_SCHEMA, unexpected_field_behavior="ignore")
_INT64 = (-(2**63), 2**63 - 1)


def read_attempts(path) -> tuple[pa.Table, int]:
    """The attempt records of the run log ``path`` (the columns of the statistics) and the number of
    lines skipped as not JSON objects (torn by a stopped run), as ``read_run_log`` skips them.

    A ValueError for a missing file, or one that is not a run log (a line holds a JSON object that is no
    attempt record, or the file has lines but none is an attempt record).
    """
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{path}: no such file")
    tables, skipped = [], 0
    for data, first_line in _chunks(p):
        table, bad = _chunk_attempts(data, first_line, path)
        tables.append(table)
        skipped += bad
    attempts = pa.concat_tables(tables) if tables else ATTEMPT_SCHEMA.empty_table()
    if skipped and attempts.num_rows == 0:
        raise UserError(
            f"{path}: none of its lines is a JSON object ({skipped} skipped); not a run log written by `fastspe run`"
        )
    return attempts, skipped


def _chunks(path: Path) -> Iterator[tuple[bytes, int]]:
    """Whole lines of ``path`` in chunks of about CHUNK_BYTES, with the number of each chunk's first line."""
    line = 1
    with open(path, "rb") as fh:
        carry = b""
        while True:
            block = fh.read(CHUNK_BYTES)
            data = carry + block
            cut = data.rfind(b"\n") + 1 if block else len(data)
            if cut:
                yield data[:cut], line
                line += data.count(b"\n", 0, cut)
            carry = data[cut:]
            if not block:
                return


def _chunk_attempts(data: bytes, first_line: int, path) -> tuple[pa.Table, int]:
    try:
        data.decode("utf-8")  # Arrow does not check the text of the fields it skips; json.loads does
        table = read_object_lines(data, _PARSE)
    except (ValueError, pa.ArrowException):  # a torn line, an unexpected type, not UTF-8
        return _line_attempts(data, first_line, path)
    table = table.filter(pc.invert(pc.fill_null(pc.is_in(table["event"], pa.array(MARKER_EVENTS)), False))).drop(
        ["event"]
    )
    if any(table[name].null_count for name in _REQUIRED):
        return _line_attempts(data, first_line, path)  # names the line
    return table, 0


def _line_attempts(data: bytes, first_line: int, path) -> tuple[pa.Table, int]:
    """``data`` read line by line as ``read_run_log`` reads a log."""
    columns: dict[str, list] = {field.name: [] for field in ATTEMPT_SCHEMA}
    skipped = 0
    for lineno, obj in log_objects(data.split(b"\n"), first_line):
        if obj is None:
            skipped += 1
            continue
        values = {name: _typed(obj.get(name), ATTEMPT_SCHEMA.field(name).type) for name in columns}
        for name in _REQUIRED:
            if values[name] is None:
                kind = "a whole number" if name == "trial" else "text"
                raise UserError(
                    f"{path}: line {lineno} is not an attempt record ({name} is missing or not {kind}); "
                    f"not a run log written by `fastspe run`"
                )
        for name, value in values.items():
            columns[name].append(value)
    return pa.Table.from_pydict(columns, schema=ATTEMPT_SCHEMA), skipped


def _typed(value, kind: pa.DataType):
    """``value`` as the column type, None (missing) when it is of another JSON type, as Arrow would refuse it."""
    if pa.types.is_string(kind):
        # a lone surrogate escape is valid JSON but no UTF-8 text
        return value.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(value, str) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if pa.types.is_integer(kind):
        return value if isinstance(value, int) and _INT64[0] <= value <= _INT64[1] else None
    return float(value)
