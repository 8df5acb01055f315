"""Model responses in: read JSONL / CSV / Parquet files and check them, naming the line at fault.

A response row is ``board_id, condition, trial, response`` plus any metadata. Run logs written by
``fastspe run`` hold one line per *attempt* with a ``status`` ("ok" for a completed attempt,
anything else for a failed one); the completed attempt of each (condition, board_id, trial) is
the output that gets scored, failed attempts are dropped.

Bad input (a missing field, a trial that is not a whole number in range, a board_id, condition
or status that is not text, an empty condition, an answer that is not a string, a duplicate output, an unknown
board_id, a line that is not JSON, not UTF-8 or holds a lone surrogate escape) raises
``ValueError`` naming the file and ``line N`` (``row N`` for Parquet and DataFrames); the keys
and status of failed attempts are checked too. The one exception is a torn *last* line of a
run log, left by a run killed mid-write: it is skipped with a warning, and so is a torn line that a
resumed run has marked with a ``{"event": "torn_line", "line": N}`` record. With
``skip_invalid=True`` every bad line is reported (a warning, and ``df.attrs["invalid"]``) and the
rest is returned.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._text import count, plural
from ..errors import UserError, expect, expect_path
from .files import arrow_file, table_format

KEY = ["condition", "board_id", "trial"]
REQUIRED = ["board_id", "condition", "trial", "response"]
OK = "ok"
MAX_TRIAL = 2**31 - 1  # trial indices are 0..MAX_TRIAL (int32), so a trial always packs into a key
TORN_LINE_EVENT = "torn_line"  # marker record a resumed run log writes after a torn line
# marker records of `fastspe run --batch` (a batch about to be created, created, collected): no attempts
BATCH_EVENTS = ("batch_pending", "batch_submitted", "batch_done")
MARKER_EVENTS = (TORN_LINE_EVENT, *BATCH_EVENTS)  # records that readers skip


def log_objects(lines, first_line: int = 1):
    """The records of run-log ``lines`` (bytes) as ``(line number, dict)``, and ``(line number, None)`` for a
    line that is not a JSON object (torn, damaged); blank lines and marker records are left out."""
    for lineno, raw in enumerate(lines, start=first_line):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):  # ValueError: also an integer of 4,300+ digits
            yield lineno, None
            continue
        if not isinstance(obj, dict):
            yield lineno, None
        elif obj.get("event") not in MARKER_EVENTS:
            yield lineno, obj


_POS = "_pos"  # internal column: line (or row) number of each record in its source
POSITION = _POS  # kept by ``read_responses(..., positions=True)``, for errors that name a line after the check


class _Problems:
    """Collects bad-input messages; raises on the first unless invalid lines are to be skipped."""

    def __init__(self, source: str, unit: str, skip: bool, typed: bool = True):
        self.source, self.unit, self.skip, self.typed = source, unit, skip, typed
        self.items: list[tuple[int, str]] = []

    def add(self, pos: int, message: str) -> None:
        if not self.skip:
            raise UserError(f"{self.source}: {self.unit} {pos}: {message}") from None
        self.items.append((pos, message))

    def messages(self) -> list[str]:
        return [f"{self.source}: {self.unit} {pos}: {msg}" for pos, msg in sorted(self.items)]


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _decode_line(raw: bytes):
    """One JSONL line as (dict or None for a blank line, error message or None)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8 text; re-save the file as UTF-8"
    if not text.strip():
        return None, None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg}); each line must be one JSON object"
    except RecursionError:
        return None, "not a response (JSON nested too deep)"
    except ValueError as exc:  # an integer of over 4,300 digits
        return None, f"not a response ({exc})"
    if not isinstance(obj, dict):
        return None, "not a JSON object; each line must be one {...} object"
    if _SURROGATE_ESCAPE.search(raw):
        # JSON lets a \udXXX escape stand alone, Unicode does not: such a string cannot be stored or printed
        try:
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return None, "holds a lone surrogate escape (\\ud800-\\udfff without its pair), not Unicode text"
    return obj, None


def _read_jsonl(path: Path, problems: _Problems) -> pd.DataFrame:
    data = path.read_bytes()
    if data.startswith(codecs.BOM_UTF8):  # a byte order mark some editors write: not part of line 1
        data = data[len(codecs.BOM_UTF8) :]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    # the last non-blank line, if the file does not end in a newline, may be torn
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    unfinished = not data.endswith(b"\n")
    records, errors, torn = [], [], set()
    for i, raw in enumerate(lines):
        obj, error = _decode_line(raw)
        if error is not None:
            errors.append((i + 1, error))
        elif obj is None:
            continue
        elif obj.get("event") == TORN_LINE_EVENT:
            # a resumed run log names the torn line a killed run left behind it
            torn.add(obj.get("line"))
        elif obj.get("event") in BATCH_EVENTS:
            continue
        else:
            obj[_POS] = i + 1
            records.append(obj)
    run_log = any("status" in r or "attempt" in r for r in records) or bool(torn)
    if unfinished and run_log and errors and errors[-1][0] == last + 1:
        torn.add(last + 1)
    for lineno, error in errors:
        if lineno in torn:
            warnings.warn(
                f"{path}: line {lineno} is a torn line of a run log (a run stopped mid-write); skipped", stacklevel=3
            )
        else:
            problems.add(lineno, error)
    return pd.DataFrame.from_records(records)


def _read_csv(path: Path, problems: _Problems) -> pd.DataFrame:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        lineno = data[: exc.start].count(b"\n") + 1
        raise UserError(f"{path}: line {lineno}: not UTF-8 text; re-save the file as UTF-8") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        return pd.DataFrame(columns=REQUIRED)
    rows, lines = [], []
    start = reader.line_num + 1
    for row in reader:
        if row:
            if len(row) > len(header):
                problems.add(start, f"has {len(row)} fields, the header has {len(header)}")
            else:
                # fields past the end of a short row are missing (None), not empty strings
                rows.append(row + [None] * (len(header) - len(row)))
                lines.append(start)
        start = reader.line_num + 1
    df = pd.DataFrame(rows, columns=header, dtype=object)
    for col in df.columns:
        if col not in ("board_id", "condition", "response"):
            # metadata: numbers where every non-empty cell is a number
            filled = df[col].replace("", None)
            num = pd.to_numeric(filled, errors="coerce")
            if num.notna().sum() == filled.notna().sum():
                df[col] = num
    df[_POS] = lines
    return df


def unreadable_parquet(path, exc: BaseException) -> ValueError:
    """The error for a Parquet file that does not decode (damaged, truncated, not Parquet)."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return UserError(f"{path}: not a readable Parquet file ({text}); it is damaged or not Parquet")


def _read_parquet(path: Path) -> pd.DataFrame:
    """A responses Parquet file as a DataFrame: every column as stored (pandas' index bookkeeping, which a
    damaged file can garble, is not used: an index column is metadata like any other, as on the fast path)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with arrow_file(path) as source:
            table = pq.ParquetFile(source, page_checksum_verification=True).read()
        table.validate(full=True)  # e.g. text that is not UTF-8: a file without page checksums decodes it blindly
        return table.to_pandas(ignore_metadata=True)
    except (pa.ArrowException, OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise unreadable_parquet(path, exc) from None


def read_responses(
    path, bank: pd.DataFrame | None = None, skip_invalid: bool = False, positions: bool = False
) -> pd.DataFrame:
    """Read a responses file (``.jsonl``, ``.csv``, ``.parquet``) and check it.

    Parameters
    ----------
    path : str or Path
    bank : a ``Bank`` or a DataFrame with ``board_id``, optional; when given, every ``board_id`` must be one of its
        boards
    skip_invalid : bool; report bad lines (warning and ``attrs["invalid"]``) and keep the rest
    positions : keep the column ``POSITION``, each output's line (``row`` for Parquet) in the file

    Returns
    -------
    DataFrame with ``board_id`` (str), ``condition`` (str), ``trial`` (int64), ``response`` and
    any metadata columns; one row per output (failed run-log attempts dropped).
    """
    expect_path(path)
    p = Path(path)
    fmt = table_format(p)
    if not p.is_file():
        raise UserError(f"{path}: no such file")
    unit = "row" if fmt == "parquet" else "line"
    problems = _Problems(str(path), unit, skip_invalid, typed=fmt != "csv")
    if fmt == "jsonl":
        df = _read_jsonl(p, problems)
    elif fmt == "csv":
        df = _read_csv(p, problems)
    else:
        df = _read_parquet(p)
        df[_POS] = np.arange(1, len(df) + 1)
    return _check(df, bank, problems, positions)


def response_paths(responses, out) -> list:
    """``score_file``'s responses (a file, or a list of files) as a list, each and ``out`` checked to be paths."""
    expect(
        responses,
        "responses",
        (str, os.PathLike, list, tuple),
        "a responses file or run log, or a list of them (score_responses scores a DataFrame)",
    )
    paths = [responses] if isinstance(responses, (str, os.PathLike)) else list(responses)
    for path in paths:
        expect_path(path, "responses")
    expect_path(out, "out")
    return paths


def validate_responses(
    responses: pd.DataFrame,
    bank: pd.DataFrame | None = None,
    skip_invalid: bool = False,
    source: str = "responses",
    positions: bool = False,
) -> pd.DataFrame:
    """Check a responses DataFrame (errors name ``row N``, 1-based) and resolve run-log attempts (``positions``:
    keep each output's row as ``POSITION``)."""
    expect(responses, "responses", pd.DataFrame, "a DataFrame of answers (read_responses reads a file)")
    df = responses.copy()
    df[_POS] = np.arange(1, len(df) + 1)
    return _check(df, bank, _Problems(source, "row", skip_invalid, typed=False), positions)


def combine_responses(parts) -> pd.DataFrame:
    """Checked responses of several sources (``(name, frame)`` pairs, each from ``read_responses`` or
    ``validate_responses``) as one frame; an output found in two sources is refused, naming both."""
    parts = list(parts)
    if len(parts) == 1:
        return parts[0][1]
    frame = pd.concat([f.assign(**{_POS: i}) for i, (_, f) in enumerate(parts)], ignore_index=True)
    dup = frame.duplicated(KEY, keep="first")
    if dup.any():
        at = frame.index[dup][0]
        condition, board_id, trial = (frame.at[at, c] for c in KEY)
        first = frame.loc[(frame[KEY] == frame.loc[at, KEY]).all(axis=1), _POS].iloc[0]
        raise UserError(
            f"{parts[frame.at[at, _POS]][0]}: duplicate output (condition {condition!r}, board_id "
            f"{board_id!r}, trial {trial}); also in {parts[first][0]}"
        )
    frame = frame.drop(columns=[_POS])
    frame.attrs["invalid"] = [m for _, f in parts for m in f.attrs.get("invalid", [])]
    return frame


def _check(df: pd.DataFrame, bank: pd.DataFrame | None, problems: _Problems, positions: bool = False) -> pd.DataFrame:
    df = df.reset_index(drop=True)
    if _POS not in df.columns:  # an empty file
        df[_POS] = np.arange(1, len(df) + 1)
    for col in REQUIRED:
        if col not in df.columns:
            df[col] = None
    # every line, failed attempts included, must hold its keys and status with the right types: a board_id 5
    # or a status 3 is a damaged line, not an unknown board or a failed attempt
    df = _drop_bad(df, _type_problems(df, problems.typed), problems)
    # failed run-log attempts are not outputs
    if "status" in df.columns:
        status = df["status"].where(df["status"].notna(), OK).astype(str)
        failed = status != OK
        if failed.any():
            # every key is present and typed by now: trial 1 and 1.0 are one key
            keys = df[KEY].astype({"condition": object, "board_id": object})
            keys["trial"] = pd.to_numeric(keys["trial"]).astype(np.int64)
            done, tried = pd.MultiIndex.from_frame(keys.loc[~failed]), pd.MultiIndex.from_frame(keys.loc[failed])
            lost = tried[~tried.isin(done)].unique().size
            if lost:
                warnings.warn(
                    f"{problems.source}: {count(lost, 'output')} {plural(lost, 'has')} no answer (only "
                    f"failed attempts, or a conversation not ended) and {plural(lost, 'is')} not scored",
                    stacklevel=3,
                )
            df = df.loc[~failed].reset_index(drop=True)
    bad = pd.Series("", index=df.index, dtype=object)
    for col in REQUIRED:
        miss = df[col].isna()
        bad = bad.mask(
            miss & (bad == ""),
            f"missing field {col!r}" + ("; write an empty string for an empty answer" if col == "response" else ""),
        )
    trial = pd.to_numeric(df["trial"], errors="coerce")
    not_int = trial.isna() | (trial != np.floor(trial))
    if df["trial"].dtype == object:  # True is not trial 1
        not_int |= df["trial"].map(lambda v: isinstance(v, bool))
    elif df["trial"].dtype == bool:
        not_int |= True
    bad = bad.mask(not_int & (bad == ""), "trial " + df["trial"].astype(str) + " is not an integer")
    out_of_range = ~not_int & ((trial < 0) | (trial > MAX_TRIAL))
    bad = bad.mask(out_of_range & (bad == ""), "trial " + df["trial"].astype(str) + f" is outside 0..{MAX_TRIAL}")
    not_text = ~df["response"].map(lambda v: isinstance(v, str) or v is None).astype(bool)
    if not_text.any():  # (the message is built only then: an empty numeric column cannot be added to text)
        bad = bad.mask(
            not_text & (bad == ""),
            "response is "
            + df["response"].map(_json_kind).astype(object)
            + ", not text; an answer must be a JSON string",
        )
    df = _drop_bad(df, bad, problems)
    df["trial"] = pd.to_numeric(df["trial"]).astype(np.int64)
    for col in ("board_id", "condition"):
        df[col] = df[col].astype(str)
    bad = pd.Series("", index=df.index, dtype=object)
    dup = df.duplicated(KEY, keep="first")
    if dup.any():
        first = df.loc[~dup].set_index(KEY)[_POS]
        at = first.reindex(pd.MultiIndex.from_frame(df.loc[dup, KEY])).to_numpy()
        bad.loc[dup] = [
            f"duplicate output (condition {c!r}, board_id {b!r}, trial {t}); first seen at {problems.unit} {p}"
            for (c, b, t), p in zip(df.loc[dup, KEY].itertuples(index=False), at)
        ]
    if bank is not None:
        bank = getattr(bank, "frame", bank)  # a Bank's rows
        unknown = ~df["board_id"].isin(bank["board_id"].astype(str))
        bad = bad.mask(
            unknown & (bad == ""),
            "unknown board_id "
            + df["board_id"].map(repr)
            + "; it is not in the bank (score against the bank the responses were made from)",
        )
    df = _drop_bad(df, bad, problems)
    if problems.items:
        msgs = problems.messages()
        warnings.warn(f"skipped {count(len(msgs), 'invalid line')}:\n" + "\n".join(msgs), stacklevel=3)
    df = (df if positions else df.drop(columns=[_POS])).reset_index(drop=True)
    df.attrs["invalid"] = problems.messages()
    return df


def _not_text(column: pd.Series) -> pd.Series:
    """True where a value is neither text nor missing (one C-level scan when the column is all text)."""
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):
        return pd.Series(False, index=column.index)
    return ~column.map(lambda v: isinstance(v, str) or v is None or (isinstance(v, float) and np.isnan(v))).astype(bool)


def _type_problems(df: pd.DataFrame, typed: bool) -> pd.Series:
    """What is wrong with the type of each row's board_id, condition, status and trial ("" when nothing).

    ``typed``: the source keeps types (JSONL, Parquet), so a trial given as text ("3") is refused too; a CSV
    stores everything as text. A missing key is refused too (a failed attempt without one cannot be told
    apart from another output's); a missing response is left to the checks of completed outputs."""
    bad = pd.Series("", index=df.index, dtype=object)
    # an answer named by its trial id alone is resolved through the prompt export it answers (``score --prompts``)
    by_id = df["trial_id"].notna() if "trial_id" in df.columns else pd.Series(False, index=df.index)
    for col in REQUIRED[:3]:  # board_id, condition, trial: the first one missing is named
        missing = df[col].isna() & (bad == "")
        bad = bad.mask(missing & ~by_id, f"missing field {col!r}")
        bad = bad.mask(
            missing & by_id,
            f"missing field {col!r} (an answer named by its trial_id alone needs "
            f"--prompts EXPORT.jsonl, the prompt export it answers)",
        )
    for col in ("board_id", "condition", "status"):
        if col in df.columns:
            wrong = _not_text(df[col])
            if wrong.any():
                bad = bad.mask(wrong & (bad == ""), f"{col} is " + df[col].map(_json_kind) + ", not text")
    # an empty condition names no run: its verdicts could not be read back (read_verdicts refuses them)
    bad = bad.mask((df["condition"] == "") & (bad == ""), "condition is empty; name the run the answers came from")
    trial = df["trial"]
    if typed and trial.dtype == object:
        text = trial.map(lambda v: isinstance(v, str))
        bad = bad.mask(text & (bad == ""), "trial " + trial.astype(str) + ' is not an integer (it is text, "...")')
    given = trial.notna()
    number = pd.to_numeric(trial.where(given), errors="coerce")
    not_int = given & (number.isna() | (number != np.floor(number)))
    if trial.dtype == object:  # True is not trial 1
        not_int |= trial.map(lambda v: isinstance(v, bool))
    elif trial.dtype == bool:
        not_int |= given
    bad = bad.mask(not_int & (bad == ""), "trial " + trial.astype(str) + " is not an integer")
    outside = given & ~not_int & ((number < 0) | (number > MAX_TRIAL))
    return bad.mask(outside & (bad == ""), "trial " + trial.astype(str) + f" is outside 0..{MAX_TRIAL}")


def _json_kind(value) -> str:
    """What a JSON value is, for messages: ``a list``, ``a number``, ..."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "a number"
    if isinstance(value, (list, tuple, np.ndarray)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _drop_bad(df: pd.DataFrame, bad: pd.Series, problems: _Problems) -> pd.DataFrame:
    flagged = bad != ""
    if not flagged.any():
        return df
    for pos, msg in zip(df.loc[flagged, _POS], bad[flagged]):
        problems.add(int(pos), msg)
    return df.loc[~flagged].reset_index(drop=True)
