"""JSONL bytes into Arrow, only when every line is one JSON object (the bank and response readers share it).

pyarrow's JSON reader is fast but looser than ``json.loads`` per line: it reads two objects on one line as two
rows, and pyarrow 26 crashes the process on a block that starts with ``null``. ``read_object_lines`` hands
Arrow only buffers whose non-blank lines start with ``{`` and checks that it found one row per such line.
"""

from __future__ import annotations

import re

import pyarrow as pa

from ..errors import UserError

NONBLANK_LINE = re.compile(rb"^[ \t\r\f\v]*[^ \t\r\f\v\n]", re.MULTILINE)
# a non-blank line whose first character is not "{": not one JSON object
NOT_AN_OBJECT_LINE = re.compile(rb"^[ \t\r\f\v]*[^ \t\r\f\v\n{]", re.MULTILINE)
# The same questions asked with a literal first byte, so the regex engine skips ahead instead of trying every
# byte; only when they hit (a line starting with a blank or not with "{", rare) are the exact patterns run.
_AFTER_NEWLINE_SPACE = re.compile(rb"\n[ \t\r\f\v\n]")
_LINE_NOT_BRACE = re.compile(rb"\n[^{\n]")
ARROW_BLOCK_BYTES = 8 << 20  # pyarrow's JSON block size here: its blocks are the chunks of the table's columns


def object_line_count(data: bytes) -> int:
    """Lines of ``data`` that hold anything but whitespace."""
    if data[:1].isspace() or _AFTER_NEWLINE_SPACE.search(data) is not None:
        return len(NONBLANK_LINE.findall(data))
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def read_object_lines(data: bytes, parse_options, block_size: int = ARROW_BLOCK_BYTES) -> pa.Table:
    """The rows of ``data``, one per non-blank line; ``ValueError`` (Arrow's errors are ValueErrors too) when a
    line is not one JSON object or Arrow refuses the buffer."""
    import pyarrow.json as pj

    if (data[:1] != b"{" or _LINE_NOT_BRACE.search(data)) and NOT_AN_OBJECT_LINE.search(data):
        raise UserError("a line is not a JSON object")
    table = pj.read_json(
        pa.BufferReader(data), read_options=pj.ReadOptions(block_size=block_size), parse_options=parse_options
    )
    if table.num_rows != object_line_count(data):
        raise UserError("a line holds more than one JSON object")
    return table
