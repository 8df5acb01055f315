"""fastspe's user-facing errors, and bad-input errors that name the file, the row or line, and the board.

The command line prints a ``FastspeError`` as one ``error:`` line; any other exception is a bug and
keeps its traceback. Each class also derives from the built-in that callers caught before
(``ValueError``, ``TypeError``, ``RuntimeError``), so their ``except`` clauses keep working.
"""

from __future__ import annotations


class FastspeError(Exception):
    """An error whose message tells the user what to fix (an option, a file, a setting); not a bug."""


class UserError(FastspeError, ValueError):
    """A bad value given to fastspe: an option, an argument, a setting, a design."""


class UserTypeError(UserError, TypeError):
    """A value of the wrong type given to fastspe (also a ``TypeError``, as it was raised before)."""


class InputError(UserError):
    """A file (or DataFrame) that fastspe cannot use; the message says where and what is wrong."""


def where(source, unit: str | None = None, pos: int | None = None, board_id=None) -> str:
    """``"FILE: row N (board_id X)"``, leaving out the parts that are not known."""
    text = str(source)
    if unit is not None and pos is not None:
        text += f": {unit} {pos}"
    if board_id is not None:
        text += f" (board_id {str(board_id)!r})"
    return text


def input_error(source, what: str, unit: str | None = None, pos: int | None = None, board_id=None) -> InputError:
    """An ``InputError`` reading ``FILE: row N (board_id X): what``."""
    return InputError(f"{where(source, unit, pos, board_id)}: {what}")
