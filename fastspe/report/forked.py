"""One piece of the report's work in a forked process, beside the rest (the figures: matplotlib holds
the GIL, so threads would not draw two figures at once).

Only a fork pays: the child starts with every module (matplotlib included) and every argument already
in memory, where a spawned interpreter would spend longer importing them than the figure takes. So
``in_child`` forks where the platform forks safely (Linux) and more than one CPU is ours; elsewhere it
runs the work at once, in this process, with the same result: the work is a pure function of its
inputs, so the bytes written do not depend on which process wrote them.

The child runs matplotlib and writes files, nothing else: it takes no lock that another thread of
this process (Numba's or Arrow's idle pools, a progress display) could hold at the fork, so the
fork-with-threads warning of Python 3.12+ does not apply to it and is silenced for that call only.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import warnings
from typing import Callable

from ..errors import UserError


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the CPUs this process may use (a container, taskset)
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform.startswith("linux") and _cpus() > 1


class Done:
    """A result already computed here (no fork)."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value

    def cancel(self) -> None:
        pass


def _run(work: Callable, conn) -> None:
    try:
        value = (True, work())
    except BaseException as exc:  # noqa: BLE001 - whatever it is, the parent raises it
        value = (False, exc)
    try:
        conn.send(value)
    except Exception:  # an error that does not pickle: its text still reaches the parent
        conn.send((False, RuntimeError(f"{type(value[1]).__name__}: {value[1]}")))
    conn.close()


class Child:
    """``work()`` running in a forked process: ``result()`` waits for it and returns its value or raises
    its error; ``cancel()`` stops it (the parent failed: nothing may write into the report folder after)."""

    def __init__(self, work: Callable):
        context = multiprocessing.get_context("fork")
        self._conn, child_end = context.Pipe(duplex=False)
        self._process = context.Process(target=_run, args=(work, child_end), daemon=True)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*use of fork\(\) may lead to deadlocks",
                                    category=DeprecationWarning)
            self._process.start()
        child_end.close()

    def result(self):
        try:
            ok, value = self._conn.recv()
        except EOFError:  # it died without a word (killed, out of memory)
            self._process.join()
            raise UserError(f"the process drawing a figure ended with exit code {self._process.exitcode} "
                            "before it finished") from None
        finally:
            self._conn.close()
        self._process.join()
        if not ok:
            raise value
        return value

    def cancel(self) -> None:
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._conn.close()


def in_child(work: Callable):
    """``work`` started in a forked process where that pays (``can_fork``) and a fork is to be had, else run
    now; either way a handle with ``result()`` and ``cancel()``."""
    if can_fork():
        try:
            return Child(work)
        except OSError:  # no process to be had (a process limit, no memory for the fork): the work still gets done
            pass
    return Done(work())
