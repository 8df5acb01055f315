"""Run-log bytes: an append-only file, locked, every write flushed and fsynced; its lines read back.

The runners decide what a line says and when it is written (``fastspe.runners.log``); this module moves the
bytes, so that a paid answer is on disk before it counts and two runs never append to one file at once.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import Iterator

from .files import WriteError


class RunLogFile:
    """A run log opened for appending (created with its folder when missing, never truncated), thread-safe.

    An exclusive ``flock`` keeps a second run from appending to the same file; closing releases it.
    """

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._failed = False  # a write failed: closing may fail on the same bytes
        self._fh = open(self.path, "ab")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._fh.close()
            raise OSError(f"{self.path}: another fastspe run is writing to this log; "
                          f"wait for it or use another --out") from None

    def write(self, data: bytes) -> None:
        """Append ``data``, then flush and fsync: on disk when this returns."""
        with self._lock:
            try:
                self._fh.write(data)
                self._fh.flush()
                os.fsync(self._fh.fileno())
            except OSError as exc:  # a full disk, a file-size limit: name the log (a torn last line is skipped on resume)
                self._failed = True
                reason = os.strerror(exc.errno) if exc.errno else str(exc)
                raise WriteError(exc.errno, f"cannot write the run log {self.path}: {reason}; the lines before are "
                                            f"kept, run again once it can grow") from exc

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                try:
                    self._fh.close()  # closing releases the flock
                except OSError:
                    if not self._failed:
                        raise  # after a failed write, closing fails on the same unwritten bytes: already reported


def torn_tail_line(path) -> int:
    """The 1-based number of the file's last line if it lacks its newline (torn), else 0.

    Reads one byte when the log ends cleanly (the usual case), the whole file only to number a torn line."""
    with open(path, "rb") as fh:
        if fh.seek(0, os.SEEK_END) == 0:
            return 0
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return 0
        fh.seek(0)
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b"")) + 1


def log_lines(path) -> Iterator[bytes]:
    """The lines of the run log ``path`` as bytes, each with its newline (a torn last line without); a missing
    file has none. Streamed: memory stays flat however long the log."""
    p = Path(path)
    if not p.exists():
        return
    with open(p, "rb") as fh:
        yield from fh


def first_line(path, limit: int = 1 << 20) -> bytes:
    """The first line of the file ``path``, at most ``limit`` bytes."""
    with open(path, "rb") as fh:
        return fh.readline(limit)
