"""One line before a process first compiles a kernel: on a fresh cache a command spends its first tens of seconds
compiling, which would otherwise look like a hang.

The line is said through a callback that the command line installs (``tell_before_compiling``); the library itself
prints nothing. numba reports a compile (``numba:compile``) only after a cache lookup missed, so a command whose
kernels are all cached says nothing. Outside ``fastspe._numba`` and without a numba import at module level:
the command line installs the callback before it knows whether the command will load numba at all.
"""

from __future__ import annotations

from typing import Callable

_tell: Callable[[], None] | None = None


def tell_before_compiling(tell: Callable[[], None] | None) -> None:
    """Call ``tell()`` once, just before this process's first compile (None: say nothing)."""
    global _tell
    _tell = tell


def _first_compile() -> None:
    global _tell
    tell, _tell = _tell, None  # once per process, however many kernels follow
    if tell is not None:
        tell()


def listen() -> None:
    """Register the listener with numba's event API (``fastspe._numba`` does, once, on import)."""
    from numba.core import event

    class FirstCompile(event.Listener):
        def on_start(self, ev):
            _first_compile()

        def on_end(self, ev):
            pass

    event.register("numba:compile", FirstCompile())


__all__ = ["listen", "tell_before_compiling"]
