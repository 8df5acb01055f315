"""Words shared by every layer that prints or writes text for a person: printable user text, counts with their
plural, a number that may be undefined, and how much of a bank a run covers.

Below the terminal and the pages alike, so the CLI and the report say the same thing the same way.
"""

from __future__ import annotations

import html
import math

__all__ = ["NA", "printable", "html_text", "plural", "count", "maybe", "coverage_text"]

# Unicode bidi overrides and isolates reorder what follows them on screen ("Trojan source").
_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
# Lone surrogates: the bytes of a file name that is not UTF-8 (Python's surrogateescape); no console can print them.
_SURROGATES = range(0xD800, 0xE000)
# plurals that are not the word and an s
_PLURALS = {"stratum": "strata", "this": "these", "is": "are", "has": "have", "was": "were", "does": "do"}
NA = "n/a"


def _is_control(code: int, keep_newlines: bool) -> bool:
    if code == 0x09 or (code == 0x0A and keep_newlines):
        return False
    return code < 0x20 or 0x7F <= code <= 0x9F or code in _BIDI or code in _SURROGATES


def printable(text, keep_newlines: bool = True) -> str:
    """``text`` with control characters (C0, ESC included, but tab and, if ``keep_newlines``, newline; DEL; C1),
    bidi overrides and isolates and lone surrogates as Python escapes (``\\x1b``, ``\\u202e``, ``\\udcff``);
    everything else unchanged. Not markup escaping: a page still needs ``html.escape`` after it."""
    text = str(text)
    if not any(_is_control(ord(c), keep_newlines) for c in text):
        return text
    return "".join(
        (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}") if _is_control(ord(c), keep_newlines) else c
        for c in text
    )


def html_text(text) -> str:
    """``text`` as HTML text or attribute value: escaped as ``printable`` shows it, then ``html.escape``d (an id
    holding U+202E cannot reverse the page's text after it)."""
    return html.escape(printable(text))


def plural(n: int, word: str, many: str | None = None) -> str:
    """``word`` as it goes with ``n`` ("board" / "boards", "stratum" / "strata"); ``many`` names an irregular
    plural the table does not know."""
    if n == 1:
        return word
    return (
        many
        or _PLURALS.get(word)
        or (word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s")
    )


def count(n: int, word: str, many: str | None = None) -> str:
    """``n`` and its word: "1 board", "1,200 boards", "3 strata"."""
    return f"{n:,} {plural(n, word, many)}"


def maybe(value, spec: str = ".3f") -> str:
    """``value`` formatted with ``spec``, or ``n/a`` when it is undefined (None or NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NA
    try:
        if math.isnan(float(value)):
            return NA
    except (TypeError, ValueError):
        pass
    return format(value, spec)


def coverage_text(covered: int, total: int, unit: str = "board") -> str:
    """What part of a bank a run's answers cover, "" when they cover all of it:
    "covers 120 of 1,200 boards (10%), not the whole bank: its numbers describe these boards only"."""
    if total <= 0 or covered >= total:
        return ""
    share = 100 * covered / total
    shown = f"{share:.0f}" if share >= 1 else f"{share:.1g}"
    return (
        f"covers {covered:,} of {count(total, unit)} ({shown}%), not the whole bank: its numbers describe "
        f"{plural(covered, 'this')} {plural(covered, unit)} only"
    )
