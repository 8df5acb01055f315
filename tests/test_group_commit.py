"""Group commit of the run log: appends from many threads share fsyncs, and none returns before an fsync covered
its bytes; a failed write reaches every appender waiting on it, naming the log."""

from __future__ import annotations

import errno
import json
import threading
import time

import pytest

import fastspe.boundary.run_logs as run_logs
from fastspe.boundary.files import WriteError
from fastspe.boundary.run_logs import RunLogFile


def recording_fsync(monkeypatch, pause: float = 0.002):
    """Replace ``os.fsync`` in run_logs by one that takes ``pause`` s and records the file's size it covered."""
    real, covered, lock = run_logs.os.fsync, [], threading.Lock()

    def fsync(fd):
        size = run_logs.os.fstat(fd).st_size  # flushed before the fsync: what this fsync makes durable
        time.sleep(pause)
        real(fd)
        with lock:
            covered.append(size)

    monkeypatch.setattr(run_logs.os, "fsync", fsync)
    return covered


def test_concurrent_appends_share_fsyncs_and_each_is_on_disk_when_it_returns(tmp_path, monkeypatch):
    covered = recording_fsync(monkeypatch)
    path, threads, per_thread = tmp_path / "r.jsonl", 16, 40
    log = RunLogFile(path)
    late, lock = [], threading.Lock()

    def append(t):
        for i in range(per_thread):
            line = json.dumps({"thread": t, "i": i, "pad": "x" * (i * 7 % 300)}).encode() + b"\n"
            log.write(line)
            end = path.read_bytes().index(line) + len(line)  # where this line ends in the file
            if max(covered) < end:  # returned before an fsync covered it
                with lock:
                    late.append((t, i))

    workers = [threading.Thread(target=append, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    log.close()
    lines = path.read_bytes().splitlines()
    assert not late
    assert sorted(map(json.loads, lines), key=lambda r: (r["thread"], r["i"])) == [
        {"thread": t, "i": i, "pad": "x" * (i * 7 % 300)} for t in range(threads) for i in range(per_thread)
    ]
    assert covered == sorted(covered) and covered[-1] == path.stat().st_size
    assert len(covered) <= threads * per_thread // 2  # grouped: far fewer fsyncs than lines


def test_one_appender_alone_gets_one_fsync_per_write(tmp_path, monkeypatch):
    covered = recording_fsync(monkeypatch, pause=0)
    log = RunLogFile(tmp_path / "r.jsonl")
    for i in range(5):
        log.write(b'{"i": %d}\n' % i)
        assert covered[-1] == (tmp_path / "r.jsonl").stat().st_size
    log.close()
    assert len(covered) == 5


def test_a_failed_fsync_reaches_every_waiting_appender(tmp_path, monkeypatch):
    path, started, calls = tmp_path / "r.jsonl", threading.Barrier(9), []

    def full_disk(fd):
        calls.append(fd)
        time.sleep(0.2)  # the other appenders write and wait meanwhile
        raise OSError(errno.ENOSPC, "No space left on device")

    log = RunLogFile(path)
    monkeypatch.setattr(run_logs.os, "fsync", full_disk)
    errors, lock = [], threading.Lock()

    def append(t):
        started.wait()
        try:
            log.write(b'{"t": %d}\n' % t)
        except WriteError as exc:
            with lock:
                errors.append(exc)

    workers = [threading.Thread(target=append, args=(t,)) for t in range(8)]
    for w in workers:
        w.start()
    started.wait()
    for w in workers:
        w.join()
    assert len(errors) == 8 and len(calls) == 1  # one fsync failed; all eight appenders heard of it
    for exc in errors:
        assert exc.errno == errno.ENOSPC and str(path) in str(exc) and "No space left on device" in str(exc)
        assert isinstance(exc.__cause__, OSError)
    assert len({id(exc) for exc in errors}) == 8  # each its own exception
    with pytest.raises(WriteError, match="cannot write the run log"):
        log.write(b'{"after": 1}\n')  # the log's state is unknown: later appends fail alike, nothing is counted
    log.close()


def test_a_failed_write_names_the_log(tmp_path, monkeypatch):
    log = RunLogFile(tmp_path / "r.jsonl")

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            raise OSError(errno.EFBIG, "File too large")

        def __getattr__(self, name):
            return getattr(self.fh, name)

    log._fh = Full(log._fh)
    with pytest.raises(WriteError, match=r"cannot write the run log .*r\.jsonl: File too large"):
        log.write(b"{}\n")
    log.close()
