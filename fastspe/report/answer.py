"""The model's answer as it came (before parsing), for the terminal and for a page: what a researcher reads to see
why an answer had no move list.

Both views escape control characters, bidi overrides and isolates first (``fastspe._text.printable``), so an answer
cannot recolour a terminal or reverse a page's text; the page then escapes HTML. The terminal view wraps long lines
and cuts a long answer with a note; the page keeps the whole text.
"""

from __future__ import annotations

import html
import textwrap

from .._text import count, html_text, printable

__all__ = ["WIDTH", "MOST_SHOWN", "answer_lines", "answer_html"]

WIDTH = 100  # columns of a wrapped line
MOST_SHOWN = 4000  # characters of the answer the terminal shows before it cuts


def answer_lines(text: str, width: int = WIDTH, most: int = MOST_SHOWN) -> list[str]:
    """A heading, the answer's text escaped, each line wrapped at ``width`` and indented, and a note when it is cut
    after ``most`` characters (or is empty)."""
    head = f"answer as received ({count(len(text), 'character')}):"
    if not text:
        return [head, "  (empty)"]
    shown = printable(text[:most])
    lines = []
    for line in shown.split("\n"):
        lines += textwrap.wrap(
            line, width, replace_whitespace=False, drop_whitespace=False, break_on_hyphens=False
        ) or [""]
    out = [head] + ["  " + line for line in lines]
    if len(text) > most:
        out.append(f"  ... cut here: {count(len(text) - most, 'more character')} (the HTML page, --html, shows all)")
    return out


def answer_html(text: str) -> str:
    """The answer as a section of a page: escaped, whitespace kept, wrapped by the browser."""
    body = html_text(text) if text else "<i>(empty)</i>"
    return (
        f"<h2>Answer as received ({html.escape(count(len(text), 'character'))})</h2>"
        f'<pre id="answer" class="answer">{body}</pre>'
    )
