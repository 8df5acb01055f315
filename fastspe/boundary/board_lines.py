"""The JSONL files of ``fastspe solve --input/--out``: boards in, one answer line per board out.

A line that is not a JSON object does not stop the file: it becomes ``{"error": "FILE: line N: ..."}``
(with a warning), so that its answer line keeps its place and the other boards are still solved.
"""

from __future__ import annotations

import codecs
import json
import math
from typing import Callable, Iterator

from ..errors import UserError
from .files import atomic_path


class _Unusable(UserError):
    """A JSON value that has no place in a board file (its message says which)."""


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Unusable(f"holds the number {text[:40]}, beyond the range of a float")
    return value


def _no_constant(name: str):
    raise _Unusable(f"holds {name}, which is not JSON")


_JSON_KINDS = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true/false",
    type(None): "null",
}


def read_json_object(raw: bytes, fields: str = "rows, cols, blocks and board") -> dict:
    """One input line as a JSON object, or a UserError saying what is wrong with it (``fields``: what the object
    should hold, for the message)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"not UTF-8 text (byte {exc.start + 1} of the line)") from None
    try:
        record = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"not JSON ({exc.msg} at character {exc.pos + 1})") from None
    except RecursionError:
        raise UserError("nested too deeply to be a board") from None
    except _Unusable:
        raise
    except ValueError:  # Python reads integers of at most 4300 digits
        raise UserError("holds an integer of thousands of digits") from None
    if not isinstance(record, dict):
        raise UserError(f"not a JSON object with {fields} (got {_JSON_KINDS[type(record)]})")
    return record


def numbered_lines(path) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes) of each non-blank line of ``path``, a UTF-8 byte-order mark at its start skipped
    (editors on Windows write one; it is no part of the first line's JSON)."""
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, 1):
            if number == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            if raw.strip():
                yield number, raw


def read_board_lines(path, warn: Callable[[str], None]) -> list[dict]:
    """Every non-blank line of ``path``: a record, or ``{"error": "FILE: line N: ..."}`` for a line that is
    not a JSON object (``warn`` gets the same message as it is read)."""
    records = []
    for number, raw in numbered_lines(path):
        try:
            records.append(read_json_object(raw))
        except ValueError as exc:
            message = f"{path}: line {number}: {exc}"
            warn(message)
            records.append({"error": message})
    return records


def write_answer_lines(answers: list[dict], path) -> None:
    """One JSON line per answer (no NaN or infinity), atomically."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(a, allow_nan=False) + "\n" for a in answers)
