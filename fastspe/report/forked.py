"""The report's figures in forked processes, beside the rest of its work (matplotlib holds the GIL, so
threads would not draw two figures at once).

``Server`` is a forked process that loads matplotlib once (its ``setup``) while the parent goes on
(the bootstrap), then runs each call it is sent in a fork of itself: every figure starts with
matplotlib and its arguments in memory, and the figures draw side by side, beside the tables. Only a
fork pays: a spawned interpreter would spend longer importing than a figure takes. So ``server``
forks where the platform forks safely (Linux) and more than one CPU is ours; elsewhere it gives an
``InProcess`` stand-in that runs each call at once, here, with the same result: the work is a pure
function of its inputs, so the bytes written do not depend on which process wrote them.

The server is forked before the bootstrap starts Numba's thread pool, and the processes run
matplotlib and write files, nothing else: they take no lock that another thread (Arrow's idle pool,
a progress display) could hold at the fork, so the fork-with-threads warning of Python 3.12+ does
not apply and is silenced for those forks only.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import sys
import threading
import warnings
from multiprocessing.reduction import ForkingPickler
from typing import Callable, Sequence

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


_FORK_WARNING = r".*use of fork\(\) may lead to deadlocks"


def _forked_process(context, target, args):
    """A started daemonic ``context.Process``; the fork-with-threads warning silenced for this call only."""
    process = context.Process(target=target, args=args, daemon=True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_FORK_WARNING, category=DeprecationWarning)
        process.start()
    return process


def _died(exitcode) -> UserError:
    return UserError(f"the process drawing a figure ended with exit code {exitcode} before it finished")


def _call(job):
    """Run ``job`` = (module, name, args, kwargs): the function looked up by name where it runs, so a
    module's function replaced in the parent (a test's monkeypatch) is the one the fork calls."""
    module, name, args, kwargs = job
    return getattr(importlib.import_module(module), name)(*args, **kwargs)


_in_job = False  # True in a server's job: its own forks (``side_by_side``) pay, and die with it


def _fork(work: Callable, keep_closed=(), job: bool = False) -> tuple[int, object]:
    """``work()`` in a fork of this process: (its pid, the end its (ok, value) arrives on). A ``job`` (a
    server's) leads a process group of its own, so that a cancel kills the forks it makes too."""
    global _in_job
    receive, send = multiprocessing.Pipe(duplex=False)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_FORK_WARNING, category=DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the fork: only the work, then out without the server's exit handlers
        try:
            if job:
                os.setpgid(0, 0)
                _in_job = True
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the server's handler, which kills its children
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            receive.close()
            for conn in keep_closed:
                conn.close()
            _run(work, send)
        finally:
            os._exit(0)
    send.close()
    return pid, receive


def _outcome(pid: int, receive) -> tuple[bool, object]:
    """The (ok, value) of a fork (``_fork``) once it ends; a fork that died without a word is an error."""
    try:
        value = receive.recv()
    except EOFError:
        value = None
    receive.close()
    _, status = os.waitpid(pid, 0)
    return value or (False, _died(os.waitstatus_to_exitcode(status)))


def side_by_side(calls: Sequence[Callable]) -> list:
    """Each call's value, in order. In a server's job (a figure), every call but the first runs in a fork
    of it, beside the first, here (the formats of one figure saved at once); elsewhere they run one after
    the other, here. Either way the same values, and the first error raised."""
    if not _in_job or len(calls) < 2:
        return [call() for call in calls]
    forks = [_fork(call) for call in calls[1:]]
    try:
        values = [calls[0]()]
    except BaseException:
        for pid, receive in forks:  # none may go on writing once the job has failed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _outcome(pid, receive)
        raise
    for ok, value in [_outcome(pid, receive) for pid, receive in forks]:
        if not ok:
            raise value
        values.append(value)
    return values


def _serve(setup: Callable, conn) -> None:
    """The server's loop: ``setup()``, then a fork per job received, each result sent back with its job id
    as it comes; a ``None`` job or the parent's end closing ends the loop once the running jobs are done.
    Ctrl-C is the parent's to handle (it cancels the server); SIGTERM (the cancel) stops the jobs too."""
    running: dict = {}  # the end a job's result arrives on -> (job id, pid)

    def stop(*_):  # and wait for them: none may write a byte once the cancel returns
        for _, pid in running.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)  # the job and the forks it made (``side_by_side``)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        os._exit(1)

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, stop)
    try:
        setup()
        failed = None
    except BaseException as exc:  # noqa: BLE001 - every job then raises it in the parent
        failed = exc
    listening = True
    while listening or running:
        for ready in multiprocessing.connection.wait([conn, *running] if listening else list(running)):
            if ready is conn:
                try:
                    job = conn.recv()
                except EOFError:
                    job = None
                if job is None:
                    listening = False
                elif failed is not None:
                    _send(conn, (job[0], (False, failed)))
                else:  # SIGTERM held off until the new job is in ``running``, where ``stop`` finds it
                    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
                    pid, receive = _fork(lambda job=job[1]: _call(job), [conn, *running], job=True)
                    with contextlib.suppress(OSError):  # here too: a cancel right after the fork finds its group
                        os.setpgid(pid, pid)
                    running[receive] = (job[0], pid)
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
                continue
            job_id, pid = running.pop(ready)
            _send(conn, (job_id, _outcome(pid, ready)))
    conn.close()


def _send(conn, message) -> None:
    try:
        conn.send(message)
    except (BrokenPipeError, EOFError, OSError):  # the parent is gone: nobody waits for it
        pass


class Server:
    """A forked process that has run ``setup()`` (imports, for every job) and runs each ``submit``-ted call
    in a fork of itself, side by side; ``submit`` returns a handle with ``result()`` and ``cancel()``.
    ``close()`` ends it once its jobs are done; ``cancel()`` stops it and every job at once."""

    def __init__(self, setup: Callable):
        self._conn, server_end = multiprocessing.get_context("fork").Pipe(duplex=True)
        self._process = _forked_process(multiprocessing.get_context("fork"), _serve, (setup, server_end))
        server_end.close()
        self._results: dict = {}
        self._jobs = 0
        # Jobs go out from a thread: a pipe holds 64 KB, and the server reads none until its setup is done
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._sender = threading.Thread(target=self._send_all, name="fastspe-figure-jobs", daemon=True)
        self._sender.start()

    def _send_all(self) -> None:
        while (payload := self._outbox.get()) is not None:
            try:
                self._conn.send_bytes(payload)
            except OSError:  # the server is gone: ``result()`` says so
                return

    def submit(self, module: str, name: str, *args, **kwargs) -> "_Pending":
        """``module.name(*args, **kwargs)`` in a fork of the server (arguments and result pickled, here and
        now: the arguments may change after); returns at once."""
        self._jobs += 1
        self._outbox.put(ForkingPickler.dumps((self._jobs, (module, name, args, kwargs))))
        return _Pending(self, self._jobs)

    def _result(self, job: int):
        while job not in self._results:
            try:
                got, value = self._conn.recv()
            except EOFError:  # the server itself died (killed, out of memory)
                self._process.join()
                raise _died(self._process.exitcode) from None
            self._results[got] = value
        ok, value = self._results.pop(job)
        if not ok:
            raise value
        return value

    def close(self) -> None:
        self._outbox.put(ForkingPickler.dumps(None))  # the server's end of jobs
        self._stop_sending()
        self._process.join()

    def cancel(self) -> None:
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._stop_sending()

    def _stop_sending(self) -> None:
        self._outbox.put(None)
        self._sender.join(timeout=10)  # a send to a server that is gone fails at once
        self._conn.close()


class _Pending:
    def __init__(self, server: Server, job: int):
        self._server, self._job = server, job

    def result(self):
        return self._server._result(self._job)

    def cancel(self) -> None:
        self._server.cancel()


class InProcess:
    """``Server``'s stand-in where no fork pays (``can_fork``): each call run at once, here. No setup: it only
    pays where forks share what it loads; here each call loads what it needs itself."""

    def __init__(self, setup: Callable):
        pass

    def submit(self, module: str, name: str, *args, **kwargs) -> Done:
        return Done(_call((module, name, args, kwargs)))

    def close(self) -> None:
        pass

    def cancel(self) -> None:
        pass


def server(setup: Callable) -> "Server | InProcess":
    """A ``Server`` where forks pay (``can_fork``) and one is to be had, else an ``InProcess`` one."""
    if can_fork():
        try:
            return Server(setup)
        except OSError:  # no process to be had: the work still gets done, here
            pass
    return InProcess(setup)
