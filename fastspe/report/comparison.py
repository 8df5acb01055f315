"""``compare.md``: a comparison's verdicts as Markdown, for a terminal or a CI job page."""

from __future__ import annotations

import math

from ..stats.compare import FAMILY, IMPROVEMENT, NO_CHANGE, REGRESSION, Comparison, smallest_p
from .._text import NA, count, maybe
from .render import markdown_text


def summary_markdown(result: Comparison, labels: dict | None = None) -> str:
    """A Markdown summary for a terminal or a CI job page: one table of pooled verdicts per cohort."""
    name = lambda c: markdown_text((labels or {}).get(c, c))
    pooled = result.table[(result.table["depth"] == "all") & (result.table[result.stratum] == "all")]
    regress = result.regressions()
    head = "REGRESSION" if len(regress) else "no regression"
    lines = [
        f"## fastspe compare: {head} on the {markdown_text(result.primary)} cohort",
        "",
        f"Baseline {name(result.baseline)}; paired stratified whole-board bootstrap, {result.draws:,} draws, "
        f"seed {result.seed}; margin {result.margin:g}. A regression needs the whole 95% interval below 0 and "
        f"the estimate below -{result.margin:g}.",
        "",
        _holm_note(result),
        "",
    ]
    for cand in dict.fromkeys(pooled["candidate"]):
        lines.append(
            f"### {name(cand)} vs {name(result.baseline)} ({count(result.boards[cand], 'board')} answered by both)"
        )
        lines += ["", "| cohort | metric | difference | 95% interval | verdict |", "|:---|:---|---:|---:|:---|"]
        for row in pooled[pooled["candidate"] == cand].itertuples(index=False):
            mark = {REGRESSION: "**regression**", IMPROVEMENT: "improvement"}.get(row.verdict, row.verdict)
            interval = (
                NA
                if all(maybe(v) == NA for v in (row.lo, row.hi))
                else f"[{maybe(row.lo, '+.3f')}, {maybe(row.hi, '+.3f')}]"
            )
            lines.append(
                f"| {markdown_text(row.cohort)} | {row.metric} | {maybe(row.estimate, '+.3f')} | {interval} | {mark} |"
            )
        for s in (s for s in result.signs if s.candidate == cand):
            lines.append(
                f"\nCompletions per board ({markdown_text(s.cohort)}): candidate ahead on {s.wins}, behind on "
                f"{s.losses}, tied on {s.ties} of {s.boards}; sign test p = {maybe(s.p_value, '.3g')}."
            )
        lines.append("")
    return "\n".join(lines)


def _holm_note(result: Comparison) -> str:
    """What the rows by depth and by k mean in ``compare.csv``, which of them are flagged, and whether
    the draws are enough for any of them to be."""
    t = result.table
    rows = t[(t["depth"] != "all") | (t[result.stratum] != "all")]
    alpha = 1.0 - result.level
    by = f"by depth and by {result.stratum}"
    text = (
        f"Rows {by} (compare.csv) are many tests at once: each has a two-sided paired bootstrap "
        f"p-value, Holm-adjusted over all rows {by} of its candidate and cohort (`p_adjusted`), "
        f"and keeps its verdict only when that is below {alpha:g}, so the chance of any false flag among them "
        f"is at most {alpha:g}. Pooled rows (the gate above) are not adjusted."
    )
    if rows.empty:
        return text
    family = int(rows.groupby(list(FAMILY)).size().max())
    if smallest_p(result.draws) >= alpha / family:
        need = math.ceil(2 * family / alpha)
        return text + (
            f" With {result.draws:,} draws no such row can pass (the smallest p-value is "
            f"{smallest_p(result.draws):.2g}, Holm needs below {alpha / family:.2g} for {count(family, 'row')}): "
            f"use --draws {need:,} or more."
        )
    flagged = rows[rows["verdict"] != NO_CHANGE]
    if flagged.empty:
        return text + " None is flagged."
    shown = [
        f"{markdown_text(r.candidate)} {markdown_text(r.cohort)} "
        f"{'depth ' + str(r.depth) if r.depth != 'all' else result.stratum + ' ' + str(getattr(r, result.stratum))} "
        f"{r.metric} {maybe(r.estimate, '+.3f')} "
        f"({r.verdict}, p_adjusted {maybe(r.p_adjusted, '.2g')})"
        for r in flagged.itertuples(index=False)
    ]
    return text + " Flagged: " + "; ".join(shown) + "."
