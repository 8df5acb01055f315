"""The files of a history store (``fastspe.stats.history``): its index, its run files and its lock.

- ``index.jsonl``: one line per run, appended and fsynced, never rewritten: number, label, bank hash,
  conditions, metadata, the bootstrap settings and the content digests of the two files below;
- ``runs/NNNN.parquet``: the run's verdicts; ``metrics/NNNN.parquet``: its pooled estimates (both
  checksummed, ``boundary.parquet``);
- ``index.lock``: the inter-process lock (``filelock``) that lets one writer at a time in.

The index is checked whole on every read: each line a JSON object of exactly the known keys with values of
the right type, runs numbered 1, 2, 3... in order, one run per label, one bank per store; a damaged line is
refused naming the file and the line. A run file is used only after its footer's digest is checked against
the one its index line recorded.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq
from filelock import FileLock, Timeout

from ..errors import UserError
from ..kernels import MAX_SEED
from .errors import InputError, input_error
from .parquet import stored_digest

INDEX = "index.jsonl"
LOCK = "index.lock"
LOCK_TIMEOUT = 300.0  # seconds; a writer holds the lock only to write two files and one line
PARTS = {"verdicts": "runs", "metrics": "metrics"}  # a run's files: digest key -> folder

# printable: no C0/C1 controls, DEL or bidi overrides (they would rewrite what a terminal shows), no lone
# surrogates (an undecodable byte of a command line: not UTF-8, so no index line could hold it)
_LABEL = re.compile(r"^[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]{1,100}$")
_HEX = {32: re.compile(r"^[0-9a-f]{32}$"), 64: re.compile(r"^[0-9a-f]{64}$")}


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
    kind = {
        str: "a string",
        bool: "true/false",
        float: "a fraction",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value))
    return f"{text} ({kind})" if kind else text


def is_whole(value, low: int, high: int) -> bool:
    """A JSON integer in ``low..high`` (not a bool, a float or a string)."""
    return type(value) is int and low <= value <= high  # bool is an int subclass: refused by the type test


def _utf8(text) -> bool:
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def is_text_map(value) -> bool:
    """An object of UTF-8 text keys and values (a run's metadata)."""
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
    "number": lambda v: None if is_whole(v, 1, 10**9) else f"number {_show(v)} is not a whole number >= 1",
    "label": lambda v: None if label_problem(v) is None else f"label {_show(v)} is not a run label",
    "bank_hash": lambda v: (
        None
        if isinstance(v, str) and _HEX[32].match(v)
        else f"bank_hash {_show(v)} is not a 32-digit hexadecimal bank hash"
    ),
    "conditions": lambda v: (
        None
        if isinstance(v, list) and v and all(isinstance(c, str) and c for c in v)
        else f"conditions {_show(v)} is not a non-empty list of condition names"
    ),
    "meta": lambda v: None if is_text_map(v) else f"meta {_show(v)} is not an object of text values",
    "draws": lambda v: None if is_whole(v, 1, 10**9) else f"draws {_show(v)} is not a whole number >= 1",
    "seed": lambda v: None if is_whole(v, 0, MAX_SEED) else f"seed {_show(v)} is not a whole number >= 0",
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
        raise UserError(
            f"missing key(s) {', '.join(map(repr, missing))}"
            + (
                "; stores written before fastspe checksummed them cannot be proven unchanged:"
                " add their runs again into a new store"
                if missing == ["digests"]
                else ""
            )
        )
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
            raise input_error(
                path,
                f"run number {run.number} {why}: runs are numbered 1, 2, 3... in the order added; the store is damaged",
                "line",
                line,
            )
        if run.label in labels:
            raise input_error(
                path,
                f"label {run.label!r} is already the label of line {labels[run.label]}; the store is damaged",
                "line",
                line,
            )
        labels[run.label] = line
        if run.bank_hash != runs[0].bank_hash:
            raise input_error(
                path,
                f"bank_hash {run.bank_hash} differs from line {lines[0]}'s "
                f"{runs[0].bank_hash}: a store holds one bank's runs; the store is damaged",
                "line",
                line,
            )


# ---- the folder: lock, index lines, run files -----------------------------------------------------------


class StoreFiles:
    """The files of the store folder ``root``."""

    def __init__(self, root: Path):
        self.root = root
        self.index = root / INDEX

    @contextlib.contextmanager
    def locked(self, writing: bool) -> Iterator[None]:
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
            raise TimeoutError(
                f"{lock.lock_file}: another process has held the history lock for "
                f"{LOCK_TIMEOUT:g} s (a `fastspe history add` still running, or hung?)"
            ) from None
        try:
            yield
        finally:
            lock.release()

    def read_index(self) -> list[Run]:
        """The index, checked whole (none if there is no index yet); call it holding the lock."""
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

    def append(self, run: Run) -> None:
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

    def file(self, part: str, stem: str) -> Path:
        """Where run ``stem``'s ``part`` (``"verdicts"`` or ``"metrics"``) is kept."""
        return self.root / PARTS[part] / f"{stem}.parquet"

    def checked(self, run: Run, part: str) -> Path:
        """The path of one of ``run``'s files, after checking it is the file its index line recorded."""
        path = self.file(part, run.stem)
        recorded = run.digests[part]
        if not path.is_file():
            raise InputError(
                f"{path}: no such file, though {self.index} lists it as run {run.number} "
                f"({run.label!r}); the store is damaged"
            )
        stored = footer_digest(path)
        if stored is None:
            raise InputError(
                f"{path}: no fastspe content checksum: the file was rewritten by another tool "
                f"(pandas?) after it was stored as run {run.number} ({run.label!r}); the store is "
                "damaged"
            )
        if stored != recorded:
            raise InputError(
                f"{path}: its content checksum is not the one {self.index} recorded for run "
                f"{run.number} ({run.label!r}): the file was replaced or changed after it was "
                "stored; the store is damaged"
            )
        return path  # read_parquet then checks the content against that checksum


def footer_digest(path: Path) -> str | None:
    """The content digest in a Parquet file's footer (None if it has none); damage is an ``InputError``."""
    try:
        meta = pq.read_metadata(path).metadata or {}
    except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"{path}: not a readable Parquet file ({str(exc).strip()[:200]}); the store is damaged"
        ) from None
    stored = stored_digest(meta)
    return None if stored is None else stored[1]
