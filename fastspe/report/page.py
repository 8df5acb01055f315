"""The report's pages: ``report.md`` and ``report.html`` around the tables and figures.

User text (condition labels, cohort names) reaches both pages only through ``markdown_text`` and
``html.escape``; the method text is fastspe's own.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Sequence

import pandas as pd

from .. import __version__
from .._text import count, coverage_text, html_text, printable  # (cells: ids and conditions are user text)
from ..stats.intervals import DEFAULT_STRATA
from .render import body_text, empty_text, heading_text, markdown_rows, markdown_text
from .tables import Table

LEVEL = 0.95


def _strata_summary(scored: pd.DataFrame, domain) -> str:
    sizes = scored.groupby(domain.named(DEFAULT_STRATA), sort=True).size()
    lo, hi = int(sizes.min()), int(sizes.max())
    each = f"{count(lo, domain.unit)} each" if lo == hi else f"{lo} to {count(hi, domain.unit)} each"
    return f"{count(len(sizes), 'stratum')} (cohort x {domain.stratum} x depth), {each}"


def method_text(bank: pd.DataFrame, domain, verdicts: pd.DataFrame, draws: int, seed: int) -> str:
    n_cond = verdicts["condition"].nunique()
    frame = bank
    scored = frame[frame["board_id"].isin(verdicts["board_id"].unique())]  # unique first: isin walks its argument
    covered, total = verdicts["board_id"].nunique(), frame["board_id"].nunique()
    covers = coverage_text(covered, total, domain.unit)
    return (
        (f"**Part of the bank.** This report {covers}.\n\n" if covers else "")
        + f"{count(len(verdicts), 'scored output')} from {count(n_cond, 'condition')} on {covered:,} of the "
        f"bank's {count(total, domain.unit)} (fastspe {__version__}).\n\n"
        f"**Intervals.** {int(LEVEL * 100)}% percentile intervals from {draws:,} stratified whole-board bootstrap "
        f"draws, seed {seed}. Strata: {_strata_summary(scored, domain)}. Each draw "
        "picks as many boards as a stratum holds, with replacement, within every stratum; all trials of a board go "
        "together, and every condition gets the same boards in a draw, so differences between conditions are "
        "paired. A draw in which a metric is undefined (Q with no legal plan; E and G with no completion) is left "
        "out for that metric only; `draws_used` says how many draws an interval rests on. Randomness is "
        "counter-based per draw, so the intervals do not depend on the number of threads.\n\n"
        "**Metrics** (paper, Section 2.2). C = completions / N; I = illegal plans / N; R = 1 - I; Q = C / R "
        "(undefined without a legal plan); E = mean d*/L over completions and G = mean excess moves L - d* over "
        "completions (undefined without a completion); O = optimal completions / N; SPE = (1/N) sum of d*/L over "
        "completions = R x Q x E when C > 0, and 0 when C = 0; Dc = mean certified depth d* of completed plans "
        "(Section 3.3: success-only summaries favour shorter boards). Undefined values print as n/a."
        + _cost_text(verdicts)
        + "\n"
    )


def _cost_text(verdicts: pd.DataFrame) -> str:
    """What L stands for in E, G and SPE when the bank's d* does not count moves (the verdicts' ``cost_unit``)."""
    if "cost_unit" not in verdicts.columns or verdicts.empty:
        return ""
    unit = str(verdicts["cost_unit"].iloc[0])
    return (
        f" On this bank d* counts {unit}: in E, G, O and SPE a plan's L is its {unit} (the verdicts' `cost`), "
        f"not its moves."
    )


def _files(table: Table) -> str:
    csv = " (a header and no rows)" if table.frame.empty else ""
    return f"Files: `tables/{table.name}.csv`{csv}, `.md`, `.tex`."


def md_section(table: Table) -> str:
    """A table's section: its title as heading, what its caption adds, the table (or why it has no rows), its files."""
    body = body_text(table, markdown=True)
    return (
        f"### {heading_text(table, markdown=True)}\n\n"
        + (f"{body}\n\n" if body else "")
        + f"{markdown_rows(table)}\n{_files(table)}\n"
    )


def html_table(table: Table) -> str:
    body = body_text(table)
    rows = (
        f"<p><i>{html.escape(empty_text(table))}</i></p>"
        if table.frame.empty
        else table.formatted().map(printable).to_html(index=False, escape=True, border=0, classes="t")
    )
    return (
        f'<h3 id="{html.escape(table.name)}">{html.escape(heading_text(table))}</h3>\n'
        + (f"<p>{html.escape(body)}</p>\n" if body else "")
        + f"{rows}\n"
    )


_CSS = (
    "body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;line-height:1.4}"
    "table.t{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.85em}"
    "table.t th,table.t td{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}"
    "table.t td:first-child,table.t th:first-child{text-align:left}img{max-width:100%}"
)


def _markdown_inline(text: str) -> str:
    """The few Markdown marks the method text uses (**bold**, `code`) as escaped HTML."""
    out, bold, code = [], False, False
    i = 0
    while i < len(text):
        if text.startswith("**", i) and not code:
            out.append("</b>" if bold else "<b>")
            bold, i = not bold, i + 2
        elif text[i] == "`":
            out.append("</code>" if code else "<code>")
            code, i = not code, i + 1
        else:
            out.append(html.escape(text[i]))
            i += 1
    return "".join(out)


def examples_html(examples: Sequence, names: dict) -> list[str]:
    """The examples section: one row per condition, one column per depth, links to its replay pages."""
    if not examples:
        return []
    depths = sorted({e.depth for e in examples})
    cells: dict = {}
    for e in examples:
        cells.setdefault(e.condition, {}).setdefault(e.depth, []).append(
            f'<a href="{html.escape(e.href)}" title="{html_text(e.status)}">{html_text(e.kind)}</a>'
        )
    head = "".join(f"<th>d* = {d}</th>" for d in depths)
    rows = "".join(
        f"<tr><td>{html_text(names.get(c, c))}</td>"
        + "".join(f"<td>{'<br>'.join(links.get(d, [])) or '&ndash;'}</td>" for d in depths)
        + "</tr>"
        for c, links in cells.items()
    )
    return [
        "<h2>Examples</h2>",
        "<p>One answer played out move by move per condition and certified depth: the first "
        "answer that does not complete and the complete answer with the fewest excess moves (first by board and "
        "trial). Each page replays the plan with a step slider.</p>",
        f'<table class="t"><tr><th>condition</th>{head}</tr>{rows}</table>',
    ]


def pages(
    out: Path,
    method: str,
    tables: Sequence[Table],
    figures: Sequence[tuple[str, str, list[Path]]],
    examples: Sequence = (),
    names: dict | None = None,
    stratum: str = "stratum",
) -> tuple[str, str]:
    """``report.md`` and ``report.html`` texts; ``figures`` are (title, caption, paths), the title "Figure N: ...",
    an SVG among the paths; ``examples`` (``examples.Example``) are linked from the page, under the conditions'
    shown ``names``; ``stratum`` is the second stratum's column in ``metrics.csv`` (``k``, ``boxes``)."""
    md = ["# fastspe report\n", method]
    if figures:
        md.append("## Figures\n")
    for title, caption, paths in figures:
        text = markdown_text(caption)
        md.append(f"### {markdown_text(title)}\n\n![{markdown_text(title)}]({_figure_src(out, paths)})\n\n{text}\n")
    md.append("## Tables\n")
    md += [md_section(t) for t in tables]
    drawn = (
        "and `figures/` hold the tables (CSV, Markdown, LaTeX) and figures (PDF, PNG, SVG)"
        if figures
        else "holds the tables (CSV, Markdown, LaTeX); figures were not drawn"
    )
    md.append(
        "## Files\n\n`metrics.csv` holds every estimate with its interval in long form (`all` in depth or "
        f"{stratum} marks pooled rows); `tables/` {drawn}.\n"
    )
    page = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>fastspe report</title>',
        f"<style>{_CSS}</style></head><body>",
        "<h1>fastspe report</h1>",
    ]
    page += [f"<p>{_markdown_inline(p)}</p>" for p in method.strip().split("\n\n")]
    if figures:
        page.append("<h2>Figures</h2>")
    for title, caption, paths in figures:
        page.append(
            f'<h3>{html.escape(title)}</h3>\n<figure><img src="{html.escape(_figure_src(out, paths))}" '
            f'alt="{html.escape(title)}"><figcaption>{html.escape(caption)}</figcaption></figure>'
        )
    page.append("<h2>Tables</h2>")
    page += [html_table(t) for t in tables]
    page += examples_html(examples, names or {})
    page.append("</body></html>\n")
    return "\n".join(md), "\n".join(page)


def _figure_src(out: Path, paths: Sequence[Path]) -> str:
    svg = next((p for p in paths if p.suffix == ".svg"), paths[0])
    return svg.relative_to(out).as_posix()
