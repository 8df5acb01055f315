"""The typed, versioned Arrow schema of a verdicts Parquet file (schema 2), and the way to and from it.

Every verdicts file fastspe writes has the same columns in the same order with the same types, whatever wrote the
answers (an API run, a batch, a baseline, an inspect import) and whether or not a value was set: ``VERDICT_TYPES``,
then ``METADATA_TYPES`` (a column the answers lacked is all null), then ``CONVERSATION_TYPES`` in their types where
some answer has them (a multi-turn protocol's; absent otherwise, so a one-answer run's file is as before), then
``COST_TYPES`` where the bank's d* does not count moves (a push bank's: the schema stays 2, since a file without them
reads as before), then any other scalar metadata of the answers as it came. So files concatenate with no cast in
pyarrow, polars, DuckDB and Hugging Face ``datasets``. What is undefined is null in the file: ``economy`` and
``excess`` of a plan that is not complete, ``error_kind`` and ``first_error`` of a plan with no illegal action, a
setting not given. The schema's version is in the file's metadata (``SCHEMA_KEY``).

In memory, fastspe computes with the conventions it always had (NaN economy/excess, ``first_error`` -1,
``error_kind`` ""): ``typed_verdicts`` turns those into nulls on the way into a file and
``verdict_frame`` turns them back on the way out, so every number computed from a file is the same as
before. Files without the key (schema 1, fastspe before it: ``""``, -1, NaN, text timestamps) hold the
in-memory conventions already and read as they are.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..domains.contract import STRATUM
from ..domains.registry import DEFAULT_DOMAIN, domain_named, name_in, with_domain
from .errors import InputError

__all__ = [
    "SCHEMA_KEY",
    "SCHEMA_VERSION",
    "VERDICT_TYPES",
    "METADATA_TYPES",
    "CONVERSATION_TYPES",
    "COST_TYPES",
    "COST_COLUMNS",
    "JSON_TEXT",
    "metadata_column",
    "verdict_types",
    "verdict_schema",
    "typed_verdicts",
    "verdict_frame",
    "schema_version",
    "json_text",
    "json_cells",
]

SCHEMA_KEY = b"fastspe.verdicts.schema"
SCHEMA_VERSION = 2
TEXT, INT, FLOAT, FLAG = pa.string(), pa.int64(), pa.float64(), pa.bool_()
TIME = pa.timestamp("ms", tz="UTC")  # the runners write ISO 8601 to the millisecond, in UTC

VERDICT_TYPES = {
    "board_id": TEXT,
    "condition": TEXT,
    "trial": INT,
    "cohort": TEXT,
    STRATUM: INT,
    "layout": TEXT,
    "depth": INT,
    "L": INT,
    "status": TEXT,
    "error_kind": TEXT,
    "first_error": INT,
    "parse_mode": TEXT,
    "normalization": TEXT,
    "multiple_moves": FLAG,
    "truncated": FLAG,
    "final_h": INT,
    "min_h": INT,
    "revisits": INT,
    "goal_midway": FLAG,
    "optimal": FLAG,
    "economy": FLOAT,
    "excess": FLOAT,
    "moves": TEXT,
}
# what a run log's completed attempt holds (fastspe.runners.records), generation settings included
METADATA_TYPES = {
    "trial_id": TEXT,
    "provider": TEXT,
    "requested_model": TEXT,
    "base_url": TEXT,
    "temperature": FLOAT,
    "max_tokens": INT,
    "top_p": FLOAT,
    "seed": INT,
    "stop": TEXT,
    "reasoning_effort": TEXT,
    "thinking_budget": INT,
    "extra_body": TEXT,
    "fastspe_version": TEXT,
    "prompt_version": TEXT,
    "prompt_sha256": TEXT,
    "prompt_text_sha256": TEXT,
    "attempt": INT,
    "timestamp": TIME,
    "latency_s": FLOAT,
    "error_type": TEXT,
    "error": TEXT,
    "http_status": INT,
    "returned_model": TEXT,
    "request_id": TEXT,
    "finish_reason": TEXT,
    "raw_finish_reason": TEXT,
    "input_tokens": INT,
    "output_tokens": INT,
    "reasoning_tokens": INT,
    "cost_usd": FLOAT,
}
# what a multi-turn protocol's closing record adds (the protocol, turns and tool calls of the conversation): typed
# where some answer has them, never added as null columns, so the verdicts of a one-answer run do not change
CONVERSATION_TYPES = {"protocol": TEXT, "turns": INT, "tool_call_count": INT}
# an answer's cost where the bank's d* counts something else than moves (``Domain.cost_unit``, e.g. pushes):
# then economy = depth / cost, excess = cost - depth, optimal = cost == depth. Typed where present, never added as
# null columns: a verdicts file without them is a move bank's (its cost is L), as every file before them was
COST_TYPES = {"cost": INT, "cost_unit": TEXT}
COST_COLUMNS = tuple(COST_TYPES)
JSON_TEXT = ("stop", "extra_body")  # a list and an object in the log: JSON text in the file
# the in-memory value of what the file stores as null
UNSET = {"economy": float("nan"), "excess": float("nan"), "error_kind": "", "first_error": -1}


def verdict_types(domain=DEFAULT_DOMAIN) -> dict[str, pa.DataType]:
    """``VERDICT_TYPES`` with the second stratum named as ``domain`` (a name or ``Domain``) names it."""
    stratum = domain_named(domain).stratum
    return {stratum if n == STRATUM else n: t for n, t in VERDICT_TYPES.items()}


def verdict_schema(extra: pa.Schema | None = None, domain=DEFAULT_DOMAIN) -> pa.Schema:
    """The fixed fields, then ``extra``'s ``CONVERSATION_TYPES`` fields in their types, then its other fields, with
    the version and the domain in the metadata."""
    fixed = verdict_types(domain)
    given = set(extra.names) if extra is not None else set()
    fields = [pa.field(n, t) for n, t in {**fixed, **METADATA_TYPES}.items()]
    fields += [pa.field(n, t) for n, t in {**CONVERSATION_TYPES, **COST_TYPES}.items() if n in given]
    typed = {**fixed, **METADATA_TYPES, **CONVERSATION_TYPES, **COST_TYPES}
    fields += [f for f in (extra or []) if f.name not in typed]
    schema = pa.schema(fields, metadata={SCHEMA_KEY: str(SCHEMA_VERSION).encode()})
    return with_domain(schema, domain)


def schema_version(table: pa.Table, source="verdicts") -> int:
    """The verdicts schema a table read from a file follows: 1 when its metadata names none."""
    value = (table.schema.metadata or {}).get(SCHEMA_KEY)
    try:
        return int(value) if value is not None else 1
    except ValueError:
        raise InputError(f"{source}: verdicts schema {value!r} is not a number; the file is damaged") from None


def json_text(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A list or object column as compact JSON text (nulls stay null); a text or null column as text."""
    return json_cells(column.to_pylist()) if pa.types.is_nested(column.type) else column.cast(TEXT)


def json_cells(values) -> pa.Array:
    """Python values (lists, dicts; None or NaN for none) as compact JSON text."""
    return pa.array(
        [
            None
            if v is None or isinstance(v, float) and math.isnan(v)
            else json.dumps(v, separators=(",", ":"), ensure_ascii=False)
            for v in values
        ],
        TEXT,
    )


def _as_null(column, value):
    """``column`` with ``value`` (NaN, "" or -1: the in-memory 'undefined') as null."""
    unset = pc.is_nan(column) if isinstance(value, float) else pc.equal(column, value)
    return pc.if_else(pc.fill_null(unset, False), pa.scalar(None, column.type), column)


def _cast(column, name: str, kind: pa.DataType, source):
    if name in JSON_TEXT:
        column = json_text(column)
    if kind == TIME and (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        try:
            return column.cast(kind)
        except pa.ArrowInvalid:  # no zone offset: the runners write UTC
            try:
                column = pc.assume_timezone(column.cast(pa.timestamp("ms")), "UTC")
            except pa.ArrowInvalid:
                pass  # not a time: refused below
    try:
        return column.cast(kind)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        raise InputError(
            f"{source}: column {name} ({column.type}) cannot be stored as {kind} "
            f"({str(exc).strip().splitlines()[0][:200]})"
        ) from None


def typed_verdicts(table: pa.Table, source="verdicts", domain=None) -> pa.Table:
    """A verdicts table (in-memory conventions) in the file's schema: fixed columns in their types, absent
    metadata as nulls, undefined values as nulls, then the table's other columns as they are.

    ``domain``: the verdicts' (default: the one the table records, else the default domain). Raises ``InputError``
    naming ``source`` when a metadata value cannot take its column's type (a ``max_tokens`` of 1.5, a ``timestamp``
    that is not ISO 8601).
    """
    domain = domain_named(domain or name_in(table) or DEFAULT_DOMAIN)
    fixed = verdict_types(domain)
    schema = verdict_schema(table.schema, domain)
    columns = []
    for field in schema:
        if field.name not in table.column_names:
            columns.append(pa.nulls(table.num_rows, field.type))
            continue
        column = table.column(field.name)
        if (
            field.name in fixed
            or field.name in METADATA_TYPES
            or field.name in CONVERSATION_TYPES
            or field.name in COST_TYPES
        ):
            column = _cast(column, field.name, field.type, source)
        if field.name in UNSET:
            column = _as_null(column, UNSET[field.name])
        columns.append(column)
    return pa.table(columns, schema=schema)


def metadata_column(column, name: str, source="responses"):
    """An answers' metadata column as a verdict holds it: a ``JSON_TEXT`` setting as JSON text, a
    ``CONVERSATION_TYPES`` column in its type, so every batch and file types it alike (``InputError`` naming
    ``source`` when it cannot be); any other as it is."""
    if name in JSON_TEXT:
        return json_text(column)
    return _cast(column, name, CONVERSATION_TYPES[name], source) if name in CONVERSATION_TYPES else column


def verdict_frame(table: pa.Table, source="verdicts") -> pd.DataFrame:
    """A verdicts table read from a file as the DataFrame fastspe computes with (the in-memory conventions).

    Schema 2: its nulls of ``economy``, ``excess``, ``error_kind`` and ``first_error`` become NaN, NaN, ""
    and -1. Schema 1 holds those already and is read as it is.
    """
    if schema_version(table, source) >= 2:
        for name, value in UNSET.items():
            if name in table.column_names:
                try:
                    filled = pc.fill_null(table.column(name), value)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                    continue  # a column of another type: the verdicts check names it
                table = table.set_column(table.column_names.index(name), name, filled)
    return table.to_pandas()
