"""Shared pieces of the command line: error exits and a progress bar that stays quiet off a TTY."""

from __future__ import annotations

import contextlib
import math
import sys
from typing import Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

_METRIC_FORMATS = {"N": "{:d}", "G": "{:.2f}"}  # other floats: 3 decimals

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


def _metric_cell(name: str, value) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "n/a"  # undefined (Q without a legal plan, E and G without a completion), as in the report
    if name in _METRIC_FORMATS:
        return _METRIC_FORMATS[name].format(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def metrics_table(frame, title: str | None = None) -> Table:
    """A metrics DataFrame (group columns, then N, C, ..., SPE) as a rich table, numbers right-aligned.

    Columns keep their full width, so a table piped to an 80-column file does not hide numbers.
    """
    cells = [[_metric_cell(col, val) for col, val in zip(frame.columns, rec)] for rec in frame.itertuples(index=False)]
    view = Table(title=title, title_justify="left", show_edge=False, header_style="bold")
    for j, col in enumerate(frame.columns):
        width = max([len(str(col))] + [len(row[j]) for row in cells])
        view.add_column(str(col), justify="right" if frame[col].dtype.kind in "iuf" else "left", min_width=width,
                        no_wrap=True)
    for row in cells:
        view.add_row(*(escape(c) for c in row))
    return view
