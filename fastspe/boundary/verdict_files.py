"""Verdicts files in and out (Parquet, CSV, JSONL), each checked once (``verdicts.check_verdicts``) as it comes in and
before it is written.

Parquet files follow the typed schema (``verdict_schema``) and carry page checksums, a content digest and their
domain; CSV cells that a spreadsheet would run as formulas are escaped, and the escapes undone on reading.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pyarrow as pa

from ..domains.registry import name_in
from .errors import InputError
from ..errors import expect_path
from .files import read_jsonl, table_format, text_cells, unescape_formulas, write_table
from .parquet import read_parquet, write_parquet
from .prompt_hashes import CHECK_KEY
from .verdict_schema import typed_verdicts, verdict_frame
from .verdicts import (
    FRAME_DOMAIN,
    KIND,
    NA_TEXT,
    NAME_COLUMNS,
    TEXT_COLUMNS,
    Verdicts,
    as_verdicts,
    check_verdicts,
    is_text,
)

__all__ = ["read_verdicts", "write_verdicts"]


def read_verdicts(path, bank=None, domain=None) -> Verdicts:
    """Read a verdicts file (``.parquet``, ``.csv`` or ``.jsonl``) and ``check_verdicts`` it (``Verdicts``).

    Parquet: page checksums and the content digest are verified (``boundary.parquet``), a schema-2 file's nulls
    read as the in-memory conventions (``boundary.verdict_schema.verdict_frame``), and the file names its domain.
    CSV and JSONL record none: theirs is ``domain``, else the bank's, else the default domain. CSV: text
    columns are read as text (a board_id ``007`` stays ``007``, an empty cell is ``""``), floats exactly,
    and formula escapes written by ``write_verdicts`` are undone. Errors name the file and the row
    (Parquet, JSONL record) or line (CSV, header = line 1; ``record N`` when a cell holds a line break).
    """
    expect_path(path)
    fmt = table_format(path, (".parquet", ".csv", ".jsonl"))
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file")
    unit, first = "row", 1
    if fmt == "parquet":
        try:
            table = read_parquet(p, KIND)
            df = verdict_frame(table, str(path))
            recorded = name_in(table)
            if recorded is not None:
                df.attrs[FRAME_DOMAIN] = recorded
            check = (table.schema.metadata or {}).get(CHECK_KEY.encode())
            if check is not None:  # how `fastspe score` held the answers' prompt hashes (--ignore-prompt-hash)
                df.attrs[CHECK_KEY] = check.decode("utf-8", "replace")
        except UnicodeDecodeError:  # a damaged column name that read_parquet does not catch itself
            raise InputError(
                f"{path}: not a readable Parquet file (a column name is not UTF-8); it is damaged"
            ) from None
    elif fmt == "jsonl":
        df, unit = pd.DataFrame.from_records(read_jsonl(p)), "record"
    else:
        df = _read_csv(p)
        broken = any(text_cells(df[c]).str.contains("[\r\n]", regex=True).any() for c in df.columns if is_text(df[c]))
        unit, first = ("record", 1) if broken else ("line", 2)
    return check_verdicts(df, str(path), bank, unit=unit, first=first, domain=domain)


def _read_csv(path: Path) -> pd.DataFrame:
    try:
        header = pd.read_csv(path, nrows=0).columns
        text = [c for c in header if c in NAME_COLUMNS or c in TEXT_COLUMNS]
        df = pd.read_csv(
            path,
            dtype={c: str for c in text},
            keep_default_na=False,
            na_values={c: NA_TEXT for c in header if c not in text},
        )  # floats read exactly
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: empty file; make one with `fastspe score`") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(f"{path}: not a readable CSV file ({str(exc).strip().splitlines()[0][:200]})") from None
    for col in df.columns:
        if is_text(df[col]):
            df[col] = unescape_formulas(df[col])
    return df


def write_verdicts(verdicts: Verdicts | pd.DataFrame | pa.Table, path) -> None:
    """Check ``verdicts`` (``check_verdicts``, unless they are ``Verdicts``) and write them atomically,
    Parquet or CSV by extension.

    Parquet files follow the typed schema (``boundary.verdict_schema``: undefined values as nulls) and carry
    page checksums and a content digest (``boundary.parquet.write_parquet``); CSV
    cells that a spreadsheet would run as formulas are escaped (``io.escape_formulas``, undone by
    ``read_verdicts``).
    """
    expect_path(path)
    fmt = table_format(path, (".parquet", ".csv"))
    if isinstance(verdicts, pa.Table):
        recorded = name_in(verdicts)
        check = (verdicts.schema.metadata or {}).get(CHECK_KEY.encode())
        verdicts = verdicts.to_pandas()
        if recorded is not None:
            verdicts.attrs[FRAME_DOMAIN] = recorded
        if check is not None:
            verdicts.attrs[CHECK_KEY] = check.decode("utf-8", "replace")
    checked = as_verdicts(verdicts, source=f"verdicts to write to {os.fspath(path)}")
    clean = checked.frame
    if fmt == "parquet":
        typed = typed_verdicts(
            pa.Table.from_pandas(clean, preserve_index=False), f"verdicts to write to {path}", checked.domain
        )
        check = clean.attrs.get(CHECK_KEY, getattr(verdicts, "attrs", {}).get(CHECK_KEY))
        if check is not None:
            typed = typed.replace_schema_metadata({**typed.schema.metadata, CHECK_KEY: check})
        write_parquet(typed, path, KIND)
    else:
        write_table(clean, path, formulas_escaped=True)
