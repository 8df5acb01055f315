"""Append-only JSONL run log: one line per attempt, flushed and fsynced, never rewritten.

A run killed mid-write can leave a torn last line. Opening the log again starts a fresh line after
it (the torn bytes stay where they are), and reading skips lines that are not JSON objects, so a
resumed run neither loses nor rewrites anything. An exclusive ``flock`` keeps two runs from
appending to the same file at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path
from typing import Iterable

from ..responses import TORN_LINE_EVENT

OK = "ok"
ERROR = "error"


def check_log_path(path) -> Path:
    """``path`` as a Path; a ValueError unless it ends in ``.jsonl`` (readers choose the format by extension)."""
    p = Path(path)
    if p.suffix.lower() != ".jsonl":
        raise ValueError(f"{path}: a run log is JSONL; give --out a name ending in .jsonl")
    return p


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each non-empty secret replaced by ``[redacted]``."""
    for secret in secrets:
        if secret and secret in text:
            text = text.replace(secret, "[redacted]")
    return text


class RunLog:
    """An open run log that appends one JSON object per line, thread-safe.

    Parameters
    ----------
    path : path-like
        The JSONL file; created (with its folder) when missing, never truncated.
    secrets : iterable of str
        Strings (API keys) replaced by ``[redacted]`` in every line before it is written.
    """

    def __init__(self, path, secrets: Iterable[str] = ()):
        self.path = check_log_path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._secrets = tuple(s for s in secrets if s)
        self._lock = threading.Lock()
        self._fh = open(self.path, "ab")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._fh.close()
            raise OSError(f"{self.path}: another fastspe run is writing to this log; "
                          f"wait for it or use another --out") from None
        torn = _torn_tail_line(self.path)
        if torn:
            # Start a fresh line and name the torn one; its bytes stay (append-only), readers skip it.
            self._write_bytes(b"\n")
            self.append({"event": TORN_LINE_EVENT, "line": torn})

    def append(self, record: dict) -> None:
        """Write ``record`` as one JSON line, then flush and fsync."""
        line = json.dumps(_jsonable(record), ensure_ascii=False, allow_nan=False, default=_json_default)
        line = scrub(line, self._secrets)
        with self._lock:
            self._write_bytes(line.encode("utf-8") + b"\n")

    def _write_bytes(self, data: bytes) -> None:
        self._fh.write(data)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()  # closing releases the flock

    def __enter__(self) -> "RunLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _json_default(obj):
    if hasattr(obj, "tolist"):  # numpy scalars and arrays
        return obj.tolist()
    return str(obj)


def _jsonable(record: dict) -> dict:
    """``record`` with float NaN (pandas' missing value) as None, so every line is strict JSON."""
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in record.items()}


def _torn_tail_line(path: Path) -> int:
    """The 1-based number of the file's last line if it lacks its newline (torn), else 0."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    return data.count(b"\n") + 1


def read_run_log(path) -> tuple[list[dict], int]:
    """The attempt records of a run log and the number of lines skipped as torn or not JSON objects.

    Marker records (a resumed run naming a torn line) are not attempts and are left out.

    A missing file reads as no records.
    """
    records: list[dict] = []
    skipped = 0
    p = Path(path)
    if not p.exists():
        return records, skipped
    with open(p, "rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                skipped += 1
                continue
            if not isinstance(obj, dict):
                skipped += 1
            elif obj.get("event") != TORN_LINE_EVENT:
                records.append(obj)
    return records, skipped


def completed_trial_ids(records: Iterable[dict]) -> set[str]:
    """Trial ids that have a completed (``status == "ok"``) attempt."""
    return {r["trial_id"] for r in records if r.get("status") == OK and r.get("trial_id")}


def attempts_made(records: Iterable[dict]) -> dict[str, int]:
    """The highest attempt number logged for each trial id (so a resumed run numbers on)."""
    made: dict[str, int] = {}
    for r in records:
        tid = r.get("trial_id")
        if tid:
            made[tid] = max(made.get(tid, 0), int(r.get("attempt") or 0))
    return made
