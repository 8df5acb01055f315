"""Bank builds, scoring and bootstrap draws on other processes, bit-identical to one process: on a Dask cluster
(``cluster``), or on the local worker processes of ``workers.pool`` (what the CLI's ``--workers N`` runs on).

Every random stream in fastspe is counter-based, so work splits into index ranges whose results do
not depend on who computes them: bootstrap draws by draw-index range, scoring by response batch, bank
builds by proposal-index range. Workers compute the ranges; the driver keeps every step whose result
depends on order (accepting boards, the duplicate-key check, writing files, percentiles) and consumes
the ranges in order, so files and tables are byte-for-byte those of an in-process run.

Dask is an extra (``fastspe[dask]``) and is imported only when a cluster is asked for; the local pool needs
nothing beyond the base install.
"""

from __future__ import annotations

import bisect
import contextlib
import importlib.util
import itertools
import logging
import os
import signal
import threading
from collections import deque
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from .errors import UserError
from .extras import require
from .workers.forkserver import (
    IMPORT_ROOT,
    SHARE_OF_CORES,
    apply_share_of_cores,
    end_forkserver,
    share_of_cores,
    start_forkserver,
)
from .workers.pool import ProcessPool, compacted

NEEDED_FOR = "--scheduler (a Dask cluster)"
BIG_ITEM = 1 << 20  # bytes: items larger than this are scattered to a worker before their task is submitted
PROPOSAL_PIECE = 1 << 16  # proposals per worker task in a bank build (~4 MB of boards and paths at d* = 40)
FIRST_PIECE = 1024  # the first piece of a cell (as bank.FIRST_CHUNK); pieces double from there


_END = object()
ABANDON_START = 10.0  # seconds an interrupted ``cluster_in_background`` waits for its cluster to start and close
WAKE = 0.5  # seconds: how often a wait on the cluster looks at the Ctrl-C latch (``_latched_interrupts``)

SCHEDULER_SCHEMES = ("tcp", "tls", "ucx", "ws", "wss")  # Dask's network protocols (inproc: only inside one process)


def check_scheduler(address: str) -> str:
    """``address`` if it reads as a Dask scheduler's network address, ``[SCHEME://]HOST:PORT``; else a
    ``UserError`` (``must be ...``, the message follows the option name) before any connection is tried."""
    text = str(address).strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    host, colon, port = rest.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1]:8786
    ok = (
        scheme in SCHEDULER_SCHEMES
        and colon
        and host
        and "/" not in host
        and port.isdigit()
        and 1 <= int(port) <= 65535
    )
    if not ok:
        shown = repr(text) if len(text) <= 60 else repr(text[:60]) + "..."
        raise UserError(
            f"must be a Dask scheduler address [SCHEME://]HOST:PORT with SCHEME one of "
            f"{', '.join(SCHEDULER_SCHEMES)} (e.g. tcp://10.0.0.5:8786), got {shown}"
        )
    return text


@contextlib.contextmanager
def cluster(scheduler: str | None = None, workers: int | None = None, preload: Sequence[str] = ()):
    """A ``distributed.Client`` for the block, or None (in-process) when neither argument is given.

    ``scheduler``: the address of a running Dask scheduler (``tcp://host:8786``). ``workers``: start a
    local cluster of that many worker processes (one thread each; Numba kernels inside a task share the
    machine's cores between them), stopped when the block ends. Workers import the same fastspe as
    this process. ``preload``: modules the tasks will need, imported once for all local workers
    (``_local_cluster``).
    """
    if not _asked_for(scheduler, workers):
        yield None
        return
    with _latched_interrupts():
        if scheduler is not None:
            dd = require("distributed", NEEDED_FOR)
            with dd.Client(scheduler) as client:
                yield client
            return
        with _local_cluster(workers, tuple(preload)) as client:
            yield client


_interrupted = threading.Event()


@contextlib.contextmanager
def _latched_interrupts():
    """While a cluster is in use, a Ctrl-C is latched as well as raised. Python raises KeyboardInterrupt in whatever
    the main thread runs at that moment; when that is a finalizer (a Dask future's ``__del__``, run as a consumed
    result is dropped), Python prints the exception as "ignored" and drops it, and the program went on waiting for
    its remaining tasks. Waits on the cluster (``_result``) look at the latch and raise it again, and so does the
    end of the block. Only in the main thread, and only over Python's own handler (not an embedding program's)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield  # (an enclosing block latches already, or the SIGINT handler is not Python's own)
        return
    _interrupted.clear()

    def latch(signum, frame):
        _interrupted.set()
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, latch)
    try:
        yield
        _raise_if_interrupted()
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _raise_if_interrupted() -> None:
    """The latched Ctrl-C, raised once."""
    if _interrupted.is_set():
        _interrupted.clear()
        raise KeyboardInterrupt


def _result(future):
    """``future.result()``, waking every ``WAKE`` seconds until it is done to raise a latched Ctrl-C
    (``_latched_interrupts``). The wait has the timeout, not ``result``: a result that takes longer than ``WAKE`` to
    come over the network would be fetched again and again."""
    from distributed import wait

    try:
        while True:
            _raise_if_interrupted()
            try:
                wait(future, timeout=WAKE)
                break
            except TimeoutError:
                continue
        return future.result()
    except KeyboardInterrupt:
        _interrupted.clear()  # raised here, so not lost (the usual case: a program mostly waits on its cluster)
        raise


def _asked_for(scheduler: str | None, workers: int | None) -> bool:
    """Whether a cluster is asked for; a ``UserError`` for arguments that cannot give one."""
    if scheduler is not None and workers is not None:
        raise UserError("give either a scheduler address or a number of workers, not both")
    if scheduler is not None:
        try:
            check_scheduler(scheduler)
        except UserError as exc:
            raise UserError(f"scheduler {exc}") from None
    elif workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise UserError(f"workers must be a whole number >= 1, got {workers!r}")
    return scheduler is not None or workers is not None


@contextlib.contextmanager
def _local_cluster(workers: int, preload: tuple):
    """A LocalCluster of ``workers`` processes forked from one forkserver (``workers.forkserver``): the server
    imports Dask, this program's main module and ``preload`` once, while this process goes on (its own imports,
    reading the inputs); each worker is then a fork of it, ready in milliseconds, instead of a fresh interpreter
    importing everything again (Dask's default, ``spawn``: about 1 CPU-second per worker). The server is
    stopped with the cluster, so nothing outlives the block."""
    if importlib.util.find_spec("distributed") is None:
        require("distributed", NEEDED_FOR)  # the MissingExtra, before any process is started
    ours = start_forkserver(("distributed", *preload))
    try:
        import dask

        dd = require("distributed", NEEDED_FOR)
        env = {
            "PYTHONPATH": os.pathsep.join(p for p in (IMPORT_ROOT, os.environ.get("PYTHONPATH")) if p),
            SHARE_OF_CORES: share_of_cores(workers),
        }
        with (
            dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}),
            dd.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
                env=env,
                # the scheduler's HTTP routes (it serves some without a dashboard) on a free
                # local port: not 8787 on every interface, which a second run would find taken
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            ) as local,
            dd.Client(local, direct_to_workers=True) as client,
        ):  # results come straight back
            # (the cluster's own logs are silenced in the workers too: what goes wrong in one reaches this
            # program as the exception of its task, or as the lost worker Dask retries the task for)
            try:
                yield client
            except KeyboardInterrupt:
                # tasks the shutdown cuts off (a scatter in flight) would log "Task exception was never
                # retrieved" below the command's own "interrupted"
                logging.getLogger("asyncio").setLevel(logging.CRITICAL)
                raise
    finally:
        if ours:
            end_forkserver()


class Starting:
    """A cluster that ``cluster_in_background`` is starting; ``client()`` waits for it to be up."""

    def __init__(self):
        self._up = threading.Event()
        self._stop = threading.Event()
        self._client = None
        self._error: BaseException | None = None

    def client(self):
        while not self._up.wait(WAKE):
            _raise_if_interrupted()
        if self._error is not None:
            raise self._error
        return self._client

    def release(self) -> None:
        """No task will come any more: the cluster starts closing now, while this program finishes its work (the
        end of the block still waits for it to be closed)."""
        self._stop.set()


@contextlib.contextmanager
def cluster_in_background(scheduler: str | None = None, workers: int | None = None, preload: Sequence[str] = ()):
    """As ``cluster``, but the block runs at once while a thread starts the cluster: it gets a ``Starting``
    (None in-process), which ``executor`` and ``ordered_map`` take in place of a client, so that reading the
    inputs overlaps the cluster's start. The arguments are checked before the block; the cluster is closed
    when the block ends, however it ends (a start that failed raises at the first ``client()``, or at the end
    of a block that never asked for it)."""
    if not _asked_for(scheduler, workers):
        yield None
        return
    starting = Starting()

    def run():
        try:
            with cluster(scheduler, workers, preload) as client:
                starting._client = client
                starting._up.set()
                starting._stop.wait()
        except BaseException as exc:  # handed to the block's thread
            starting._error = exc
        finally:
            starting._up.set()

    thread = threading.Thread(target=run, name="fastspe-cluster", daemon=True)
    with _latched_interrupts():  # (the thread cannot latch: signal handlers are the main thread's)
        thread.start()
        interrupted = False
        try:
            yield starting
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            starting._stop.set()
            # a Ctrl-C while this thread imported a module can leave Python's import lock held, and a start still
            # importing (Dask's Nanny does, as it forks a worker) then waits for ever: after an interrupt, give it a
            # while, then leave it (it closes the cluster itself, should it ever come up: ``_stop`` is set)
            thread.join(ABANDON_START if interrupted else None)
    if starting._error is not None:
        raise starting._error


def _client(client):
    return client.client() if isinstance(client, Starting) else client


def executor(client, once: bool = False) -> Callable[..., Iterator] | None:
    """The executor (``fastspe.executor``) that runs pieces on ``client``'s workers (a client, a ``ProcessPool`` or the
    ``Starting`` of ``cluster_in_background``); None for None. ``once``: it runs one map only, so a starting
    cluster is released (``Starting.release``) as soon as the map's last result is in, and its workers close
    while the caller writes that result."""
    if client is None:
        return None

    def run(fn, shared, items, *args):
        yield from ordered_map(client, fn, shared, items, *args)
        if once and isinstance(client, Starting):
            client.release()

    return run


def ordered_map(client, fn: Callable, shared, items: Iterable, *args, ahead: int | None = None) -> Iterator:
    """``fn(shared, item, *args)`` on the workers for each item, yielded in the order of ``items``. ``client``: a
    Dask client, a ``Starting`` or a ``workers.pool.ProcessPool`` (its ``map``).

    ``shared`` goes to every worker once (broadcast), not with each task. Up to ``ahead`` tasks (default:
    twice the worker threads) are in flight, so workers compute the next pieces while the caller consumes
    this one (and ``items`` may be a generator that reads them from a file meanwhile). A task whose worker
    dies is run again elsewhere by Dask; its result is the same, since it depends only on its inputs.
    """
    if isinstance(client, ProcessPool):
        yield from client.map(fn, shared, items, *args, ahead=ahead)
        return
    items = iter(items)
    first = next(items, _END)  # (read while a ``Starting`` cluster starts)
    if first is _END:
        return
    client = _client(client)
    ahead = ahead or max(2, 2 * sum(client.nthreads().values()))
    [shared_future] = client.scatter([Sealed(shared)], broadcast=True, hash=False)
    pending: deque = deque()
    try:
        for item in itertools.chain([first], items):
            item = Sealed(item)
            if item.nbytes > BIG_ITEM:  # a batch of answers travels as data to one worker, not in the task itself
                [item] = client.scatter([item], hash=False)
            pending.append(client.submit(_run_sealed, fn, shared_future, item, *args, pure=False))
            if len(pending) >= ahead:
                yield _result(pending.popleft()).value
        while pending:
            yield _result(pending.popleft()).value
    finally:
        client.cancel([*pending, shared_future])


class Sealed:
    """A value that travels pickled whole. Dask's own Arrow serializer re-chunks a table's columns on the
    way (one chunk per record batch), which changes the pages of a Parquet file written from it; pickle
    keeps every chunk as it was (its buffers still travel out of band, uncopied)."""

    def __init__(self, value):
        self.value = value

    @property
    def nbytes(self) -> int:
        from dask.sizeof import sizeof

        return sizeof(self.value)

    def __sizeof__(self) -> int:  # what Dask's memory accounting sees
        return self.nbytes

    def __reduce__(self):
        return Sealed, (compacted(self.value),)


def _run_sealed(fn: Callable, shared: Sealed, item: Sealed, *args) -> Sealed:
    apply_share_of_cores()
    return Sealed(fn(shared.value, item.value, *args))


class _DaskTasks:
    """A Dask client behind the calls ``Proposals`` makes of a ``workers.pool.ProcessPool``: ``share`` a value
    with every worker, ``submit`` a task, ``release`` a shared value."""

    def __init__(self, client):
        self.client = client
        self.workers = sum(client.nthreads().values())

    def share(self, value):
        [future] = self.client.scatter([value], broadcast=True, hash=False)
        return future

    def submit(self, fn: Callable, shared, *args) -> "_DaskTask":
        return _DaskTask(self.client.submit(fn, shared, *args, pure=False))

    def release(self, shared) -> None:
        self.client.cancel([shared])


class _DaskTask:
    def __init__(self, future):
        self.future = future

    def result(self):
        return _result(self.future)

    def cancel(self) -> None:
        self.future.cancel()


class Proposals:
    """A drop-in for a domain's proposal kernel (the sliding puzzle's ``propose_walks``) that computes proposals on
    workers (of a Dask client or a ``workers.pool.ProcessPool``) in pieces, keeping up to ``ahead`` pieces
    (default: one per worker thread) in flight past the last range asked for. Proposal i depends only on
    (seed, stream, i), so a range cut from pieces is the kernel's range.

    ``piece_fn(layout, first, count, depth, seed, stream)`` computes one piece on a worker (a module-level function,
    so that it pickles): ``layout`` is the (goal, moves, raises) the calls give, shared with each worker once, and
    it returns the kernel's three arrays for proposals ``first .. first + count - 1``.

    Pieces start at ``first`` proposals and double up to ``piece``, as ``build_cell``'s requests grow: a
    small cell (most cells of the paper's design) needs about ``first`` proposals, a large one millions.
    """

    def __init__(
        self,
        client,
        piece_fn: Callable,
        piece: int = PROPOSAL_PIECE,
        first: int = FIRST_PIECE,
        ahead: int | None = None,
    ):
        self.client, self.piece_fn = client, piece_fn
        self._tasks = client if isinstance(client, ProcessPool) else _DaskTasks(client)
        self.ahead = ahead or max(1, self._tasks.workers)
        self._starts = [0]  # piece i covers proposals _starts[i] .. _starts[i + 1] - 1
        while self._starts[-1] < piece:
            self._starts.append(self._starts[-1] + min(max(first, self._starts[-1]), piece))
        self._piece = piece
        self._cell = None
        self._layout = None
        self._pieces: dict[int, object] = {}

    def _start(self, i: int) -> int:
        fixed = len(self._starts) - 1  # pieces from here on are ``piece`` long
        return self._starts[i] if i <= fixed else self._starts[fixed] + (i - fixed) * self._piece

    def _piece_of(self, index: int) -> int:
        fixed = len(self._starts) - 1
        if index >= self._starts[fixed]:
            return fixed + (index - self._starts[fixed]) // self._piece
        return bisect.bisect_right(self._starts, index) - 1

    def __call__(self, goal, moves, raises, depth, seed, stream, start, count):
        cell = (goal.tobytes(), moves.tobytes(), raises.tobytes(), int(depth), int(seed), int(stream))
        if cell != self._cell:  # a new design cell: drop the last cell's pieces, send this layout once
            self.close()
            self._cell = cell
            self._layout = self._tasks.share((goal, moves, raises))
        first, last = self._piece_of(start), self._piece_of(start + count - 1)
        # speculate at most ``ahead`` pieces and ``count`` proposals past this range: enough to keep the workers
        # busy while this range is accepted here, little wasted past a cell's last request
        i = first
        while i <= last or (i <= last + self.ahead and self._start(i) < start + 2 * count):
            if i not in self._pieces:
                self._pieces[i] = self._tasks.submit(
                    self.piece_fn,
                    self._layout,
                    self._start(i),
                    self._start(i + 1) - self._start(i),
                    int(depth),
                    int(seed),
                    int(stream),
                )
            i += 1
        for i in [i for i in self._pieces if i < first]:  # build_cell asks for ranges in increasing order
            self._pieces.pop(i).cancel()
        parts = [self._pieces[i].result() for i in range(first, last + 1)]
        lo = start - self._start(first)
        return tuple(np.concatenate([p[j] for p in parts])[lo : lo + count] for j in range(3))

    def close(self) -> None:
        """Cancel the pieces in flight."""
        for task in self._pieces.values():
            task.cancel()
        if self._layout is not None:
            self._tasks.release(self._layout)
        self._pieces.clear()
        self._cell = self._layout = None

    def __enter__(self) -> "Proposals":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
