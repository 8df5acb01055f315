"""Pages show user text (board ids, conditions) as the terminal does: a control or bidi character is an escape,
never raw (U+202E in a board id would reverse the page's title and heading after it)."""

from __future__ import annotations

from types import SimpleNamespace

from fastspe._text import html_text, printable
from fastspe.cli._common import plain
from fastspe.domains.sliding.viewer import plan_trace
from fastspe.report.page import examples_html
from fastspe.report.viewer_html import trace_page

RAW = ("\u202e", "\u2066", "\x1b", "\x07", "\x9b")


def test_pages_and_the_terminal_escape_alike():
    text = "a\u202eb\x1b[31m<c>"
    assert plain(text) == printable(text) == "a\\u202eb\\x1b[31m<c>"
    assert html_text(text) == "a\\u202eb\\x1b[31m&lt;c&gt;"


def test_a_board_id_with_a_bidi_override_is_escaped_in_the_viewer_page():
    board_id, condition = "gpt\u202eevil\x1b[2J", "cond\u2066ition"
    row = {
        "board_id": board_id,
        "condition": condition,
        "trial": 0,
        "moves": "L",
        "error_kind": "",
        "status": "legal_noncompletion",
        "first_error": -1,
        "L": 1,
    }
    trace = plan_trace({"rows": 2, "cols": 2, "blocks": [], "initial": [1, 2, 3, 0], "depth": 2}, row)
    page = trace_page(trace)
    assert not any(ch in page for ch in RAW)
    title = f"fastspe: {printable(board_id)} · {printable(condition)} · trial 0"
    assert f"<title>{title}</title>" in page and f"<h1>{title}</h1>" in page


def test_the_report_examples_escape_condition_names():
    example = SimpleNamespace(
        depth=6, condition="c\u202e1", href="examples/x.html", status="illegal\x07", kind="first failure"
    )
    page = "".join(examples_html([example], {"c\u202e1": "Model \u202eX"}))
    assert not any(ch in page for ch in RAW)
    assert "<td>Model \\u202eX</td>" in page and 'title="illegal\\x07"' in page
