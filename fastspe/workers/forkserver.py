"""The forkserver that forks fastspe's local worker processes (``workers.pool`` and the local Dask cluster of
``fastspe.distributed``), and what it imports first.

Imported first by that forkserver: a terminal's Ctrl-C goes to the whole foreground process group: to this
program, which stops its workers and says "error: interrupted", and to every worker, which would die at once
printing tracebacks. A forkserver hands its children the SIGINT handler it holds after its preloads, so ignoring
SIGINT there leaves the interrupt to this program alone; the workers end with the pool, as on any other exit.
Imported anywhere else (a test or a doc tool importing every module), it changes nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from multiprocessing import forkserver
from pathlib import Path

IMPORT_ROOT = str(Path(__file__).resolve().parents[2])  # the folder fastspe is imported from

# A local worker's share of the cores, in its environment under fastspe's own name: a forked worker imported Numba in
# the forkserver, where its thread pool took its size from ``NUMBA_NUM_THREADS`` as it was then, and Numba reads that
# variable again before every compile and refuses a value that differs from the running pool's, so with the share
# in ``NUMBA_NUM_THREADS`` a worker failed on its first kernel that was not in the cache yet.
SHARE_OF_CORES = "FASTSPE_WORKER_THREADS"


def preloaded_by_a_forkserver() -> bool:
    """Whether this import runs inside ``multiprocessing.forkserver.main``'s preloads."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is forkserver.main.__code__:
            return True
        frame = frame.f_back
    return False


if preloaded_by_a_forkserver():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start_forkserver(preload) -> bool:
    """Start the forkserver with ``preload`` (after this module and this program's main module, before Numba's
    tables: ``fastspe._numba.warm``); its imports run beside this process's own from here on. True when it was not
    running yet, so that the caller ends it too (``end_forkserver``)."""
    import multiprocessing

    ours = getattr(forkserver._forkserver, "_forkserver_pid", None) is None
    multiprocessing.get_context("forkserver").set_forkserver_preload(
        list(dict.fromkeys((__name__, main_module(), *preload, "fastspe._numba.warm")))
    )
    forkserver.ensure_running()
    return ours


def end_forkserver() -> None:
    """Ends the forkserver that ``start_forkserver`` started, once its workers are gone. It is killed: it holds
    nothing but a copy of the imports, and its orderly exit (an interpreter's finalization of Dask, Numba and
    Arrow) took 0.35-0.4 s at the end of every command."""
    server = forkserver._forkserver
    with contextlib.suppress(Exception):  # (private, but the one way to end it before this process ends)
        pid = server._forkserver_pid
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
        server._stop()  # (reaps it and removes its socket)


def main_module() -> str:
    """What a forked worker imports as its main module (as a spawned one would): ``fastspe.__main__`` under
    ``python -m fastspe``; ``__main__`` (the script, by path) otherwise."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return spec.name if spec is not None and spec.name else "__main__"


def share_of_cores(workers: int) -> str:
    """A local worker's share of this machine's cores, as ``SHARE_OF_CORES`` holds it."""
    return str(max(1, (os.cpu_count() or 1) // workers))


def apply_share_of_cores() -> None:
    """A local worker's share of the cores (``SHARE_OF_CORES``) for Numba's parallel kernels, applied per call (the
    setting is the calling thread's)."""
    wanted = os.environ.get(SHARE_OF_CORES, "")
    if wanted.isdigit() and int(wanted) >= 1:
        import numba

        numba.set_num_threads(min(int(wanted), numba.config.NUMBA_NUM_THREADS))
