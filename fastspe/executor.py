"""How domain functions hand out independent pieces of work: an *executor*.

An executor is called as ``executor(fn, shared, items, *args)`` and yields ``fn(shared, item, *args)``
for each item, in the order of ``items``. ``shared`` is what every piece reads (packed sums, a packed
bank), so an executor that runs pieces elsewhere can send it once. Every random stream in fastspe is
counter-based (keyed by seed, stream and index), so a piece's result does not depend on where it is
computed, and the caller's in-order consumption keeps every result bit-identical to one process.
``fastspe.distributed.executor`` runs the pieces on Dask workers.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

Executor = Callable[..., Iterator]


def in_process(fn: Callable, shared, items: Iterable, *args) -> Iterator:
    """The default executor: each piece here, one after the other."""
    return (fn(shared, item, *args) for item in items)
