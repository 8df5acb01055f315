"""Shared pieces of the command line: plain-text output, error exits, validated option types,
and output-overwrite checks (progress displays: ``progress.py``).

Everything the CLI prints goes through this module. File names, model names, conditions, board ids
and messages that quote them are user-controlled, so they are printed as plain text: the consoles
parse no markup, emoji codes or highlighting, and ``plain`` (``fastspe._text``, which pages use too)
escapes control characters so that a name holding ``\\x1b[31m`` cannot recolour or rewrite the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
from pathlib import Path
from typing import Callable

from rich.console import Console
from rich.measure import Measurement
from rich.segment import Segments
from rich.table import Table
from rich.text import Text

from .._text import printable as plain  # the pages escape the same way
from ..errors import ParameterError, UserError
from ..kernels import MAX_SEED

_METRIC_FORMATS = {"N": "{:d}", "G": "{:.2f}", "Dc": "{:.1f}"}  # other floats: 3 decimals
_CONSOLE_OPTIONS = dict(soft_wrap=True, emoji=False, markup=False, highlight=False)

stdout = Console(**_CONSOLE_OPTIONS)
stderr = Console(stderr=True, **_CONSOLE_OPTIONS)


def say(text, err: bool = False) -> None:
    """Print ``text`` as plain text on stdout (``err``: stderr); newlines are kept.

    A rich renderable (a table of ``cell`` texts) is printed as it is, a table at its full width."""
    console = stderr if err else stdout
    if not (hasattr(text, "__rich_console__") or hasattr(text, "__rich__")):
        text = plain(text)
    elif isinstance(text, Table):
        text = _full_width(console, text)
    console.print(text)


def _full_width(console: Console, view: Table):
    """``view`` rendered at its natural width, wider than the console if need be: rich fits a table to the
    console (80 columns on a pipe) by cutting cells to ``…`` and dropping whole number columns; a file
    keeps the long lines and a terminal wraps them, numbers intact."""
    width = Measurement.get(console, console.options.update(max_width=1 << 16), view).maximum
    if width <= console.width:
        return view
    lines = console.render_lines(view, console.options.update(width=width, max_width=width), new_lines=True)
    return Segments([segment for line in lines for segment in line])


def compiling_line(seconds: int | None) -> str:
    """What a command says before its first compile; ``seconds``: its measured cold compile on 2 cores, if known."""
    about = f": about {seconds} s" if seconds else ""
    return f"compiling fastspe's kernels for this machine, once{about} (`fastspe cache warm` does it ahead)"


def note(text) -> None:
    """A dim progress or timing line on stderr."""
    stderr.print(Text(plain(text), style="dim"))


def warn(text) -> None:
    """Print ``warning: text`` on stderr."""
    stderr.print(Text.assemble(("warning:", "yellow"), " ", plain(text)))


def fail(message, code: int = 2) -> int:
    """Print ``error: message`` (one line) on stderr and return the exit code."""
    stderr.print(Text.assemble(("error:", "bold red"), " ", plain(message, keep_newlines=False)))
    return code


@contextlib.contextmanager
def as_options(options: dict):
    """An API error about its parameters (``ParameterError``), told about the command's options that gave them:
    ``options`` maps parameter names to option names (``{"trials": "--trials"}``)."""
    try:
        yield
    except ParameterError as exc:
        raise UserError(exc.for_options(options)) from None


def os_error_text(exc: OSError) -> str:
    """An ``OSError`` as one message naming its file: ``FILE: Permission denied`` rather than Python's
    ``[Errno 13] Permission denied: 'FILE'`` (whose quoting garbles names); fastspe's own texts as they are."""
    if not exc.strerror:
        return str(exc)
    if exc.filename is None:  # fastspe's WriteError names the file in its text
        return exc.strerror
    names = " -> ".join(str(os.fsdecode(n)) for n in (exc.filename, exc.filename2) if n is not None)
    return f"{names}: {exc.strerror}"


def ignore_file_size_signal() -> None:
    """Let a write past the file-size limit (``ulimit -f``) fail as ``OSError(EFBIG)``, which names the file,
    instead of SIGXFSZ killing the process without a word (its default)."""
    import signal
    import threading

    if hasattr(signal, "SIGXFSZ") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class HelpFormatter(argparse.HelpFormatter):
    """One style of defaults in every help text: ``(default: X)`` after each option that has one.

    Options without a default (None, a flag's False) show none; a help text that already says
    ``(default: ...)`` in words (``the server's``) is kept as written.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        unset = action.default is None or action.default is False or action.default == argparse.SUPPRESS
        if "(default" in text or unset or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class ArgumentParser(argparse.ArgumentParser):
    """argparse with fastspe's error line: ``error: --name ...`` and exit 2, usage only on request,
    and ``HelpFormatter`` for every command and subcommand."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        if message.startswith("argument "):
            message = message[len("argument ") :]
        fail(f"{message} (see `{self.prog} --help`)")
        raise SystemExit(2)


# -- option types (argparse ``type=``): refuse non-finite and out-of-range values at parse time ----------


def _shown(text: str) -> str:
    """An option value quoted for an error message, cut short when long (a 10**30 typo, a pasted blob)."""
    return repr(text) if len(text) <= 30 else f"{text[:12]!r}... ({len(text)} characters)"


def int_option(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number in ``low..high``."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:  # also for over 4300 digits (Python's int-from-string limit)
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number in {low:,}..{high:,}, got {_shown(text)}")
        return value

    parse.__name__ = "int"
    return parse


def float_option(low: float, high: float = math.inf, *, above: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in ``[low, high]`` (``(low, high]`` with ``above``)."""
    lower = f"> {low:g}" if above else f">= {low:g}"
    wanted = f"a finite number {lower}" + (f" and <= {high:g}" if high < math.inf else "")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value > high or value < low or (above and value == low):
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {_shown(text)}")
        return value

    parse.__name__ = "float"
    return parse


def checked_option(parse: Callable[[str], object], name: str) -> Callable[[str], object]:
    """An argparse type from ``parse``, whose ValueError message (``must be ...``) becomes the option's error."""

    def check(text: str):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    check.__name__ = name
    return check


def text_option(text: str) -> str:
    """An argparse type: any non-empty text."""
    if not text:
        raise argparse.ArgumentTypeError("must be a non-empty text")
    return text


seed_option = int_option(0, MAX_SEED)
MAX_DRAWS = 1_000_000
draws_option = int_option(1, MAX_DRAWS)
MAX_TRIALS = 1_000_000
trials_option = int_option(1, MAX_TRIALS)


# -- outputs never overwrite inputs ---------------------------------------------------------------------


def _same_or_inside(output: Path, input_: Path) -> bool:
    """Whether ``input_`` is the file ``output`` (by inode or resolved path) or lies inside the folder ``output``."""
    with contextlib.suppress(OSError):
        if os.path.samefile(output, input_):
            return True
    out, inp = output.resolve(), input_.resolve()
    return inp == out or out in inp.parents


def refuse_overwrite(inputs: dict, outputs: dict) -> None:
    """A ValueError if an output would replace an input: the same file, or a folder holding it
    (report folders are replaced whole). Both map option names to paths, e.g.
    ``refuse_overwrite({"--bank": args.bank}, {"--out": args.out})``; None paths are ignored."""
    for out_name, out in outputs.items():
        for in_name, inp in inputs.items():
            if out is None or inp is None or not _same_or_inside(Path(out), Path(inp)):
                continue
            relation = (
                "is the same file as"
                if Path(out).resolve() == Path(inp).resolve() or Path(out).is_file()
                else "is a folder holding"
            )
            raise UserError(f"{out_name} {out} {relation} {in_name} {inp}; write the output elsewhere")


# -- tables ------------------------------------------------------------------------------


def cell(value) -> Text:
    """A table cell holding ``value`` as plain text."""
    return Text(plain(value, keep_newlines=False))


def _metric_cell(name: str, value) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "n/a"  # undefined (Q without a legal plan, E and G without a completion), as in the report
    if name in _METRIC_FORMATS:
        return _METRIC_FORMATS[name].format(value)
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def metrics_table(frame, title: str | None = None):
    """A metrics DataFrame (group columns, then N, C, ..., SPE) as a rich table, numbers right-aligned.

    Columns keep their full width, so a table piped to an 80-column file does not hide numbers.
    """
    from rich.table import Table

    cells = [
        [cell(_metric_cell(col, val)) for col, val in zip(frame.columns, rec)] for rec in frame.itertuples(index=False)
    ]
    view = Table(
        title=cell(title) if title is not None else None, title_justify="left", show_edge=False, header_style="bold"
    )
    for j, col in enumerate(frame.columns):
        width = max([len(str(col))] + [row[j].cell_len for row in cells])
        view.add_column(
            cell(col), justify="right" if frame[col].dtype.kind in "iuf" else "left", min_width=width, no_wrap=True
        )
    for row in cells:
        view.add_row(*row)
    return view


# -- Dask and local workers ----------------------------------------------------------------------


def cluster_options(parser: argparse.ArgumentParser) -> None:
    """``--scheduler ADDRESS`` or ``--workers N`` (one or neither): where the heavy part runs."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--scheduler",
        type=checked_option(scheduler_address, "address"),
        metavar="ADDRESS",
        help="run on the Dask cluster of this scheduler (tcp://host:8786); results are the same "
        "byte for byte (needs fastspe[dask])",
    )
    group.add_argument(
        "--workers",
        type=int_option(1, 4096),
        metavar="N",
        help="run on N local worker processes, started and stopped here; results are the same "
        "byte for byte; without this or --scheduler: in this process",
    )


def scheduler_address(text: str) -> str:
    """``--scheduler``'s value, checked before Dask is imported (``fastspe.distributed.check_scheduler``)."""
    from ..distributed import check_scheduler

    return check_scheduler(text)


@contextlib.contextmanager
def cluster_client(args, preload=()):
    """Where ``cluster_options`` asked the work to run: a ``distributed.Client`` for ``--scheduler``, a
    ``fastspe.workers.pool.ProcessPool`` for ``--workers``, or None (in-process); each goes to
    ``fastspe.distributed.executor`` or ``Proposals``. ``preload``: the modules the tasks need, imported once for
    all local workers, beside this process's own imports."""
    if args.workers is not None:
        from ..workers.pool import process_pool

        with process_pool(args.workers, preload) as pool:
            yield pool
        return
    from ..distributed import cluster  # imports dask only when asked for a cluster

    with cluster(args.scheduler) as client:
        yield client


@contextlib.contextmanager
def cluster_starting(args, preload=()):
    """As ``cluster_client``, but the block goes on while a Dask cluster starts: it gets a
    ``fastspe.distributed.Starting`` in place of its client. (A local pool's forkserver starts beside the block
    anyway, and its workers are forked at the first task.)"""
    if args.scheduler is None:
        with cluster_client(args, preload) as pool:
            yield pool
        return
    from ..distributed import cluster_in_background

    with cluster_in_background(args.scheduler, None, preload) as starting:
        yield starting
