"""JSONL bank files in: one board per line, read by Arrow's JSON reader into the bank's columns.

Arrow says what is wrong but not where; when it refuses a file, the plain reader finds the first line at
fault (not UTF-8, not JSON, a repeated key, a value of the wrong type) so that the error names it. What
the rows mean is checked afterwards, for every bank file alike (``banks.check_bank_table``).
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pyarrow as pa

from ..errors import UserError
from .errors import InputError, input_error
from .jsonl import read_object_lines


def read_jsonl_bank(path, schema: pa.Schema) -> pa.Table:
    """The rows of a JSONL bank file as Arrow columns of ``schema`` (other keys ignored); an ``InputError`` names
    the first line at fault when Arrow refuses the file."""
    import pyarrow.json as pj

    data = Path(path).read_bytes().removeprefix(codecs.BOM_UTF8)
    if not data.strip():
        raise InputError(f"{path}: the bank has no boards")
    try:
        return read_object_lines(data, pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"))
    except (ValueError, pa.ArrowException) as exc:
        # Arrow says what is wrong but not where: find the first line at fault with the plain reader
        raise _first_bad_json_line(path, exc, schema) from None


def _no_repeated_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = next(k for k in keys if keys.count(k) > 1)
        raise UserError(f"key {repeated!r} appears more than once in one object")
    return dict(pairs)


def _first_bad_json_line(path, exc: Exception, schema: pa.Schema) -> InputError:
    """The first line that Arrow cannot be trusted with, named with what is wrong (errors only: a loop)."""
    expect = {f.name: f.type for f in schema}
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                obj = json.loads(text, object_pairs_hook=_no_repeated_keys)
            except UnicodeDecodeError:
                return input_error(path, "not UTF-8 text", "line", lineno)
            except RecursionError:
                return input_error(path, "not a bank row (JSON nested too deep)", "line", lineno)
            except json.JSONDecodeError as err:
                return input_error(
                    path, f"not valid JSON ({err.msg}); each line must be one JSON object", "line", lineno
                )
            except ValueError as err:  # a repeated key: which value counts is anyone's guess
                return input_error(path, str(err), "line", lineno)
            if not isinstance(obj, dict):
                return input_error(path, "not a JSON object; each line must be one {...} object", "line", lineno)
            try:
                json.dumps(obj, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                return input_error(
                    path,
                    "holds a lone surrogate escape (\\ud800-\\udfff without its pair), not Unicode text",
                    "line",
                    lineno,
                )
            for name, kind in expect.items():
                problem = _json_type_problem(obj.get(name), kind)
                if problem:
                    return input_error(path, f"{name} {problem}", "line", lineno, obj.get("board_id"))
    return InputError(f"{path}: not a readable bank ({str(exc).splitlines()[0][:200]})")


def _json_type_problem(value, kind: pa.DataType) -> str | None:
    if value is None:
        return None  # nulls are named by check_bank_table, with the row
    if pa.types.is_string(kind):
        return None if isinstance(value, str) else f"must be a string, got {json.dumps(value)[:40]}"
    if pa.types.is_integer(kind):
        return None if _is_int(value) else f"must be an integer, got {json.dumps(value)[:40]}"
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        return f"must be a list of integers, got {json.dumps(value)[:60]}"
    return None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def jsonl_line_finder(path):
    """Row index -> 1-based line number of a JSONL file (blank lines are not rows); errors only."""

    def line_of(row: int) -> int:
        with open(path, "rb") as fh:
            seen = -1
            for lineno, raw in enumerate(fh, start=1):
                if raw.strip():
                    seen += 1
                    if seen == row:
                        return lineno
        return row + 1

    return line_of
