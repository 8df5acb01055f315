"""The ``fastspe`` command line: ``main(argv) -> int`` over a parser testable on its own.

Each sub-command lives in its own module with a ``register(subparsers)`` function that adds its
parser and sets ``func(args) -> int``. The CLI holds no logic the Python API lacks.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

# mimalloc (pyarrow's memory pool) keeps freed pages a while for reuse. A streamed bank build frees and allocates a
# row group at a time, so the kept pages add up to its peak (1M boards: ~720 -> ~600 MB), and a report forks its
# figures from a process whose kept pages every fork copies the tables of: hand them back at once. ``fastspe score``
# keeps the reuse: handing pages back makes a 1M-answer score fault in ~165,000 pages again (0.5 CPU-s). Read when
# pyarrow first allocates, so it must come before any import of pyarrow (and so it follows the process's own command
# line); a user's value wins.
if sys.argv[1:2] != ["score"]:
    os.environ.setdefault("MIMALLOC_PURGE_DELAY", "0")

from .. import __version__  # noqa: E402
from ..errors import FastspeError
from ..extras import MissingExtra
from .._text.compile_notice import tell_before_compiling
from ._common import ArgumentParser, compiling_line, fail, ignore_file_size_signal, note, os_error_text, warn

COMMAND_MODULES = (
    "bank",
    "solve",
    "score",
    "verdicts",
    "show",
    "report",
    "compare",
    "history",
    "run",
    "runs",
    "demo",
    "import_inspect",
    "domains",
    "cache",
    "prompts",
)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="fastspe",
        description="Certified banks of planning puzzles (every installed domain: `fastspe domains`), verified replay "
        "and SPE = R x Q x E metrics for innate LLM planning.",
    )
    parser.add_argument("--version", action="version", version=f"fastspe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad option already reported as `error: ...`
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    ignore_file_size_signal()
    if getattr(args, "compile_notice", True):  # (`cache warm` says what it compiles step by step)
        tell_before_compiling(lambda: note(compiling_line(getattr(args, "compile_seconds", None))))
    try:
        with warnings.catch_warnings():
            # a library warning (a file without a checksum, outputs with failed attempts only) is one plain line
            warnings.simplefilter("default")
            warnings.showwarning = lambda message, *_args, **_kw: warn(str(message))
            return int(args.func(args) or 0)
    except (FastspeError, MissingExtra) as exc:  # anything else is a bug: its traceback is kept
        return fail(str(exc))
    except OSError as exc:  # a file, a disk, a permission, a connection: what it names is the user's to fix
        return fail(os_error_text(exc))
    except KeyboardInterrupt:
        return fail("interrupted", code=130)
    except SystemError as exc:
        if _from_interrupt(exc):
            return fail("interrupted", code=130)
        raise
    finally:
        tell_before_compiling(None)  # (a command that compiled nothing leaves no notice armed for what follows it)


def _from_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` came of a Ctrl-C: one that lands while a compiled kernel runs reaches Python as a
    SystemError ("returned a result with an exception set") caused by the KeyboardInterrupt."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
