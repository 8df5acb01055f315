"""Shared pieces of the command line: error exits and a progress bar that stays quiet off a TTY."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

stdout = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> int:
    """Print ``error: message`` on stderr and return the exit code."""
    stderr.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    return code


@contextlib.contextmanager
def progress_bar(description: str, total: int | None = None) -> Iterator[Callable[[int, int], None]]:
    """Yield ``update(done, total)``; draws a bar only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=stderr, transient=True) as bar:
        task = bar.add_task(description, total=total)

        def update(done: int, total: int | None = None) -> None:
            bar.update(task, completed=done, total=total)

        yield update
