"""Imported last by the forkserver that forks the local workers (``fastspe.workers.forkserver``).

Numba builds its compiler's tables (the typing and lowering registries: about 100 modules imported and their
functions registered) on a process's first kernel, compiled or loaded from the cache. Built here, once, they are
in every worker forked from here: each worker's first task no longer spends 0.2 CPU-seconds on them while the
other worker and this program want the same cores. Kernels are not loaded here: loading a parallel kernel starts
GNU OpenMP's threads, after which a fork aborts ("fork() called from a process already using GNU OpenMP").
Imported anywhere else, it does nothing.
"""

from ..workers.forkserver import preloaded_by_a_forkserver


def build_tables() -> None:
    """Numba's typing and target tables, as a first kernel would build them; no thread is started."""
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    import filelock  # noqa: F401  (the kernel cache's lock, taken on a first kernel: fastspe._numba.folder)


if preloaded_by_a_forkserver():
    build_tables()
