"""Bad-input errors that name the file, the row or line, and the board (the bases: ``fastspe.errors``)."""

from __future__ import annotations

from ..errors import UserError


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
