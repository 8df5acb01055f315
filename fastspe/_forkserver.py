"""Imported first by the forkserver that forks the local Dask workers (``fastspe.distributed._local_cluster``).

A terminal's Ctrl-C goes to the whole foreground process group: to this program, which closes the cluster and
says "error: interrupted", and to every worker, which would die at once printing Dask's KeyboardInterrupt
tracebacks (and make the scheduler log lost data). A forkserver hands its children the SIGINT handler it holds
after its preloads, so ignoring SIGINT here leaves the interrupt to this program alone; the workers end with the
cluster, as on any other exit.
"""

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
