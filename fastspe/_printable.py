"""User-controlled text (file names, board ids, conditions) made safe to show, in a terminal or on a page.

Control characters (C0 but tab and, if kept, newline; DEL; C1), Unicode bidi overrides and isolates, and lone
surrogates (the bytes of a file name that is not UTF-8) become Python escapes (``\\x1b``, ``\\u202e``, ``\\udcff``):
an id holding ESC cannot recolour a terminal, and one holding U+202E cannot reverse the text after it ("Trojan
source"), on screen or in a browser. The CLI prints through ``printable``; pages put text through ``html_text``.
"""

from __future__ import annotations

import html

__all__ = ["printable", "html_text"]

# Unicode bidi overrides and isolates reorder what follows them on screen.
_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
_SURROGATES = range(0xD800, 0xE000)


def _is_control(code: int, keep_newlines: bool) -> bool:
    if code == 0x09 or (code == 0x0A and keep_newlines):
        return False
    return code < 0x20 or 0x7F <= code <= 0x9F or code in _BIDI or code in _SURROGATES


def printable(text, keep_newlines: bool = True) -> str:
    """``str(text)`` with the characters above as Python escapes; everything else unchanged (not markup-escaping)."""
    text = str(text)
    if not any(_is_control(ord(c), keep_newlines) for c in text):
        return text
    return "".join((f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
                   if _is_control(ord(c), keep_newlines) else c for c in text)


def html_text(text) -> str:
    """``text`` as HTML text or attribute value: escaped as ``printable`` shows it, then ``html.escape``d."""
    return html.escape(printable(text))
