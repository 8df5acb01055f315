"""Imported first by the forkserver that forks the local Dask workers (``fastspe.distributed._local_cluster``).

A terminal's Ctrl-C goes to the whole foreground process group: to this program, which closes the cluster and
says "error: interrupted", and to every worker, which would die at once printing Dask's KeyboardInterrupt
tracebacks (and make the scheduler log lost data). A forkserver hands its children the SIGINT handler it holds
after its preloads, so ignoring SIGINT there leaves the interrupt to this program alone; the workers end with
the cluster, as on any other exit. Imported anywhere else (a test or a doc tool importing every module), it
changes nothing.
"""

import signal
import sys
from multiprocessing import forkserver


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
