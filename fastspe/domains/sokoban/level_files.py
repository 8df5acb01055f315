"""Given Sokoban levels for ``fastspe bank build --domain sokoban --levels FILE``: a JSONL file or an XSB collection.

``.jsonl``: one JSON object a line, ``{"id", "level"}`` as ``fastspe solve --input`` reads them (``id`` a string
or an integer, ``level`` the XSB text; other keys are ignored). A UTF-8 byte-order mark at the start of either
kind of file is skipped. Any other file is an XSB collection
(``domains.sokoban.collection``): levels separated by blank lines, ``;`` comments or ``Title:`` fields; their ids
are their titles when every level has one and no two are the same, else none (the bank numbers them). A line that
is not what it should be is an ``InputError`` naming the file and the line; nothing is solved before the whole
file is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .collection import split_collection
from ...errors import UserError
from ...boundary.board_lines import numbered_lines, read_json_object
from ...boundary.errors import InputError
from ...boundary.text_files import read_text

__all__ = ["GivenLevel", "read_given_levels"]


@dataclass(frozen=True)
class GivenLevel:
    """A level read from a file: ``where`` it is ("FILE: line N"), its ``id`` (None: none given), its XSB ``text``."""

    where: str
    id: str | None
    text: str


def read_given_levels(path) -> list[GivenLevel]:
    """The levels of ``path`` in file order (see the module docstring); an ``InputError`` when there are none."""
    levels = _json_levels(path) if Path(path).suffix.lower() == ".jsonl" else _collection_levels(path)
    if not levels:
        raise InputError(
            f'{path}: no levels in the file (a .jsonl file of {{"id", "level"}} lines, or XSB '
            "levels separated by blank lines)"
        )
    return levels


def _json_levels(path) -> list[GivenLevel]:
    levels = []
    for number, raw in numbered_lines(path):
        where = f"{path}: line {number}"
        try:
            record = read_json_object(raw, "id and level")
        except UserError as exc:
            raise InputError(f"{where}: {exc}") from None
        bid, text = record.get("id"), record.get("level")
        if isinstance(bid, bool) or not isinstance(bid, (str, int)) or str(bid) == "":
            raise InputError(f"{where}: id must be a non-empty string or an integer, got {bid!r}")
        if not isinstance(text, str):
            raise InputError(f"{where}: id {bid!r}: level must be the XSB text of the level (a string)")
        levels.append(GivenLevel(where, str(bid), text))
    return levels


def _collection_levels(path) -> list[GivenLevel]:
    found = split_collection(read_text(path, InputError))
    titles = [lv.title for lv in found]
    named = None not in titles and len(set(titles)) == len(titles)
    return [GivenLevel(f"{path}: line {lv.line}", lv.title if named else None, lv.text) for lv in found]
