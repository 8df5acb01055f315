"""Plain-Python twin of ``fastspe.kernels.jsonl_scan.scan_records``: the same narrow grammar, one line at a time."""

from __future__ import annotations

import re

from fastspe.kernels.jsonl_scan import CLEAN, FALSE, FLOAT, INT, NULL, TEXT, TRUE, UNCLEAN, UNKNOWN_KEY

_STRING = re.compile(rb'"((?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\["\\/bfnrt])*)"')
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_TIME = re.compile(rb"[0-9][0-9:+TtZz \-]*")
_ESCAPES = dict(zip(b'"\\/bfnrt', '"\\/\b\f\n\r\t'))


def _decode(raw: bytes) -> str:
    return re.sub(rb"\\(.)", lambda m: _ESCAPES[m.group(1)[0]].encode(), raw).decode("ascii")


def _value(line: bytes, i: int):
    """(kind, value, end) of the value at ``i``, or None."""
    if m := _STRING.match(line, i):
        raw = m.group(1)
        return TEXT, _decode(raw), m.end()
    for word, kind in ((b"null", NULL), (b"true", TRUE), (b"false", FALSE)):
        if line.startswith(word, i):
            return kind, None, i + len(word)
    if m := _NUMBER.match(line, i):
        text = m.group(0)
        if m.group(1) or m.group(2):
            return FLOAT, text.decode(), m.end()
        if len(text.lstrip(b"-")) > 18:
            return None
        return INT, int(text), m.end()
    return None


def naive_any_untimely(raw_strings: list[bytes]) -> bool:
    """Twin of ``jsonl_scan.any_untimely``: one of the (still escaped) strings is not time-like."""
    return any(not _TIME.fullmatch(raw) for raw in raw_strings)


def naive_scan(data: bytes, names: list[str]):
    """(status, rows, unknown key): rows are one {key: (kind, value)} per line (strings decoded, ints read,
    other numbers as their text)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"" and data:
        lines.pop()
    rows = []
    for line in lines:
        row: dict = {}
        if not line.startswith(b"{"):
            return UNCLEAN, rows, None
        i = len(line) - len(line[1:].lstrip(b" "))
        while True:
            m = _STRING.match(line, i)
            if m is None or b"\\" in m.group(1):
                return UNCLEAN, rows, None
            key = m.group(1).decode()
            if key not in names:
                return UNKNOWN_KEY, rows, key
            if key in row:
                return UNCLEAN, rows, None
            i = m.end() + len(line[m.end() :]) - len(line[m.end() :].lstrip(b" "))
            if not line.startswith(b":", i):
                return UNCLEAN, rows, None
            i += 1 + len(line[i + 1 :]) - len(line[i + 1 :].lstrip(b" "))
            found = _value(line, i)
            if found is None:
                return UNCLEAN, rows, None
            kind, value, i = found
            row[key] = (kind, value)
            i += len(line[i:]) - len(line[i:].lstrip(b" "))
            if line.startswith(b",", i):
                i += 1 + len(line[i + 1 :]) - len(line[i + 1 :].lstrip(b" "))
                continue
            if line.startswith(b"}", i) and not line[i + 1 :].strip(b" "):
                break
            return UNCLEAN, rows, None
        rows.append(row)
    return CLEAN, rows, None
