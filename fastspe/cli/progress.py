"""Progress of long stages on stderr: a rich bar on a terminal, plain periodic lines elsewhere.

Off a terminal (nohup, SLURM, CI logs, ``2> file``) a bar would be noise or nothing at all, so a
stage that runs longer than a few seconds prints one line every ``FASTSPE_PROGRESS_SECONDS``
(default 5) with counts, rate and ETA, and a closing line when it ends. ``FASTSPE_PROGRESS``
chooses: ``auto`` (the default: bar on a terminal, lines otherwise), ``bar``, ``lines`` or ``off``.

Stages report through a callable ``update(done, total=None, **counts)``; ``counts`` are live
tallies shown beside the bar (``failed=2, retried=5, rate_limited=3, spent_usd=0.12``).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from typing import Callable, Iterator

from ._common import plain, stderr
from ..errors import UserError

MODES = ("auto", "bar", "lines", "off")
DEFAULT_SECONDS = 5.0
ETA_BASIS = 0.01  # the share of a stage done (since its first report) before an ETA is shown
# How a count is shown; other names show as "name value" with underscores as spaces.
_LABELS = {"rate_limited": "429s", "spent_usd": "$"}

Update = Callable[..., None]


def _mode() -> str:
    mode = os.environ.get("FASTSPE_PROGRESS", "auto").strip().lower() or "auto"
    if mode not in MODES:
        raise UserError(f"FASTSPE_PROGRESS={mode!r}: use one of {', '.join(MODES)}")
    if mode == "auto":
        return "bar" if sys.stderr.isatty() else "lines"
    return mode


def _interval() -> float:
    text = os.environ.get("FASTSPE_PROGRESS_SECONDS", "")
    try:
        seconds = float(text) if text.strip() else DEFAULT_SECONDS
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise UserError(f"FASTSPE_PROGRESS_SECONDS={text!r}: use a number of seconds > 0")
    return seconds


def counts_text(counts: dict, skip_zeros: bool = False) -> str:
    """Live tallies as ``failed 2 · 429s 3 · $0.1200``; zeros are shown unless ``skip_zeros`` (a bar's narrow room)."""
    parts = []
    for name, value in counts.items():
        if skip_zeros and not value:
            continue
        if name == "spent_usd":
            parts.append(f"${value:,.4f}")
        elif isinstance(value, float):
            parts.append(f"{_LABELS.get(name, name.replace('_', ' '))} {value:,.2f}")
        else:
            parts.append(f"{_LABELS.get(name, name.replace('_', ' '))} {value:,}")
    return " · ".join(parts)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class LineProgress:
    """Plain progress lines: the first after ``every`` seconds, then every ``every`` seconds, and a
    closing line if any was printed. Thread-safe: runners report from their collecting thread."""

    def __init__(
        self,
        description: str,
        total: int | None,
        unit: str,
        every: float,
        write: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ):
        self.description, self.total, self.unit = plain(description, keep_newlines=False), total, unit
        self.every, self._write, self._clock = every, write, clock
        self.start = clock()
        self._next = self.start + every
        self._state: tuple[int, int | None, dict] = (0, total, {})
        self._printed = False
        self._first: tuple[float, int] | None = None  # (time, done) of the first report: the rate's origin
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int | None = None, **counts) -> None:
        with self._lock:
            total = self.total if total is None else total
            self._state = (int(done), total, counts)
            now = self._clock()
            if self._first is None:
                self._first = (now, int(done))
            if now >= self._next:
                self._next = now + self.every
                self._emit(now, final=False)

    def line(self, now: float, final: bool, stopped: bool = False) -> str:
        done, total, counts = self._state
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        measured = 0  # items done since the first report, over which the rate is measured
        if self._first is not None and now > self._first[0] and done > self._first[1]:
            # from the first report on: setup before it (reading, planning) does not drag the ETA out
            rate = (done - self._first[1]) / (now - self._first[0])
            measured = done - self._first[1]
        unit = f" {self.unit}" if self.unit else ""
        head = f"{self.description}: {done:,}"
        head += f"/{total:,}{unit} ({100.0 * done / total:.0f}%)" if total else unit
        parts = [head, f"{rate:,.0f}/s" if rate >= 10 else f"{rate:,.2f}/s"]
        if final:
            parts.append(f"{'stopped after' if stopped else 'done in'} {_duration(elapsed)}")
        else:
            parts.append(f"elapsed {_duration(elapsed)}")
            # an ETA only from a rate measured over at least ETA_BASIS of the work: the first steps of a stage
            # (compiling, a breadth-first search's first small layers) say nothing of the rest
            if total and 0 < done < total and measured >= ETA_BASIS * total:
                parts.append(f"ETA {_duration((total - done) / rate)}")
        if counts:
            parts.append(counts_text(counts))
        return ", ".join(parts)

    def _emit(self, now: float, final: bool, stopped: bool = False) -> None:
        self._write(self.line(now, final, stopped))
        self._printed = True

    def close(self, stopped: bool = False) -> None:
        """The closing line (``stopped``: the stage failed or was interrupted), if any line was printed."""
        with self._lock:
            if self._printed:
                self._emit(self._clock(), final=True, stopped=stopped)


@contextlib.contextmanager
def _bar(description: str, total: int | None, unit: str) -> Iterator[Update]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.table import Column

    # The counts column takes what room is left and is cut with an ellipsis: on a narrow terminal the
    # bar and the numbers stay, and the line never wraps (a wrapped live line leaves copies behind).
    counts_column = TextColumn(
        "{task.fields[counts]}", markup=False, table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis")
    )
    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(bar_width=20),
        MofNCompleteColumn(),
        TextColumn(unit, markup=False),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        counts_column,
        console=stderr,
        transient=True,
        expand=True,
    ) as bar:
        task = bar.add_task(plain(description, keep_newlines=False), total=total, counts="")

        def update(done: int, total: int | None = None, **counts) -> None:
            fields = {"counts": plain(counts_text(counts, skip_zeros=True), keep_newlines=False)} if counts else {}
            bar.update(task, completed=done, **({"total": total} if total is not None else {}), **fields)

        yield update


@contextlib.contextmanager
def progress(description: str, total: int | None = None, unit: str = "") -> Iterator[Update]:
    """Yield ``update(done, total=None, **counts)`` for a stage of ``total`` items (None: unknown yet).

    ``unit`` names the items in plain lines (``boards``, ``answers``, ``draws``).
    """
    mode = _mode()
    if mode == "off":
        yield lambda done, total=None, **counts: None
    elif mode == "bar":
        with _bar(description, total, unit) as update:
            yield update
    else:
        lines = LineProgress(description, total, unit, _interval(), lambda text: stderr.print(text, style="dim"))
        try:
            yield lines
        except BaseException:
            lines.close(stopped=True)
            raise
        lines.close()


class Stages:
    """``update(stage, done, total=None, **counts)`` for work in several stages (report: bootstrap,
    figures): each new stage name closes the last stage's display and opens ``description: stage``.
    Use as a context manager so the last stage closes."""

    def __init__(self, description: str, units: dict | None = None):
        self.description, self.units = description, units or {}
        self._stage: str | None = None
        self._stack = contextlib.ExitStack()
        self._update: Update | None = None

    def __call__(self, stage: str, done: int, total: int | None = None, **counts) -> None:
        if stage != self._stage:
            self._stack.close()
            self._stage = stage
            self._update = self._stack.enter_context(
                progress(f"{self.description}: {stage}", total, self.units.get(stage, ""))
            )
        self._update(done, total, **counts)

    def __enter__(self) -> "Stages":
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()
