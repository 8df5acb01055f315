"""A run history: scored runs kept under a label, for trends and comparisons across checkpoints.

The store is a plain folder (default ``./fastspe-history``, or ``$FASTSPE_HISTORY``), chosen over an
embedded database because it needs nothing beyond Parquet, diffs and copies like any folder, and a CI
cache can carry it between jobs:

- ``index.jsonl``: one line per run, appended and fsynced, never rewritten: number, label, bank hash,
  conditions, metadata, the bootstrap settings and the content digests of the two files below;
- ``runs/NNNN.parquet``: the run's verdicts (checksummed, as ``fastspe score`` writes them), so
  ``history compare`` can pair boards later;
- ``metrics/NNNN.parquet``: its pooled estimates and intervals per cohort and condition (checksummed);
- ``index.lock``: the inter-process lock (``filelock``) that lets one writer at a time in.

What the store guarantees (a history that cannot lie):

- one writer at a time: ``add`` checks the label and the bank, numbers the run and appends its index
  line while holding the lock, so concurrent adds get distinct consecutive numbers;
- every read checks every file it uses: the Parquet page CRCs and content digest (``boundary.parquet``),
  and that digest against the one the index line recorded, so a file edited with pandas, a flipped bit
  or a run file copied over another is refused naming the file, never shown;
- the index is checked whole on every read: each line a JSON object of exactly the known keys with
  values of the right type, runs numbered 1, 2, 3... in order, one run per label, one bank per store;
  a damaged line is refused naming the file and the line.

Every run of a store must come from the same bank (the hash of its boards): trends across banks
would compare different puzzles.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, Mapping

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from filelock import FileLock, Timeout

from ..boundary.errors import InputError, input_error
from ..errors import UserError
from .. import errors
from ..boundary.parquet import DIGEST_KEY, read_parquet, table_digest, write_parquet
from ..boundary.verdicts import Verdicts, as_verdicts, read_verdicts, write_verdicts
from ..kernels import MAX_SEED
from .intervals import DEFAULT_SEED, bootstrap_intervals
from .metrics import board_sums

DEFAULT_STORE = "fastspe-history"
DEFAULT_DRAWS = 2000
INDEX = "index.jsonl"
LOCK = "index.lock"
LOCK_TIMEOUT = 300.0  # seconds; a writer holds the lock only to write two files and one line
METRICS_KIND = "history metrics"
METRIC_COLUMNS = ["cohort", "condition", "metric", "estimate", "lo", "hi", "draws_used", "N"]
PARTS = {"verdicts": "runs", "metrics": "metrics"}  # a run's files: digest key -> folder
_BANK_COLUMNS = ["board_id", "rows", "cols", "blocks", "initial", "depth"]
# printable: no C0/C1 controls, DEL or bidi overrides (they would rewrite what a terminal shows), no lone
# surrogates (an undecodable byte of a command line: not UTF-8, so no index line could hold it)
_LABEL = re.compile(r"^[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]{1,100}$")
_HEX = {32: re.compile(r"^[0-9a-f]{32}$"), 64: re.compile(r"^[0-9a-f]{64}$")}


class ParameterError(InputError, errors.ParameterError):
    """A bad value of one parameter of the API; ``for_option`` says the same of a command-line option."""

    def __init__(self, parameter: str, value, what: str):
        self.parameter, self.value, self.what = parameter, value, what
        super().__init__(f"{{{parameter}}} {{value!r}}: {{what}}", parameter, value=value, what=what)

    def for_option(self, name: str) -> str:
        return f"{name} {self.value!r}: {self.what}"


def store_path(store=None) -> Path:
    """The store folder: ``store``, else ``$FASTSPE_HISTORY``, else ``./fastspe-history``."""
    return Path(store or os.environ.get("FASTSPE_HISTORY") or DEFAULT_STORE)


def bank_hash(bank_table) -> str:
    """A digest of the bank's boards (ids, layouts, initial boards, depths), whatever its file format."""
    cols = [c for c in _BANK_COLUMNS if c in bank_table.column_names]
    return table_digest(bank_table.select(cols).sort_by("board_id"))[:32]


def label_problem(label) -> str | None:
    """What is wrong with ``label`` as a run's name, or None."""
    if not isinstance(label, str) or not _LABEL.match(label) or label != label.strip():
        return "give 1-100 printable characters without surrounding spaces"
    return None


@dataclass(frozen=True)
class Run:
    """One line of the index."""

    number: int
    label: str
    bank_hash: str
    conditions: list
    meta: dict
    draws: int
    seed: int
    digests: dict  # "verdicts" / "metrics" -> the content digest its file was written with

    @property
    def stem(self) -> str:
        return f"{self.number:04d}"


# ---- the index: each line checked on its own, then the lines against each other ------------------------

def _show(value) -> str:
    """A JSON value as it stands in the line, with its kind when that is the problem (``"2"`` is a string)."""
    text = json.dumps(value, ensure_ascii=False)
    text = text if len(text) <= 40 else text[:37] + "..."
    kind = {str: "a string", bool: "true/false", float: "a fraction", list: "a list", dict: "an object",
            type(None): "null"}.get(type(value))
    return f"{text} ({kind})" if kind else text


def _whole(value, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high  # bool is an int subclass: refused by the type test


def _utf8(text) -> bool:
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def _text_map(value) -> bool:
    return isinstance(value, dict) and all(_utf8(k) and _utf8(v) for k, v in value.items())


def _digests_problem(value) -> str | None:
    if not isinstance(value, dict) or set(value) != set(PARTS):
        return f"digests {_show(value)} is not an object with the keys {', '.join(sorted(PARTS))}"
    for part, digest in value.items():
        if not isinstance(digest, str) or not _HEX[64].match(digest):
            return f"digests.{part} {_show(digest)} is not a 64-digit hexadecimal content digest"
    return None


# per key: what is wrong with its value, or None
_CHECKS = {
    "number": lambda v: None if _whole(v, 1, 10**9) else f"number {_show(v)} is not a whole number >= 1",
    "label": lambda v: None if label_problem(v) is None else f"label {_show(v)} is not a run label",
    "bank_hash": lambda v: None if isinstance(v, str) and _HEX[32].match(v)
    else f"bank_hash {_show(v)} is not a 32-digit hexadecimal bank hash",
    "conditions": lambda v: None if isinstance(v, list) and v and all(isinstance(c, str) and c for c in v)
    else f"conditions {_show(v)} is not a non-empty list of condition names",
    "meta": lambda v: None if _text_map(v) else f"meta {_show(v)} is not an object of text values",
    "draws": lambda v: None if _whole(v, 1, 10**9) else f"draws {_show(v)} is not a whole number >= 1",
    "seed": lambda v: None if _whole(v, 0, MAX_SEED) else f"seed {_show(v)} is not a whole number >= 0",
    "digests": _digests_problem,
}


def _unique_keys(pairs):
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise UserError(f"key {repeated[0]!r} appears twice")
    return dict(pairs)


def _no_constant(name: str):
    raise UserError(f"{name} is not a JSON number")


def parse_entry(raw: bytes) -> Run:
    """One index line as a ``Run``; a ``ValueError`` says what is wrong with it (without file or line)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})") from None
    try:
        obj = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except RecursionError:
        raise UserError("not a history entry (JSON nested too deep)") from None
    except ValueError as exc:  # JSONDecodeError, a repeated key, NaN or Infinity
        raise UserError(f"not a history entry (not JSON: {exc})") from None
    if not isinstance(obj, dict):
        raise UserError(f"not a history entry (a JSON {type(obj).__name__}, not an object)")
    missing, unknown = sorted(set(_CHECKS) - set(obj)), sorted(set(obj) - set(_CHECKS))
    if missing:
        raise UserError(f"missing key(s) {', '.join(map(repr, missing))}"
                        + ("; stores written before fastspe checksummed them cannot be proven unchanged:"
                            " add their runs again into a new store" if missing == ["digests"] else ""))
    if unknown:
        raise UserError(f"unknown key(s) {', '.join(map(repr, unknown))}")
    for key, check in _CHECKS.items():
        problem = check(obj[key])
        if problem:
            raise UserError(problem)
    return Run(**obj)


def _check_together(runs: list[Run], lines: list[int], path: Path) -> None:
    """Numbers 1, 2, 3... in order, one run per label, one bank: a line that breaks this was edited."""
    labels: dict[str, int] = {}
    for pos, (run, line) in enumerate(zip(runs, lines)):
        if run.number != pos + 1:
            seen = [r.number for r in runs[:pos]]
            why = "repeats an earlier run's number" if run.number in seen else f"should be {pos + 1}"
            raise input_error(path, f"run number {run.number} {why}: runs are numbered 1, 2, 3... in the order "
                                    "added; the store is damaged", "line", line)
        if run.label in labels:
            raise input_error(path, f"label {run.label!r} is already the label of line {labels[run.label]}; "
                                    "the store is damaged", "line", line)
        labels[run.label] = line
        if run.bank_hash != runs[0].bank_hash:
            raise input_error(path, f"bank_hash {run.bank_hash} differs from line {lines[0]}'s "
                                    f"{runs[0].bank_hash}: a store holds one bank's runs; the store is damaged",
                              "line", line)


# ---- the store ----------------------------------------------------------------------------------------

class History:
    """A history store (see the module docstring)."""

    def __init__(self, store=None):
        self.root = store_path(store)
        self.index = self.root / INDEX

    @contextlib.contextmanager
    def _locked(self, writing: bool) -> Iterator[None]:
        """Hold the store's lock. A reader of a store it cannot write (a read-only CI cache) reads without
        it: no writer can be there either."""
        if writing:
            self.root.mkdir(parents=True, exist_ok=True)
        elif not (self.root.is_dir() and os.access(self.root, os.W_OK)):
            yield
            return
        lock = FileLock(self.root / LOCK, timeout=LOCK_TIMEOUT)
        try:
            lock.acquire()
        except Timeout:
            raise TimeoutError(f"{lock.lock_file}: another process has held the history lock for "
                               f"{LOCK_TIMEOUT:g} s (a `fastspe history add` still running, or hung?)") from None
        try:
            yield
        finally:
            lock.release()

    def _read_index(self) -> list[Run]:
        if not self.index.exists():
            return []
        runs, lines = [], []
        for n, raw in enumerate(self.index.read_bytes().split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                runs.append(parse_entry(raw))
            except ValueError as exc:
                raise input_error(self.index, f"{exc}; the store is damaged", "line", n) from None
            lines.append(n)
        _check_together(runs, lines, self.index)
        return runs

    def runs(self) -> list[Run]:
        """The index, checked whole (a damaged line is an ``InputError`` naming the file and line)."""
        with self._locked(writing=False):
            return self._read_index()

    def run(self, label: str) -> Run:
        runs = self.runs()
        for run in runs:
            if run.label == label:
                return run
        known = ", ".join(repr(r.label) for r in runs) or "none"
        raise InputError(f"{self.root}: no run labelled {label!r} (runs: {known})")

    def add(self, bank_table, verdicts: Verdicts | pd.DataFrame, label: str, meta: Mapping[str, str] | None = None,
            draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED) -> Run:
        """Keep ``verdicts`` under ``label``; refuses a label in use and a bank other than the store's.

        The bootstrap runs before the lock is taken; the checks, the number, the two files and the index
        line are done holding it, so concurrent adds never share a number or a label.
        """
        problem = label_problem(label)
        if problem:
            raise ParameterError("label", label, problem)
        meta = dict(meta or {})
        if not _text_map(meta):
            raise ParameterError("meta", meta, "keys and values must be text (UTF-8)")
        if not _whole(draws, 1, 10**9):
            raise ParameterError("draws", draws, "must be a whole number >= 1")
        if not _whole(seed, 0, MAX_SEED):
            raise ParameterError("seed", seed, f"must be a whole number in 0..{MAX_SEED}")
        digest = bank_hash(bank_table)
        self._refuse(self.runs(), label, digest)  # before the bootstrap: fail fast
        verdicts = as_verdicts(verdicts)  # checked once, before anything is written
        sums = board_sums(verdicts)
        metrics = bootstrap_intervals(sums, draws=draws, seed=seed, groupings={"pooled": ("cohort",)})
        metrics = pa.Table.from_pandas(metrics[METRIC_COLUMNS], preserve_index=False)
        conditions = sorted(map(str, verdicts.frame["condition"].unique()))
        with self._locked(writing=True):
            runs = self._read_index()
            self._refuse(runs, label, digest)  # again: another writer may have been first
            number = len(runs) + 1
            stem = f"{number:04d}"
            write_verdicts(verdicts, self._file("verdicts", stem))
            write_parquet(metrics, self._file("metrics", stem), METRICS_KIND)
            digests = {part: _footer_digest(self._file(part, stem)) for part in PARTS}
            run = Run(number, label, digest, conditions, meta, draws, seed, digests)
            self._append(run)
        return run

    def _refuse(self, runs: list[Run], label: str, digest: str) -> None:
        if any(r.label == label for r in runs):
            number = next(r.number for r in runs if r.label == label)
            raise ParameterError("label", label, f"is already in the history (run {number} of {self.index}); "
                                                 "labels name one run each")
        if runs and runs[0].bank_hash != digest:
            raise ParameterError("store", str(self.root), f"this bank (hash {digest[:12]}) is not the bank of the "
                                                          f"stored runs (hash {runs[0].bank_hash[:12]}); keep "
                                                          "another bank's runs in another store")

    def _file(self, part: str, stem: str) -> Path:
        return self.root / PARTS[part] / f"{stem}.parquet"

    def _append(self, run: Run) -> None:
        """One index line, fsynced: the index only grows, and a run counts once its line is on disk.
        A write that fails part-way (a full disk) is cut off again, so no broken line stays."""
        line = json.dumps(asdict(run), ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n"
        with open(self.index, "ab") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size:  # an index whose last line lost its newline (an editor) must not glue the next one on
                with open(self.index, "rb") as old:
                    old.seek(size - 1)
                    line = (b"" if old.read(1) == b"\n" else b"\n") + line
            try:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
            except BaseException:
                with contextlib.suppress(OSError):
                    fh.truncate(size)
                raise

    def _checked(self, run: Run, part: str) -> Path:
        """The path of one of ``run``'s files, after checking it is the file its index line recorded."""
        path = self._file(part, run.stem)
        recorded = run.digests[part]
        if not path.is_file():
            raise InputError(f"{path}: no such file, though {self.index} lists it as run {run.number} "
                             f"({run.label!r}); the store is damaged")
        stored = _footer_digest(path)
        if stored is None:
            raise InputError(f"{path}: no fastspe content checksum: the file was rewritten by another tool "
                             f"(pandas?) after it was stored as run {run.number} ({run.label!r}); the store is "
                             "damaged")
        if stored != recorded:
            raise InputError(f"{path}: its content checksum is not the one {self.index} recorded for run "
                             f"{run.number} ({run.label!r}): the file was replaced or changed after it was "
                             "stored; the store is damaged")
        return path  # read_parquet then checks the content against that checksum

    def verdicts(self, label: str) -> Verdicts:
        run = self.run(label)
        return read_verdicts(self._checked(run, "verdicts"))

    def metrics(self, run: Run) -> pd.DataFrame:
        return read_parquet(self._checked(run, "metrics"), METRICS_KIND).to_pandas()

    def trend(self, metric: str = "SPE") -> pd.DataFrame:
        """Per run (in the order added), cohort and condition: the pooled estimate of ``metric`` and its interval."""
        runs = self.runs()
        if not runs:
            raise InputError(f"{self.root}: the history is empty; add runs with `fastspe history add`")
        parts = []
        for run in runs:
            m = self.metrics(run)
            if metric not in set(m["metric"]):
                raise ParameterError("metric", metric, f"is not in the history; choose among "
                                                       f"{', '.join(sorted(m['metric'].unique()))}")
            parts.append(m[m["metric"] == metric].assign(run=run.number, label=run.label))
        out = pd.concat(parts, ignore_index=True)
        return out[["run", "label", "cohort", "condition", "metric", "estimate", "lo", "hi", "N"]]


def _footer_digest(path: Path) -> str | None:
    """The content digest in a Parquet file's footer (None if it has none); damage is an ``InputError``."""
    try:
        meta = pq.read_metadata(path).metadata or {}
    except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable Parquet file ({str(exc).strip()[:200]}); the store is damaged") \
            from None
    stored = meta.get(DIGEST_KEY)
    return None if stored is None else stored.decode(errors="replace")


def paired_runs(history: History, label_a: str, label_b: str) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The verdicts of two runs with conditions named ``LABEL/condition``, and the (baseline, candidate)
    pairs to compare: each condition present in both runs, or the two runs' only conditions.

    A run compared with itself is refused (it shows "no clear change" by construction); two runs that
    hold the very same verdicts are compared with a warning saying so.
    """
    if label_a == label_b:
        raise ParameterError("label_b", label_b, "is the baseline run too: a run compared with itself shows no "
                                                 "change by construction; name two different runs")
    run_a, run_b = history.run(label_a), history.run(label_b)
    if run_a.digests["verdicts"] == run_b.digests["verdicts"]:
        warnings.warn(f"runs {run_a.number} ({label_a!r}) and {run_b.number} ({label_b!r}) hold identical "
                      "verdicts (the same content digest): they were added from the same file", stacklevel=2)
    a, b = history.verdicts(label_a).frame, history.verdicts(label_b).frame
    shared = sorted(set(a["condition"]) & set(b["condition"]))
    if shared:
        pairs = [(c, c) for c in shared]
    elif a["condition"].nunique() == 1 and b["condition"].nunique() == 1:
        pairs = [(a["condition"].iat[0], b["condition"].iat[0])]
    else:
        raise InputError(f"runs {label_a!r} and {label_b!r} share no condition; nothing to pair")
    named = pd.concat([a.assign(condition=f"{label_a}/" + a["condition"].astype(str)),
                       b.assign(condition=f"{label_b}/" + b["condition"].astype(str))], ignore_index=True)
    return named, [(f"{label_a}/{x}", f"{label_b}/{y}") for x, y in pairs]
