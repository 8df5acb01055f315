"""Several XSB levels in one text: the common collection format of published Sokoban sets.

A level is a run of consecutive lines drawn in XSB characters (``#`` ``@`` ``+`` ``$`` ``*`` ``.`` space ``-``
``_``), each holding at least one wall; levels are separated by any other line: a blank line, a ``;`` comment or a
``Title:`` / ``Author:`` style field. The title of a level is the last ``; NAME`` comment or ``Title: NAME`` field
between the level before it and itself (None when there is none). Pure text: no file I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CollectedLevel", "split_collection"]

_DRAWN = set("#@+$*. -_")


@dataclass(frozen=True)
class CollectedLevel:
    """One level of a collection: its XSB ``text``, the 1-based ``line`` where it starts, its ``title`` or None."""

    text: str
    line: int
    title: str | None


def _is_drawn(line: str) -> bool:
    return "#" in line and set(line) <= _DRAWN


def _title(line: str) -> str | None:
    text = line.strip()
    if text.startswith(";"):
        return text[1:].strip() or None
    key, sep, value = text.partition(":")
    if sep and key.strip().lower() == "title":
        return value.strip() or None
    return None


def split_collection(text: str) -> list[CollectedLevel]:
    """The levels of ``text`` in order (see the module docstring)."""
    levels: list[CollectedLevel] = []
    rows: list[str] = []
    title, start = None, 0
    for number, line in enumerate(text.splitlines() + [""], start=1):
        line = line.rstrip()
        if _is_drawn(line):
            if not rows:
                start = number
            rows.append(line)
            continue
        if rows:
            levels.append(CollectedLevel("\n".join(rows), start, title))
            rows, title = [], None
        title = _title(line) or title
    return levels
