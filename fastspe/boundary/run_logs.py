"""Run-log bytes: an append-only file, locked, every write flushed and fsynced (group commit); its lines read back.

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

    Appends are group-committed: each ``write`` puts its bytes in the file's buffer and waits until an fsync
    covers them. The first waiter to find no fsync under way leads: it flushes everything written so far and
    fsyncs it while later appenders keep writing; when it returns, every appender whose bytes it covered
    returns, and the next leader syncs what came meanwhile. So 64 answers arriving together share one fsync,
    not 64 in a row, and still none returns before its bytes are on disk.
    """

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._cond = threading.Condition()
        self._written = 0  # bytes appended to the buffer, ever
        self._synced = 0  # of which an fsync has covered
        self._syncing = False  # a leader is flushing and fsyncing
        self._error: tuple | None = None  # (WriteError, its cause): a write failed, every append after it fails
        self._fh = open(self.path, "ab")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._fh.close()
            raise OSError(
                f"{self.path}: another fastspe run is writing to this log; wait for it or use another --out"
            ) from None

    def write(self, data: bytes) -> None:
        """Append ``data``; on disk (flushed and fsynced) when this returns."""
        with self._cond:
            if self._error is None:
                try:
                    self._fh.write(data)  # whole, in order: appends hold the lock, so lines never interleave
                except OSError as exc:
                    self._fail(exc)
            self._written += len(data)
            end = self._written
            while self._synced < end and self._error is None:
                if self._syncing:
                    self._cond.wait()  # a leader's fsync is under way; the next one covers these bytes
                else:
                    self._sync()
            if self._error is not None:
                failure, cause = self._error
                raise WriteError(*failure.args) from cause  # each waiter its own exception (and traceback)

    def _sync(self) -> None:
        """Flush and fsync every byte written so far (the lock held on entry and on return, not during the fsync)."""
        self._syncing = True
        target = self._written
        try:
            try:
                self._fh.flush()
                fd = self._fh.fileno()
                self._cond.release()
                try:
                    os.fsync(fd)  # later appends fill the buffer meanwhile; the next leader syncs them
                finally:
                    self._cond.acquire()
            except OSError as exc:
                self._fail(exc)
            else:
                self._synced = target
        finally:
            self._syncing = False
            self._cond.notify_all()  # the covered return, one of the rest leads the next fsync

    def _fail(self, exc: OSError) -> None:
        """Keep the error that every waiting and later append raises (a full disk, a file-size limit): it names
        the log; a torn last line is skipped on resume."""
        if self._error is None:
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            self._error = (
                WriteError(
                    exc.errno,
                    f"cannot write the run log {self.path}: {reason}; the lines before "
                    f"are kept, run again once it can grow",
                ),
                exc,
            )

    def close(self) -> None:
        with self._cond:
            if not self._fh.closed:
                try:
                    self._fh.close()  # closing releases the flock
                except OSError:
                    if self._error is None:
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
