"""Tables as files: CSV (full precision), Markdown and LaTeX (booktabs), rendered here with no
``tabulate`` or ``jinja2``.

A caption is written once as a template: plain text with LaTeX math between ``$...$`` (which
Markdown shows as Unicode: ``$R \\times Q$`` -> ``R × Q``) and user text (a cohort's name) as
``«name»`` placeholders filled from ``Table.values``, escaped for each target, so a name holding
``$`` or ``_`` never turns into math or markup. LaTeX captions carry no "Table N:" prefix (LaTeX
numbers tables itself); Markdown captions do.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..boundary.files import write_table, write_text

# Math in caption templates and headers, and how Markdown shows it.
_MATH_TEXT = {r"\times": "×", r"\min": "min", r"\geq": "≥", r"\leq": "≤", r"\bar{d}^*_c": "Dc", "d^*": "d*",
              r"\%": "%", r"\,": " ", "{": "", "}": "", "_": ""}
_PLACEHOLDER = re.compile(r"«(\w+)»")
# Marks that change how Markdown renders text (emphasis, code, links, raw HTML, table cells); a
# backslash before each makes it literal. Line breaks would end a table row and control characters
# are invisible, so both become spaces.
_MARKDOWN_MARK = re.compile(r"([\\`*_\[\]<>|#!~$])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
# Column names of the metric tables as LaTeX (math letters); others are escaped text.
_METRIC_TEX = {m: f"${m}$" for m in ("N", "C", "I", "R", "Q", "E", "G", "O", "H")}
_METRIC_TEX.update({"SPE": "SPE", "Dc": r"$\bar{d}^*_c$", "condition": "Condition", "cohort": "Cohort",
                    "depth": r"$d^*$", "k": "$k$"})


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


def caption_text(table) -> str:
    """The caption as plain text (``Table 1: ...`` when the table is numbered), user text as written."""
    body = _render(table.caption, table.values, _math_as_text, str, str)
    return f"Table {table.number}: {body}" if table.number else body


def caption_markdown(table) -> str:
    body = _render(table.caption, table.values, lambda m: markdown_text(_math_as_text(m)), markdown_text,
                   markdown_text)
    return f"Table {table.number}: {body}" if table.number else body


def caption_latex(table) -> str:
    """The caption for ``\\caption{...}``: math kept, text escaped, no "Table N:" prefix."""
    return _render(table.caption, table.values, lambda m: f"${m}$", latex_escape, latex_escape)


def header_latex(name: str) -> str:
    """A column name as a LaTeX header: metric letters in math, ``X_pct`` as ``$X$ (\\%)``, ``k=2`` as ``$k=2$``."""
    name = str(name)
    if name in _METRIC_TEX:
        return _METRIC_TEX[name]
    pct = re.fullmatch(r"(\w+?)_pct(?:_d(\d+))?", name)
    if pct and pct.group(1) in _METRIC_TEX:
        depth = rf", $d^*={pct.group(2)}$" if pct.group(2) else ""
        return rf"{_METRIC_TEX[pct.group(1)]} (\%){depth}"
    if re.fullmatch(r"k=\d+", name):
        return f"${name}$"
    if re.fullmatch(r"H\.\d+", name):
        return rf"$H_{{{name[1:]}}}$"
    return latex_escape(name.replace("_", " "))


def _numeric(frame: pd.DataFrame, col) -> bool:
    return pd.api.types.is_numeric_dtype(frame[col]) and not pd.api.types.is_bool_dtype(frame[col])


def to_markdown(table) -> str:
    """A GitHub-flavoured Markdown table (numbers right-aligned) with the caption above; every cell and
    header is literal text (``markdown_text``)."""
    text = table.formatted()
    shown = table.shown_columns()
    lines = ["| " + " | ".join(markdown_text(c) for c in shown) + " |",
             "|" + "|".join("---:" if _numeric(table.frame, c) else ":---" for c in shown) + "|"]
    lines += ["| " + " | ".join(markdown_text(v) for v in row) + " |" for row in text.itertuples(index=False)]
    return f"**{caption_markdown(table)}**\n\n" + "\n".join(lines) + "\n"


def to_latex(table) -> str:
    """A booktabs ``table`` (``\\usepackage{booktabs}``), math-mode symbols, ``\\label{tab:NAME}``."""
    text = table.formatted()
    shown = table.shown_columns()
    align = "".join("r" if _numeric(table.frame, c) else "l" for c in shown)
    body = [" & ".join(header_latex(c) for c in shown) + r" \\", r"\midrule"]
    body += [" & ".join(latex_escape(v) for v in row) + r" \\" for row in text.itertuples(index=False)]
    return "\n".join([r"% needs \usepackage{booktabs}", r"\begin{table}[t]", r"\centering", r"\small",
                      rf"\caption{{{caption_latex(table)}}}", rf"\label{{tab:{table.name}}}",
                      rf"\begin{{tabular}}{{{align}}}", r"\toprule", *body, r"\bottomrule", r"\end{tabular}",
                      r"\end{table}", ""])


def write_table_files(table, folder: str | Path) -> list[Path]:
    """Write ``<name>.csv``, ``<name>.md`` and ``<name>.tex`` in ``folder`` (atomically)."""
    folder = Path(folder)
    paths = [folder / f"{table.name}.{ext}" for ext in ("csv", "md", "tex")]
    write_table(table.frame, paths[0], formulas_escaped=True)  # opened in spreadsheets
    write_text(to_markdown(table), paths[1])
    write_text(to_latex(table), paths[2])
    return paths
