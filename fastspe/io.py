"""Table files by extension (.parquet, .jsonl, .csv) with atomic writes.

Every write goes to a temporary file in the destination folder and is then ``os.replace``d, so a
crash never leaves a half-written file under the final name.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

import pandas as pd

TABLE_SUFFIXES = (".parquet", ".jsonl", ".csv")


def require_columns(df, columns, what: str, fix: str) -> None:
    """Raise ``TypeError`` unless ``df`` is a DataFrame, ``ValueError`` naming the columns it lacks.

    ``what`` names the table in the message (a file path, "verdicts", ...), ``fix`` says how to get a good one.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lack columns {missing}; {fix}")


def table_format(path: str | os.PathLike, allowed=TABLE_SUFFIXES) -> str:
    """The format of ``path`` from its extension, or a ``ValueError`` listing the allowed ones."""
    suffix = Path(path).suffix.lower()
    if suffix not in allowed:
        raise ValueError(f"{path}: unknown file type {suffix or '(none)'!r}; use one of {', '.join(allowed)}")
    return suffix[1:]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, else it is removed."""
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
    try:
        yield Path(tmp)
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write ``text`` (UTF-8) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_table(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` atomically as Parquet, JSONL or CSV, chosen by the extension of ``path``."""
    fmt = table_format(path)
    with atomic_path(path) as tmp:
        if fmt == "parquet":
            df.to_parquet(tmp, index=False)
        elif fmt == "jsonl":
            df.to_json(tmp, orient="records", lines=True, force_ascii=False)
        else:
            df.to_csv(tmp, index=False)


def read_table(path: str | os.PathLike) -> pd.DataFrame:
    """Read a Parquet, JSONL or CSV table chosen by extension; errors name the file and line."""
    fmt = table_format(path)
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such file")
    if fmt == "parquet":
        return pd.read_parquet(p)
    if fmt == "csv":
        return pd.read_csv(p)
    return pd.DataFrame.from_records(read_jsonl(p))


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    """Objects of a JSONL file; a ``ValueError`` names the line that is not a JSON object."""
    records = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"{path}: line {lineno} is not UTF-8 text") from None
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: line {lineno} is not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}: line {lineno} is not a JSON object")
            records.append(obj)
    return records
