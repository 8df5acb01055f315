"""Tables as files: CSV (full precision), Markdown and LaTeX (booktabs), rendered here with no
``tabulate`` or ``jinja2``.

A caption is written once as a template: plain text with LaTeX math between ``$...$`` (which
Markdown shows as Unicode: ``$R \\times Q$`` -> ``R × Q``) and user text (a cohort's name) as
``«name»`` placeholders filled from ``Table.values``, escaped for each target, so a name holding
``$`` or ``_`` never turns into math or markup. LaTeX captions carry no "Table N:" prefix (LaTeX
numbers tables itself); Markdown captions do. A table's ``heading`` (its title as the paper gives it)
is the caption's first sentence and its section's heading; a table with no rows is rendered as the
sentence that says why (``Table.empty``), never as a header-only table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..boundary.files import write_table, write_text

# Math in caption templates and headers, and how Markdown shows it.
_MATH_TEXT = {
    r"\times": "×",
    r"\in": "∈",
    r"\Delta ": "Δ",
    r"\Delta": "Δ",
    r"\min": "min",
    r"\geq": "≥",
    r"\leq": "≤",
    r"\bar{d}^*_c": "Dc",
    "d^*": "d*",
    r"\%": "%",
    r"\,": " ",
    "{": "",
    "}": "",
    "_": "",
}
_PLACEHOLDER = re.compile(r"«(\w+)»")
# Marks that change how Markdown renders text (emphasis, code, links, raw HTML, table cells); a
# backslash before each makes it literal. Line breaks would end a table row and control characters
# are invisible, so both become spaces.
_MARKDOWN_MARK = re.compile(r"([\\`*_\[\]<>|#!~$])")
# Bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069) would reverse the text after them in a rendered
# table, as on a terminal: spaces too.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
# Column names of the metric tables as LaTeX (math letters); others are escaped text.
_METRIC_TEX = {m: f"${m}$" for m in ("N", "C", "I", "R", "Q", "E", "G", "O", "H")}
_METRIC_TEX.update(
    {"SPE": "SPE", "Dc": r"$\bar{d}^*_c$", "condition": "Condition", "cohort": "Cohort", "depth": r"$d^*$"}
)


def markdown_text(text) -> str:
    """``text`` (a condition or cohort name, a caption) as literal Markdown, safe in a table cell."""
    return _MARKDOWN_MARK.sub(r"\\\1", _CONTROL.sub(" ", str(text)))


def latex_escape(text: str) -> str:
    """``text`` as literal LaTeX: specials escaped, line breaks and control characters as spaces."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in _CONTROL.sub(" ", str(text)))


def _math_as_text(math: str) -> str:
    for macro, text in _MATH_TEXT.items():
        math = math.replace(macro, text)
    return math


def _render(template: str, values: dict, math, text, user) -> str:
    """``template`` with ``$math$`` parts through ``math``, the rest through ``text``, ``«name»`` through ``user``."""
    out = []
    for i, part in enumerate(template.split("$")):
        if i % 2:
            out.append(math(part))
        else:
            pieces = _PLACEHOLDER.split(part)  # text, name, text, name, ...
            out += [user(values[p]) if j % 2 else text(p) for j, p in enumerate(pieces)]
    return "".join(out)


# How each target renders a template's math, its text and the user text in it.
_PLAIN = (_math_as_text, str, str)
_MARKDOWN = (lambda m: markdown_text(_math_as_text(m)), markdown_text, markdown_text)
_LATEX = (lambda m: f"${m}$", latex_escape, latex_escape)


def _numbered(table, text: str) -> str:
    return f"Table {table.number}: {text}" if table.number else text


def _target(markdown: bool):
    return _MARKDOWN if markdown else _PLAIN


def heading_text(table, markdown: bool = False) -> str:
    """The section heading, ``Table 1: Primary results ...`` (the caption itself for a table without a
    heading), as plain text or as literal Markdown."""
    return _numbered(table, _render(table.heading or table.caption, table.values, *_target(markdown)))


def body_text(table, markdown: bool = False) -> str:
    """What the caption says beyond the heading ("" for a table without a heading: its caption is its heading)."""
    return _render(table.caption, table.values, *_target(markdown)) if table.heading else ""


def empty_text(table, markdown: bool = False) -> str:
    """Why the table has no rows, or "" when it has some."""
    return "" if len(table.frame) else _render(table.empty or "No rows.", table.values, *_target(markdown))


def _empty_latex(table) -> str:
    return _render(table.empty or "No rows.", table.values, *_LATEX)


def _caption(table, target) -> str:
    """Heading and caption as one text, ``Heading. Caption``, unnumbered."""
    body = _render(table.caption, table.values, *target)
    return f"{_render(table.heading, table.values, *target)}. {body}" if table.heading else body


def caption_text(table) -> str:
    """The caption as plain text (``Table 1: Heading. ...`` when the table is numbered), user text as written."""
    return _numbered(table, _caption(table, _PLAIN))


def caption_markdown(table) -> str:
    return _numbered(table, _caption(table, _MARKDOWN))


def caption_latex(table) -> str:
    """The caption for ``\\caption{...}``: math kept, text escaped, no "Table N:" prefix."""
    return _caption(table, _LATEX)


def header_latex(name: str) -> str:
    """A column name as a LaTeX header: metric letters in math, ``X_pct`` as ``$X$ (\\%)``, ``H.9`` as ``$H_{.9}$``
    (a table's own ``tex_headers``, such as a domain's stratum in math, come first: ``to_latex``)."""
    name = str(name)
    if name in _METRIC_TEX:
        return _METRIC_TEX[name]
    pct = re.fullmatch(r"(\w+?)_pct(?:_d(\d+))?", name)
    if pct and pct.group(1) in _METRIC_TEX:
        depth = rf", $d^*={pct.group(2)}$" if pct.group(2) else ""
        return rf"{_METRIC_TEX[pct.group(1)]} (\%){depth}"
    if re.fullmatch(r"H\.\d+", name):
        return rf"$H_{{{name[1:]}}}$"
    return latex_escape(name.replace("_", " "))


def _numeric(frame: pd.DataFrame, col) -> bool:
    return pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col])


def _rows(text: pd.DataFrame) -> list[tuple]:
    """The rows of a frame of strings as tuples (``itertuples(index=False)`` without a pandas call per row)."""
    columns = [text.iloc[:, i].tolist() for i in range(text.shape[1])]
    return list(zip(*columns)) if columns else [()] * len(text)


def markdown_rows(table) -> str:
    """The GitHub-flavoured Markdown table (numbers right-aligned), every cell and header literal text
    (``markdown_text``); for a table with no rows, the sentence that says why, in italics."""
    if not len(table.frame):
        return f"*{empty_text(table, markdown=True)}*\n"
    text = table.formatted()
    shown = table.shown_columns()
    lines = [
        "| " + " | ".join(markdown_text(c) for c in shown) + " |",
        "|" + "|".join("---:" if _numeric(table.frame, c) else ":---" for c in shown) + "|",
    ]
    lines += ["| " + " | ".join(markdown_text(v) for v in row) + " |" for row in _rows(text)]
    return "\n".join(lines) + "\n"


def to_markdown(table) -> str:
    """The table (``markdown_rows``) under its caption: the heading in bold, then what the caption adds."""
    body, heading = body_text(table, markdown=True), heading_text(table, markdown=True)
    caption = f"**{heading}.** {body}" if body else f"**{heading}**"
    return f"{caption}\n\n{markdown_rows(table)}"


def to_latex(table) -> str:
    """A booktabs ``table`` (``\\usepackage{booktabs}``), math-mode symbols, ``\\label{tab:NAME}``."""
    head = [
        r"% needs \usepackage{booktabs}",
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\caption{{{caption_latex(table)}}}",
        rf"\label{{tab:{table.name}}}",
    ]
    if not len(table.frame):  # a sentence, not a header-only tabular
        return "\n".join([*head, rf"\emph{{{_empty_latex(table)}}}", r"\end{table}", ""])
    text = table.formatted()
    shown = table.shown_columns()
    align = "".join("r" if _numeric(table.frame, c) else "l" for c in shown)
    body = [" & ".join(table.tex_headers.get(c) or header_latex(c) for c in shown) + r" \\", r"\midrule"]
    body += [" & ".join(latex_escape(v) for v in row) + r" \\" for row in _rows(text)]
    return "\n".join(
        [
            *head,
            rf"\begin{{tabular}}{{{align}}}",
            r"\toprule",
            *body,
            r"\bottomrule",
            r"\end{tabular}",
            r"\end{table}",
            "",
        ]
    )


def write_table_files(table, folder: str | Path) -> list[Path]:
    """Write ``<name>.csv``, ``<name>.md`` and ``<name>.tex`` in ``folder`` (atomically)."""
    folder = Path(folder)
    paths = [folder / f"{table.name}.{ext}" for ext in ("csv", "md", "tex")]
    write_table(table.frame, paths[0], formulas_escaped=True)  # opened in spreadsheets
    write_text(to_markdown(table), paths[1])
    write_text(to_latex(table), paths[2])
    return paths
