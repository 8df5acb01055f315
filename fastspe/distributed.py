"""Bank builds, scoring and bootstrap draws on Dask workers, bit-identical to one process.

Every random stream in fastspe is counter-based, so work splits into index ranges whose results do
not depend on who computes them: bootstrap draws by draw-index range, scoring by response batch, bank
builds by proposal-index range. Workers compute the ranges; the driver keeps every step whose result
depends on order (accepting boards, the duplicate-key check, writing files, percentiles) and consumes
the ranges in order, so files and tables are byte-for-byte those of an in-process run.

Dask is an extra (``fastspe[dask]``) and is imported only when a cluster is asked for.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import os
from collections import deque
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from .errors import UserError
from .extras import require

NEEDED_FOR = "--scheduler/--workers (running on Dask)"
BIG_ITEM = 1 << 20  # bytes: items larger than this are scattered to a worker before their task is submitted
PROPOSAL_PIECE = 1 << 16  # proposals per worker task in a bank build (~4 MB of boards and paths at d* = 40)
FIRST_PIECE = 1024  # the first piece of a cell (as bank.FIRST_CHUNK); pieces double from there


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
    ok = (scheme in SCHEDULER_SCHEMES and colon and host and "/" not in host and port.isdigit()
          and 1 <= int(port) <= 65535)
    if not ok:
        shown = repr(text) if len(text) <= 60 else repr(text[:60]) + "..."
        raise UserError(f"must be a Dask scheduler address [SCHEME://]HOST:PORT with SCHEME one of "
                        f"{', '.join(SCHEDULER_SCHEMES)} (e.g. tcp://10.0.0.5:8786), got {shown}")
    return text


@contextlib.contextmanager
def cluster(scheduler: str | None = None, workers: int | None = None):
    """A ``distributed.Client`` for the block, or None (in-process) when neither argument is given.

    ``scheduler``: the address of a running Dask scheduler (``tcp://host:8786``). ``workers``: start a
    local cluster of that many worker processes (one thread each; Numba kernels inside a task share the
    machine's cores between them), stopped when the block ends. Workers import the same fastspe as
    this process (its folder leads their ``PYTHONPATH``).
    """
    if scheduler is not None and workers is not None:
        raise UserError("give either a scheduler address or a number of workers, not both")
    if scheduler is None and workers is None:
        yield None
        return
    if scheduler is not None:
        try:
            check_scheduler(scheduler)
        except UserError as exc:
            raise UserError(f"scheduler {exc}") from None
    dd = require("distributed", NEEDED_FOR)
    if scheduler is not None:
        with dd.Client(scheduler) as client:
            yield client
        return
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise UserError(f"workers must be a whole number >= 1, got {workers!r}")
    here = str(Path(__file__).resolve().parents[1])
    env = {"PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p),
           "NUMBA_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // workers))}
    with dd.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                         silence_logs=logging.ERROR, env=env) as local, \
            dd.Client(local, direct_to_workers=True) as client:  # results come straight back, not via the scheduler
        yield client


def executor(client) -> Callable[..., Iterator] | None:
    """The executor (``fastspe.executor``) that runs pieces on ``client``'s workers; None for None."""
    if client is None:
        return None

    def run(fn, shared, items, *args):
        return ordered_map(client, fn, shared, items, *args)

    return run


def ordered_map(client, fn: Callable, shared, items: Iterable, *args, ahead: int | None = None) -> Iterator:
    """``fn(shared, item, *args)`` on the workers for each item, yielded in the order of ``items``.

    ``shared`` goes to every worker once (broadcast), not with each task. Up to ``ahead`` tasks (default:
    twice the worker threads) are in flight, so workers compute the next pieces while the caller consumes
    this one (and ``items`` may be a generator that reads them from a file meanwhile). A task whose worker
    dies is run again elsewhere by Dask; its result is the same, since it depends only on its inputs.
    """
    ahead = ahead or max(2, 2 * sum(client.nthreads().values()))
    [shared_future] = client.scatter([Sealed(shared)], broadcast=True, hash=False)
    pending: deque = deque()
    try:
        for item in items:
            item = Sealed(item)
            if item.nbytes > BIG_ITEM:  # a batch of answers travels as data to one worker, not in the task itself
                [item] = client.scatter([item], hash=False)
            pending.append(client.submit(_run_sealed, fn, shared_future, item, *args, pure=False))
            if len(pending) >= ahead:
                yield pending.popleft().result().value
        while pending:
            yield pending.popleft().result().value
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


def _run_sealed(fn: Callable, shared: Sealed, item: Sealed, *args) -> Sealed:
    return Sealed(fn(shared.value, item.value, *args))


def _proposal_piece(layout, first: int, count: int, depth: int, seed: int, stream: int):
    from .kernels.walks import propose_walks

    goal, moves, raises = layout
    return propose_walks(goal, moves, raises, depth, seed, stream, first, count)


class Proposals:
    """A drop-in for the ``propose_walks`` kernel in ``bank.build_bank_table`` that computes proposals on
    workers in pieces, keeping up to ``ahead`` pieces (default: one per worker thread) in flight past the
    last range asked for. Proposal i depends only on (seed, stream, i), so a range cut from pieces is the
    kernel's range.

    Pieces start at ``first`` proposals and double up to ``piece``, as ``build_cell``'s requests grow: a
    small cell (most cells of the paper's design) needs about ``first`` proposals, a large one millions.
    """

    def __init__(self, client, piece: int = PROPOSAL_PIECE, first: int = FIRST_PIECE, ahead: int | None = None):
        self.client = client
        self.ahead = ahead or max(1, sum(client.nthreads().values()))
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
            [self._layout] = self.client.scatter([(goal, moves, raises)], broadcast=True, hash=False)
        first, last = self._piece_of(start), self._piece_of(start + count - 1)
        # speculate at most ``ahead`` pieces and ``count`` proposals past this range: enough to keep the workers
        # busy while this range is accepted here, little wasted past a cell's last request
        i = first
        while i <= last or (i <= last + self.ahead and self._start(i) < start + 2 * count):
            if i not in self._pieces:
                self._pieces[i] = self.client.submit(_proposal_piece, self._layout, self._start(i),
                                                     self._start(i + 1) - self._start(i), int(depth), int(seed),
                                                     int(stream), pure=False)
            i += 1
        for i in [i for i in self._pieces if i < first]:  # build_cell asks for ranges in increasing order
            self._pieces.pop(i).cancel()
        parts = [self._pieces[i].result() for i in range(first, last + 1)]
        lo = start - self._start(first)
        return tuple(np.concatenate([p[j] for p in parts])[lo:lo + count] for j in range(3))

    def close(self) -> None:
        """Cancel the pieces in flight."""
        futures = list(self._pieces.values()) + ([self._layout] if self._layout is not None else [])
        if futures:
            self.client.cancel(futures)
        self._pieces.clear()
        self._cell = self._layout = None

    def __enter__(self) -> "Proposals":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
