"""The one check every verdicts table passes (the files in and out: ``verdict_files``).

A verdicts table feeds every number fastspe prints, so it is checked whole before use:

- schema: every column of ``VERDICT_COLUMNS``, integers that are integers (finite, no nulls, within
  range), true/false flags, no empty key or status cell, status / error kind / parse mode among their
  known values;
- keys: one row per (condition, board_id, trial);
- meaning: ``optimal``, ``economy`` and ``excess`` are recomputed from ``L``, ``status`` and ``depth``
  and a stored value that disagrees is **refused**, not silently replaced: a file whose derived columns
  disagree with its own inputs was edited or damaged, and none of its numbers can be trusted (a measuring
  instrument that "repaired" it would print numbers from a file nobody wrote). The replay's other
  invariants hold too (an illegal plan has an error kind and a first error inside the plan, ``moves``
  has one character per action, a complete plan is no shorter than the certified depth), and a
  board's cohort, second stratum, layout and depth are the same on all of its rows;
- against a bank, when one is given: the bank is of the verdicts' domain, and every board is the bank's, with the
  bank's depth, cohort and second stratum.

The columns are the domain's (``Domain.named``: the second stratum is ``k`` for the sliding puzzle, ``boxes`` for
Sokoban); the domain is resolved once, where a table comes in: a file's metadata (``fastspe.domain``), else the bank
it is checked against, else the one given, else the default domain.

Every problem is an ``InputError`` reading ``FILE: row N (board_id X): what is wrong`` (``line N`` in a
CSV, the header being line 1). All checks are whole-column NumPy/pandas operations, no Python loop per
row.

A table is checked once: ``check_verdicts`` and ``read_verdicts`` hand out a ``Verdicts``, the checked
table with what the check computed, and the stages after them (``metrics.board_sums``, the tables, the
report) trust it and check nothing again. A plain DataFrame given to one of those stages is checked once
where it enters (``as_verdicts``, or ``check_metric_inputs`` for the metrics alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .files import require_columns
from ..domains.codes import STATUS_NAMES
from ..domains.contract import STRATUM, Domain
from ..domains.registry import DEFAULT_DOMAIN, FRAME_DOMAIN, domain_named, domain_names, name_in
from .errors import InputError, input_error
from .prompt_hashes import HASH_COLUMN, verdict_prompt_mismatches
from .verdict_schema import VERDICT_TYPES
from .._names import moved_names
from ..errors import UserError

__all__ = [
    "VERDICT_COLUMNS",
    "KEY",
    "FRAME_DOMAIN",
    "Verdicts",
    "verdicts_domain",
    "verdict_columns",
    "board_info",
    "check_verdicts",
    "as_verdicts",
    "check_metric_inputs",
    "check_against_bank",
]
# the files in and out have a module of their own now
__getattr__ = moved_names(
    __name__, {"read_verdicts": "fastspe.boundary.verdict_files", "write_verdicts": "fastspe.boundary.verdict_files"}
)

VERDICT_COLUMNS = list(VERDICT_TYPES)  # their types in a Parquet file: boundary.verdict_schema; STRATUM: the domain's
KEY = ["condition", "board_id", "trial"]
BOARD_INFO = ["cohort", STRATUM, "layout", "depth"]
PARSE_MODES = ("exact", "normalized", "no_plan")
KIND = "verdicts"

# least allowed value of each integer column (first_error is -1 when there is no illegal action)
INT_LOWER = {"trial": 0, STRATUM: 0, "depth": 0, "L": 0, "first_error": -1, "final_h": 0, "min_h": 0, "revisits": 0}
BOOL_COLUMNS = ["multiple_moves", "truncated", "goal_midway", "optimal"]
FLOAT_COLUMNS = ["economy", "excess"]
NAME_COLUMNS = ["board_id", "condition", "cohort", "layout", "status", "parse_mode"]  # never empty
TEXT_COLUMNS = ["error_kind", "normalization", "moves"]  # "" is a value (a CSV reads it back as NaN)
METRIC_INPUTS = KEY + BOARD_INFO + ["status", "L", "optimal", "economy", "excess"]
NA_TEXT = ["", "nan", "NaN", "NA", "N/A", "null", "None"]
_TRUE, _FALSE = {"true", "1", "1.0"}, {"false", "0", "0.0"}


def verdict_columns(domain) -> list[str]:
    """``VERDICT_COLUMNS`` as ``domain`` (a name or ``Domain``) names them."""
    return domain_named(domain).named(VERDICT_COLUMNS)


def board_info(domain) -> list[str]:
    """What is the same on every row of a board (``BOARD_INFO``), as ``domain`` names it."""
    return domain_named(domain).named(BOARD_INFO)


def _bank_domain(bank):
    """The domain a bank given with verdicts is of (a ``Bank``'s, or the one a DataFrame's ``attrs`` name)."""
    if bank is None:
        return None
    found = getattr(bank, "domain", None)
    if isinstance(found, Domain):
        return found
    name = name_in(bank)
    return None if name is None else domain_named(name)


def verdicts_domain(df, bank=None, domain=None, source="verdicts") -> Domain:
    """The domain of a verdicts table, resolved once: the one it records (a file's metadata, a DataFrame's
    ``attrs``), else ``domain``, else its bank's, else the default domain. A bank of another domain is refused,
    naming both."""
    recorded = name_in(df)
    found = domain_named(recorded) if recorded is not None else None
    given = None if domain is None else domain_named(domain)
    bank_domain = _bank_domain(bank)
    if found is None and given is None and bank_domain is not None:  # a CSV or JSONL file records no domain
        found = _domain_by_columns(df, bank_domain)
    if found is not None and given is not None and found is not given:
        raise InputError(f"{source}: {found.name} verdicts, not {given.name} ones")
    chosen = found or given or bank_domain or domain_named(DEFAULT_DOMAIN)
    if bank_domain is not None and bank_domain is not chosen:
        where = getattr(bank, "source", "the bank")
        raise InputError(
            f"{source}: {chosen.name} verdicts, but {where} is a {bank_domain.name} bank; score the "
            "answers against the bank they were made for"
        )
    return chosen


def _domain_by_columns(df, bank_domain: Domain) -> Domain | None:
    """For verdicts that record no domain and lack the bank domain's columns: the domain whose verdict columns
    they have (so a mix of domains is named as one, not as missing columns), else None."""
    columns = set(getattr(df, "columns", ()))
    if not columns or set(bank_domain.named(VERDICT_COLUMNS)) <= columns:
        return None
    for name in domain_names():
        try:
            other = domain_named(name)
        except UserError:  # a broken plugin: the missing columns are named instead
            continue
        if other is not bank_domain and set(other.named(VERDICT_COLUMNS)) <= columns:
            return other
    return None


@dataclass(frozen=True, eq=False)
class Verdicts:
    """A verdicts table that passed ``check_verdicts``: later stages trust it and check nothing again.

    frame : the checked table (clean types, a frame of its own: read it, do not change it in place; a
        changed copy is checked again with ``check_verdicts``); its ``attrs`` name its domain
    optimal, economy, excess : the derived columns as the check recomputed them (``derived_columns``),
        the exact values the metrics sum
    bank : the bank (the very object: a ``Bank`` or a bank frame) the table was checked against, or None
    domain : the verdicts' ``Domain`` (its stratum column, error kinds, ...)
    """

    frame: pd.DataFrame
    optimal: np.ndarray
    economy: np.ndarray
    excess: np.ndarray
    bank: object = field(default=None, repr=False)
    domain: Domain = field(default=None, repr=False)

    def checked_against(self, bank, source="verdicts") -> "Verdicts":
        """These verdicts, checked against ``bank`` unless they already were (``InputError`` if they fail)."""
        if bank is self.bank:
            return self
        check_against_bank(self.frame, bank, source, self.domain)
        return replace(self, bank=bank)


class _Rows:
    """Where a row of the checked table is: ``FILE: row N (board_id X)``."""

    def __init__(self, df: pd.DataFrame, source, unit: str, first: int):
        self.df, self.source, self.unit, self.first = df, str(source), unit, first

    def error(self, pos: int, what: str, count: int = 1) -> InputError:
        board = None
        if "board_id" in self.df.columns:
            value = self.df["board_id"].iat[pos]
            board = value if isinstance(value, str) and value else None
        more = f" ({count - 1} more such {self.unit}s)" if count > 1 else ""
        return input_error(self.source, what + more, self.unit, self.first + pos, board)

    def refuse(self, bad, what) -> None:
        """Raise for the first True of ``bad``; ``what(pos)`` (or a string) says what is wrong there."""
        bad = np.asarray(bad, dtype=bool)
        if bad.any():
            pos = int(np.argmax(bad))
            raise self.error(pos, what(pos) if callable(what) else what, int(bad.sum()))


# ---- column kinds -----------------------------------------------------------------------------------------


def is_text(values: pd.Series) -> bool:
    return values.dtype == object or pd.api.types.is_string_dtype(values.dtype)


def _integers(rows: _Rows, col: str) -> np.ndarray:
    values = rows.df[col]
    if pd.api.types.is_bool_dtype(values.dtype):
        rows.refuse(np.ones(len(values), bool), f"{col} is true/false, not an integer")
    if pd.api.types.is_integer_dtype(values.dtype) and not values.isna().any():
        out = values.to_numpy(np.int64)
    else:
        number = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        rows.refuse(values.isna().to_numpy(), f"{col} is missing")
        if values.dtype == object:  # True in an object column is not 1
            rows.refuse(
                values.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(bool),
                f"{col} is true/false, not an integer",
            )
        rows.refuse(
            ~np.isfinite(number) | (number != np.floor(number)) | (np.abs(number) > 2.0**53),
            lambda i: f"{col} {_show(values.iat[i])} is not an integer",
        )
        out = number.astype(np.int64)
    low = INT_LOWER.get(col, 0)  # a domain's second stratum (k, boxes) counts from 0
    rows.refuse(out < low, lambda i: f"{col} is {out[i]}, below its least value {low}")
    return out


def _flags(rows: _Rows, col: str) -> np.ndarray:
    values = rows.df[col]
    if pd.api.types.is_bool_dtype(values.dtype) and not values.isna().any():
        return values.to_numpy(bool)
    rows.refuse(values.isna().to_numpy(), f"{col} is missing")
    text = values.astype(str).str.strip().str.lower()
    truth, false = text.isin(_TRUE).to_numpy(), text.isin(_FALSE).to_numpy()
    rows.refuse(~(truth | false), lambda i: f"{col} {_show(values.iat[i])} is not true or false")
    return truth


def _floats(rows: _Rows, col: str) -> np.ndarray:
    values = rows.df[col]
    if pd.api.types.is_bool_dtype(values.dtype):
        rows.refuse(np.ones(len(values), bool), f"{col} is true/false, not a number")
    if not is_text(values):
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    number = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    blank = values.isna().to_numpy() | values.astype(str).str.strip().isin(NA_TEXT).to_numpy()
    rows.refuse(np.isnan(number) & ~blank, lambda i: f"{col} {_show(values.iat[i])} is not a number")
    return number


def _names(rows: _Rows, col: str, allow_empty: bool) -> pd.Series:
    """The column as strings, ``""`` for an empty cell (refused unless ``allow_empty``)."""
    values = rows.df[col]
    missing = values.isna()
    if not allow_empty:
        rows.refuse(missing.to_numpy(), f"{col} is missing")
    if pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
        values = values.astype(str).where(~missing, "")  # ints in a typed column written by another tool
    elif missing.any():
        values = values.fillna("")
    if not allow_empty:
        rows.refuse((values == "").to_numpy(bool), f"{col} is empty")
    return values


def _differs(new, old: pd.Series) -> bool:
    if isinstance(new, pd.Series):
        return not (new.dtype == old.dtype and new.equals(old))
    return not (new.dtype == old.dtype and np.array_equal(new, old.to_numpy(), equal_nan=new.dtype.kind == "f"))


def _known(rows: _Rows, values: pd.Series, col: str, allowed) -> None:
    rows.refuse(
        ~values.isin(allowed).to_numpy(bool),
        lambda i: f"{col} {_show(values.iat[i])} is not one of {', '.join(repr(a) for a in allowed)}",
    )


# ---- meaning ------------------------------------------------------------------------------------------------


def derived_columns(L: np.ndarray, complete: np.ndarray, depth: np.ndarray) -> tuple[np.ndarray, ...]:
    """``optimal``, ``economy``, ``excess`` of Section 2.2 from int64 ``L``, ``depth`` and bool ``complete``.

    economy = d*/L for a complete plan (1.0 for a complete empty plan, only possible at d* = 0), excess
    = L - d* for a complete plan; both NaN otherwise; optimal = complete and L = d*.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        economy = np.where(complete, np.where(L > 0, depth / np.maximum(L, 1), 1.0), np.nan)
    excess = np.where(complete, (L - depth).astype(np.float64), np.nan)
    return complete & (L == depth), economy, excess


def _same(stored: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Equal, NaN matching NaN; 1e-12 relative slack for a float written as text and read back."""
    with np.errstate(invalid="ignore"):
        return (np.isnan(stored) & np.isnan(ref)) | (np.abs(stored - ref) <= 1e-12 * np.abs(ref))


def _number(x) -> str:
    return "NaN (empty)" if np.isnan(x) else repr(float(x))


def _show(value) -> str:
    """A cell as the user would write it: ``1.5``, ``'done'`` (not ``np.float64(1.5)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _check_meaning(
    rows: _Rows,
    domain: Domain,
    status,
    L: np.ndarray,
    depth: np.ndarray,
    optimal: np.ndarray,
    economy: np.ndarray,
    excess: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique keys, one cohort/k/layout/depth per board, derived columns that agree with their inputs.

    Returns ``optimal, economy, excess`` recomputed (``derived_columns``): they equal the stored ones
    up to the last bits of a float written as text, so metrics built on them are exact.
    """
    df = rows.df
    dup = df.duplicated(KEY).to_numpy()
    if dup.any():
        pos = int(np.argmax(dup))
        same = np.ones(len(df), bool)
        for col in KEY:
            same &= (df[col] == df[col].iat[pos]).to_numpy()
        first = rows.first + int(np.argmax(same))
        rows.refuse(
            dup,
            f"duplicate output (condition {_show(df['condition'].iat[pos])}, board_id "
            f"{_show(df['board_id'].iat[pos])}, trial {df['trial'].iat[pos]}); first seen at {rows.unit} "
            f"{first}; every (condition, board_id, trial) is one output",
        )
    info = domain.named(BOARD_INFO)
    combos = ~df.duplicated(["board_id", *info]).to_numpy()
    clash = np.zeros(len(df), bool)
    clash[combos] = df["board_id"][combos].duplicated().to_numpy()
    if clash.any():
        pos = int(np.argmax(clash))
        first = int(np.argmax((df["board_id"] == df["board_id"].iat[pos]).to_numpy()))
        col = next(c for c in info if df[c].iat[pos] != df[c].iat[first])
        rows.refuse(
            clash,
            f"{col} is {_show(df[col].iat[pos])} but {_show(df[col].iat[first])} on {rows.unit} "
            f"{rows.first + first} for the same board",
        )
    status = pd.Series(status)
    complete = (status == "complete").to_numpy(bool)
    # a bank whose d* does not count moves (verdict_schema.COST_TYPES): the plans' cost in its unit stands for L
    word, unit = "L", "moves"
    if "cost" in df.columns:
        word, L = "cost", _integers(rows, "cost")
        unit = str(df["cost_unit"].iat[0]) if "cost_unit" in df.columns and len(df) else "cost"
    rows.refuse(
        complete & (L < depth),
        lambda i: (
            f"a complete plan of {L[i]} {unit} is shorter than the certified "
            f"shortest plan (depth {depth[i]}): the file is wrong"
        ),
    )
    ref_optimal, ref_economy, ref_excess = derived_columns(L, complete, depth)
    why = f"; it must follow from {word}, status and depth (the file was edited or damaged: re-score the answers)"
    rows.refuse(
        optimal != ref_optimal,
        lambda i: (
            f"optimal is {bool(optimal[i])} but {word} = {L[i]}, status "
            f"{status.iat[i]}, depth {depth[i]} make it "
            f"{bool(ref_optimal[i])}{why}"
        ),
    )
    for name, stored, ref in (("economy", economy, ref_economy), ("excess", excess, ref_excess)):
        rows.refuse(
            ~_same(stored, ref),
            lambda i: (
                f"{name} is {_number(stored[i])} but {word} = {L[i]}, status "
                f"{status.iat[i]}, depth {depth[i]} make it {_number(ref[i])}{why}"
            ),
        )
    return ref_optimal, ref_economy, ref_excess


def _check_bank(rows: _Rows, bank, depth: np.ndarray, k: np.ndarray, cohort: pd.Series, stratum: str) -> None:
    carrier, bank = bank, getattr(bank, "frame", bank)  # a Bank's rows
    require_columns(
        bank, ["board_id", "cohort", stratum, "depth"], "bank rows", "read it with fastspe.boundary.banks.read_bank"
    )
    if bank["board_id"].duplicated().any():
        raise InputError(
            f"bank: board_id {bank['board_id'][bank['board_id'].duplicated()].iloc[0]!r} appears more "
            "than once; read the bank with fastspe.boundary.banks.read_bank"
        )
    ids = rows.df["board_id"].astype(str)
    at = pd.Index(bank["board_id"].astype(str)).get_indexer(ids)  # a bank's board_ids are unique
    rows.refuse(at < 0, "board_id is not in the bank; use the bank the answers were scored against")
    for col, mine in (("depth", depth), (stratum, k), ("cohort", cohort.to_numpy(dtype=object))):
        theirs = bank[col].to_numpy()[at]
        differs = mine != (theirs.astype(str).astype(object) if col == "cohort" else theirs.astype(np.int64))
        rows.refuse(
            differs,
            lambda i: (
                f"{col} is {_show(mine[i])} but the bank says {_show(theirs[i])}; re-score the "
                "answers against this bank"
            ),
        )
    mismatched = verdict_prompt_mismatches(rows.df, rows.source, carrier, at)
    if mismatched is not None:
        rows.refuse(
            mismatched,
            f"the answer's prompt ({HASH_COLUMN}) is not the prompt the bank ({carrier.source}) "
            "gives this board; use the bank the answers were scored against",
        )


def _require(df, columns, source) -> None:
    """``TypeError`` unless ``df`` is a DataFrame; ``InputError`` naming ``source`` and the columns it lacks."""
    try:
        require_columns(df, columns, f"{source}: its rows", "make them with `fastspe score`")
    except TypeError:
        raise
    except ValueError as exc:
        raise InputError(str(exc)) from None


# ---- public checks ------------------------------------------------------------------------------------------


def check_verdicts(
    df: pd.DataFrame, source="verdicts", bank=None, *, unit: str = "row", first: int = 1, domain=None
) -> Verdicts:
    """Check a verdicts table whole and return it checked (``Verdicts``); raise ``InputError`` at the first fault.

    Parameters
    ----------
    df : DataFrame with the domain's ``verdict_columns`` (and any metadata columns, passed through)
    source : what to name in errors (a file path, "verdicts")
    bank : optional bank (a ``Bank`` or a bank DataFrame with ``board_id, cohort, depth`` and the stratum): every
        board must be in it with the same depth, cohort and stratum
    unit, first : how rows are named: ``unit`` N where N = ``first`` + the 0-based position
    domain : the verdicts' domain (a name or ``Domain``) when ``df`` does not record one (``verdicts_domain``)

    Returns
    -------
    ``Verdicts`` whose ``frame`` is a copy of ``df`` in its row order: integer columns int64, flags
    bool, text columns strings (``""``, never NaN), ``economy``/``excess`` float64. Stored derived
    columns that disagree with ``L``, ``status`` and ``depth`` are refused, never repaired (see the
    module docstring).
    """
    chosen = verdicts_domain(df, bank, domain, source)
    _require(df, chosen.named(VERDICT_COLUMNS), source)
    if isinstance(df, pd.DataFrame) and df.columns.duplicated().any():
        raise InputError(f"{source}: columns repeat: {sorted(set(df.columns[df.columns.duplicated()]))}")
    df = df.reset_index(drop=True)
    if df["first_error"].isna().any():  # null: no illegal action (a typed file's nulls, kept by another tool)
        df = df.assign(first_error=df["first_error"].fillna(-1))
    rows = _Rows(df, source, unit, first)
    out = {}
    for col in NAME_COLUMNS:
        out[col] = _names(rows, col, allow_empty=False)
    for col in TEXT_COLUMNS:
        out[col] = _names(rows, col, allow_empty=True)
    rows = _Rows(df.assign(board_id=out["board_id"]), source, unit, first)
    stratum = chosen.stratum
    for col in chosen.named(INT_LOWER):
        out[col] = _integers(rows, col)
    for col in BOOL_COLUMNS:
        out[col] = _flags(rows, col)
    for col in FLOAT_COLUMNS:
        out[col] = _floats(rows, col)
    # assign only what changed: rebuilding unchanged text columns costs more than all the checks
    changed = {col: v for col, v in out.items() if _differs(v, df[col])}
    clean = df.assign(**changed) if changed else df
    rows = _Rows(clean, source, unit, first)
    status, kind, mode, L = out["status"], out["error_kind"], out["parse_mode"], out["L"]
    _known(rows, status, "status", STATUS_NAMES)
    _known(rows, kind, "error_kind", chosen.error_names)
    _known(rows, mode, "parse_mode", PARSE_MODES)
    illegal = (status == "illegal").to_numpy(bool)
    has_kind = (kind != "").to_numpy(bool)
    is_format = (kind == "format").to_numpy(bool)
    no_plan = (mode == "no_plan").to_numpy(bool)
    rows.refuse(
        illegal != has_kind,
        lambda i: (
            f"status {status.iat[i]!r} with error_kind {kind.iat[i]!r}: an "
            "illegal plan has an error kind and no other plan has one"
        ),
    )
    rows.refuse(is_format & ~no_plan, "error_kind 'format' but the answer has a plan (parse_mode is not 'no_plan')")
    rows.refuse(no_plan & (L != 0), "parse_mode 'no_plan' with L > 0")
    actions = out["moves"].str.len().to_numpy(np.int64)
    rows.refuse(actions != L, lambda i: f"moves has {actions[i]} actions but L is {L[i]}")
    first_error = out["first_error"]
    rows.refuse(
        np.where(illegal & ~is_format, (first_error < 0) | (first_error >= L), first_error != -1),
        lambda i: (
            f"first_error {first_error[i]} does not fit status {status.iat[i]!r}, error_kind "
            f"{kind.iat[i]!r} and L = {L[i]} (an index of an illegal action, else -1)"
        ),
    )
    rows.refuse(out["min_h"] > out["final_h"], "min_h is above final_h")
    derived = _check_meaning(rows, chosen, status, L, out["depth"], out["optimal"], out["economy"], out["excess"])
    if bank is not None:
        _check_bank(rows, bank, out["depth"], out[stratum], out["cohort"], stratum)
    exact = {col: v for col, v in zip(("optimal", "economy", "excess"), derived) if _differs(v, clean[col])}
    clean = clean.assign(**exact) if exact else clean  # reset_index made a new frame: the caller's is never modified
    clean.attrs[FRAME_DOMAIN] = chosen.name
    return Verdicts(clean, *derived, bank=bank, domain=chosen)


def as_verdicts(verdicts: Verdicts | pd.DataFrame, bank=None, source="verdicts", domain=None) -> Verdicts:
    """``verdicts`` checked once: a ``Verdicts`` as it is (checked against ``bank`` if it was not), a
    DataFrame through ``check_verdicts``. The entry of the stages that accept either."""
    if isinstance(verdicts, Verdicts):
        if domain is not None and domain_named(domain) is not verdicts.domain:
            raise InputError(f"{source}: {verdicts.domain.name} verdicts, not {domain_named(domain).name} ones")
        return verdicts if bank is None else verdicts.checked_against(bank, source)
    return check_verdicts(verdicts, source, bank, domain=domain)


def check_metric_inputs(
    df: pd.DataFrame, source="verdicts", bank=None, domain=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The part of ``check_verdicts`` that the metrics rest on, for a DataFrame already in memory.

    Needs ``condition, board_id, trial, cohort, layout, depth, status, L, optimal, economy, excess`` and the
    domain's stratum (``verdicts_domain``); checks known statuses, integer ``trial``/``L``/``depth``, unique keys,
    one cohort, stratum, layout and depth per board, derived columns that agree with ``L``/``status``/``depth``, and the
    bank when given. Cheap (whole-column operations); raises ``InputError``.

    Returns ``optimal`` (bool), ``economy`` and ``excess`` (float64) recomputed from ``L``, ``status``
    and ``depth`` (equal to the stored ones, which were checked), for exact metrics.
    """
    chosen = verdicts_domain(df, bank, domain, source)
    stratum = chosen.stratum
    _require(df, chosen.named(METRIC_INPUTS), source)
    df = df.reset_index(drop=True)
    rows = _Rows(df, source, "row", 1)
    for col in ("condition", "board_id", "cohort", "layout", "status"):
        rows.refuse(df[col].isna().to_numpy(), f"{col} is missing")
    ints = {}
    for col in ("trial", stratum, "depth", "L"):
        ints[col] = _integers(rows, col)  # names the first row that is not an integer in range
    status = df["status"]
    _known(rows, status, "status", STATUS_NAMES)
    # the metrics read these as they are: a text "False" would count as true, so only real types pass
    number = lambda t: pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t)  # noqa: E731
    kinds = {"optimal": pd.api.types.is_bool_dtype, "economy": number, "excess": number}
    for col, is_kind in kinds.items():
        if not is_kind(df[col].dtype) or (col == "optimal" and df[col].isna().any()):
            raise InputError(
                f"{source}: column {col} holds {df[col].dtype} values, not "
                f"{'true/false' if col == 'optimal' else 'numbers'}; read verdicts files with "
                "fastspe.boundary.verdict_files.read_verdicts"
            )
    optimal = df["optimal"].to_numpy(bool)
    economy, excess = df["economy"].to_numpy(np.float64), df["excess"].to_numpy(np.float64)
    derived = _check_meaning(rows, chosen, status, ints["L"], ints["depth"], optimal, economy, excess)
    if bank is not None:
        _check_bank(rows, bank, ints["depth"], ints[stratum], df["cohort"].astype(str), stratum)
    return derived


def check_against_bank(df: pd.DataFrame, bank, source="verdicts", domain=None) -> None:
    """``bank`` is of the verdicts' domain, and every board of ``df`` is in it with the bank's depth, stratum and
    cohort; ``InputError`` if not."""
    stratum = verdicts_domain(df, bank, domain, source).stratum
    _require(df, ["board_id", "cohort", stratum, "depth"], source)
    rows = _Rows(df.reset_index(drop=True), source, "row", 1)
    _check_bank(rows, bank, _integers(rows, "depth"), _integers(rows, stratum), rows.df["cohort"].astype(str), stratum)
