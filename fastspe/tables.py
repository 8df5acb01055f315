"""The paper's tables (Tables 1-6, by depth, H.9, format audit) as DataFrames, and their export.

Every table is a ``Table``: a numeric DataFrame plus a caption and per-column number formats.
``write_table_files`` writes it as CSV (full precision), Markdown and LaTeX (formatted). Markdown
and LaTeX are rendered here, so neither ``tabulate`` nor ``jinja2`` is needed.
Point values come from ``metrics.compute_metrics``; Table 6 from ``intervals`` (long form).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .boundary.errors import InputError
from .boundary.verdicts import PARSE_MODES
from .io import require_columns, write_table, write_text
from .kernels.replay import ERROR_NAMES
from .metrics import board_sums, compute_metrics

PRIMARY = "primary"
H_THRESHOLD = 0.9
ERROR_KINDS = tuple(k for k in ERROR_NAMES if k)  # boundary, obstacle, invalid_action, format
MISSING = "n/a"  # how an undefined value prints
_NEEDED = ["board_id", "condition", "cohort", "k", "depth", "status", "error_kind", "parse_mode", "optimal",
           "economy", "excess"]


@dataclass(frozen=True)
class Table:
    """A named table: ``frame`` holds numbers (NaN where undefined), ``formats`` maps a column to a
    format spec such as ``".3f"`` for Markdown and LaTeX."""

    name: str
    caption: str
    frame: pd.DataFrame
    formats: dict[str, str] = field(default_factory=dict)

    def formatted(self) -> pd.DataFrame:
        """The frame as strings, numbers formatted, undefined values as ``MISSING``."""
        out = pd.DataFrame(index=self.frame.index)
        for col in self.frame.columns:
            spec = self.formats.get(col)
            out[col] = [_cell(v, spec) for v in self.frame[col]]
        return out


def _cell(value, spec: str | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return MISSING
    if spec and isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return format(value, spec)
    return str(value)


def check_verdicts(verdicts: pd.DataFrame) -> None:
    """Raise if ``verdicts`` lack what the tables read or hold an error kind or parse mode that no table
    counts (the metric columns are checked by ``metrics.board_sums``)."""
    require_columns(verdicts, _NEEDED, "verdicts", "make them with `fastspe score`")
    if verdicts.empty:
        raise ValueError("verdicts are empty: there is nothing to report")
    for col, known in (("error_kind", ("", *ERROR_KINDS)), ("parse_mode", PARSE_MODES)):
        values = verdicts[col].fillna("") if col == "error_kind" else verdicts[col]
        bad = ~values.isin(known).to_numpy()
        if bad.any():
            i = int(bad.argmax())
            raise InputError(f"verdicts: row {i + 1} (board_id {str(verdicts['board_id'].iat[i])!r}): {col} "
                             f"{values.iat[i]!r} is not one of {', '.join(map(repr, known))}")


def primary_cohort(verdicts: pd.DataFrame) -> str:
    """``"primary"`` if present, else the first cohort in sorted order."""
    cohorts = sorted(map(str, verdicts["cohort"].unique()))
    return PRIMARY if PRIMARY in cohorts else cohorts[0]


def condition_order(verdicts: pd.DataFrame, cohort: str | None = None) -> list[str]:
    """Conditions by pooled SPE on ``cohort`` (default primary), best first; ties and conditions
    without outputs there by name."""
    cohort = cohort or primary_cohort(verdicts)
    m = compute_metrics(verdicts[verdicts["cohort"] == cohort], by=["condition"])
    spe = dict(zip(m["condition"], m["SPE"]))
    names = sorted(map(str, verdicts["condition"].unique()))

    def key(name):
        value = spe.get(name, np.nan)
        return (1, 0.0, name) if pd.isna(value) else (0, -float(value), name)

    return sorted(names, key=key)


def _by_condition(frame: pd.DataFrame, conditions: Sequence[str]) -> pd.DataFrame:
    keep = [c for c in conditions if c in set(frame["condition"])]
    return frame.set_index("condition").loc[keep].reset_index()


def table1_primary(verdicts: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY) -> Table:
    """Table 1: pooled R, Q, E, G, SPE per condition on ``cohort``."""
    m = compute_metrics(verdicts[verdicts["cohort"] == cohort], by=["condition"])
    frame = _by_condition(m, conditions)[["condition", "N", "R", "Q", "E", "G", "SPE"]]
    return Table("table1_primary", f"Table 1: {cohort} cohort pooled over depths. R over all outputs, Q over legal "
                 "plans, E and G over completed plans; SPE = R x Q x E includes every failure.", frame,
                 {"R": ".3f", "Q": ".3f", "E": ".3f", "G": ".2f", "SPE": ".3f"})


def table2_outcomes(verdicts: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY) -> Table:
    """Table 2: mutually exclusive outcome counts (complete optimal / not, legal noncompletion,
    illegal by error kind) summing to the outputs of each condition."""
    v = verdicts[verdicts["cohort"] == cohort]
    status, kind = v["status"].astype(str), v["error_kind"].fillna("").astype(str)
    complete = status == "complete"
    optimal = complete & v["optimal"].astype(bool)
    parts = {
        "complete_optimal": optimal,
        "complete_not_optimal": complete & ~optimal,
        "legal_noncompletion": status == "legal_noncompletion",
    }
    illegal = status == "illegal"
    for k in ERROR_KINDS:
        parts[f"illegal_{k}"] = illegal & (kind == k)
    other = illegal & ~kind.isin(ERROR_KINDS)
    if other.any():
        parts["illegal_other"] = other
    counts = pd.DataFrame({name: mask.to_numpy(np.int64) for name, mask in parts.items()})
    counts["condition"] = v["condition"].to_numpy()
    frame = counts.groupby("condition", sort=False).sum().reset_index()
    frame["total"] = frame[list(parts)].sum(axis=1)
    frame = _by_condition(frame, conditions)
    return Table("table2_outcomes", f"Table 2: mutually exclusive outcomes on the {cohort} cohort, summing to each "
                 "condition's outputs; illegal plans split by the kind of their first error.", frame)


def table3_rates(verdicts: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY) -> Table:
    """Table 3: completion, optimal completion and illegal-plan percentages."""
    m = compute_metrics(verdicts[verdicts["cohort"] == cohort], by=["condition"])
    frame = _by_condition(m, conditions)[["condition", "N", "C", "O", "I"]]
    frame = frame.assign(**{f"{c}_pct": 100.0 * frame[c] for c in ("C", "O", "I")}).drop(columns=["C", "O", "I"])
    return Table("table3_rates", f"Table 3: {cohort} completion (C), optimal completion (O) and illegal-plan (I) "
                 "percentages over all outputs.", frame, {f"{c}_pct": ".1f" for c in ("C", "O", "I")})


def table4_blocks(verdicts: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY) -> Table:
    """Table 4: completion % by block count, the mean of the per-depth completion rates (each depth
    weighs the same, whatever its number of outputs)."""
    m = compute_metrics(verdicts[verdicts["cohort"] == cohort], by=["condition", "k", "depth"])
    mean = m.groupby(["condition", "k"], sort=True)["C"].mean().mul(100.0).unstack("k")
    mean.columns = [f"k={k}" for k in mean.columns]
    frame = _by_condition(mean.reset_index(), conditions)
    return Table("table4_blocks", f"Table 4: {cohort} completion % by block count k, averaged equally over the "
                 "depths.", frame, {c: ".1f" for c in frame.columns if c != "condition"})


def table5_stress(verdicts: pd.DataFrame, conditions: Sequence[str], primary: str = PRIMARY) -> Table:
    """Table 5: every cohort other than ``primary`` (the stress cohort), pooled per condition."""
    v = verdicts[verdicts["cohort"] != primary]
    cols = ["cohort", "condition", "N", "C", "R", "Q", "E", "G", "SPE"]
    if v.empty:
        frame = pd.DataFrame(columns=cols)
    else:
        m = compute_metrics(v, by=["cohort", "condition"])
        rank = {c: i for i, c in enumerate(conditions)}
        frame = m.assign(_r=m["condition"].map(rank)).sort_values(["cohort", "_r"])[cols].reset_index(drop=True)
    return Table("table5_stress", "Table 5: the stress cohort(s), pooled over depths; not pooled with the primary "
                 "cohort.", frame, {"C": ".3f", "R": ".3f", "Q": ".3f", "E": ".3f", "G": ".2f", "SPE": ".3f"})


def table6_intervals(intervals: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY,
                     metrics: Sequence[str] = ("R", "Q", "E", "G", "SPE")) -> Table:
    """Table 6: pooled estimates with their percentile intervals and draws used, from ``intervals``
    (the long form of ``intervals.interval_table``)."""
    rows = intervals[(intervals["grouping"] == "pooled") & (intervals["cohort"] == cohort)
                     & intervals["metric"].isin(metrics)]
    rank = {c: i for i, c in enumerate(conditions)}
    mrank = {m: i for i, m in enumerate(metrics)}
    rows = rows.assign(_r=rows["condition"].map(rank), _m=rows["metric"].map(mrank)).sort_values(["_r", "_m"])
    frame = rows[["condition", "metric", "estimate", "lo", "hi", "draws_used"]].reset_index(drop=True)
    return Table("table6_intervals", f"Table 6: {cohort} estimates with 95% percentile intervals (stratified "
                 "whole-board bootstrap); draws_used counts the draws in which the metric is defined.", frame,
                 {"estimate": ".3f", "lo": ".3f", "hi": ".3f"})


def depth_table(verdicts: pd.DataFrame, conditions: Sequence[str]) -> Table:
    """R, Q, E, G, SPE per cohort, depth and condition."""
    m = compute_metrics(verdicts, by=["cohort", "depth", "condition"])
    rank = {c: i for i, c in enumerate(conditions)}
    frame = (m.assign(_r=m["condition"].map(rank)).sort_values(["cohort", "depth", "_r"])
             [["cohort", "depth", "condition", "N", "R", "Q", "E", "G", "SPE"]].reset_index(drop=True))
    return Table("by_depth", "R, Q, E, G and SPE at each certified depth.", frame,
                 {"R": ".3f", "Q": ".3f", "E": ".3f", "G": ".2f", "SPE": ".3f"})


def h_threshold(completion_by_depth: pd.Series, threshold: float = H_THRESHOLD):
    """The largest depth with C >= threshold at every depth up to it; None if the shortest fails.

    ``completion_by_depth``: C indexed by depth.
    """
    best = None
    for depth, c in completion_by_depth.sort_index().items():
        if not (c >= threshold):  # NaN fails too
            break
        best = int(depth)
    return best


def h90_table(verdicts: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY,
              threshold: float = H_THRESHOLD) -> Table:
    """H.9 per condition with the completion % at each depth it rests on."""
    m = compute_metrics(verdicts[verdicts["cohort"] == cohort], by=["condition", "depth"])
    wide = m.pivot(index="condition", columns="depth", values="C")
    frame = pd.DataFrame({"condition": wide.index})
    frame["H"] = pd.array([h_threshold(wide.loc[c].dropna(), threshold) for c in wide.index], dtype="Int64")
    for depth in wide.columns:
        frame[f"C_pct_d{depth}"] = 100.0 * wide[depth].to_numpy()
    name = "H" + f"{threshold:g}".lstrip("0")  # H.9, as the paper writes it
    frame = _by_condition(frame, conditions).rename(columns={"H": name})
    return Table("h90", f"{name}: the largest {cohort} depth with completion >= {100 * threshold:g}% at every "
                 "depth up to it (n/a: fails at the shortest).", frame,
                 {c: ".1f" for c in frame.columns if c.startswith("C_pct")})


def format_audit(verdicts: pd.DataFrame, conditions: Sequence[str]) -> Table:
    """Answers per condition by parse mode (exact, normalized, no plan), with flagged answers."""
    v = verdicts
    cols = {m: (v["parse_mode"].astype(str) == m).to_numpy(np.int64) for m in PARSE_MODES}
    for flag in ("multiple_moves", "truncated"):
        if flag in v.columns:
            cols[flag] = v[flag].fillna(False).astype(bool).to_numpy(np.int64)
    counts = pd.DataFrame(cols)
    counts.insert(0, "N", 1)
    counts["condition"] = v["condition"].to_numpy()
    frame = _by_condition(counts.groupby("condition", sort=False).sum().reset_index(), conditions)
    return Table("format_audit", "Format audit, all cohorts: answers in the exact MOVES: form, answers normalized "
                 "to a plan, answers with no plan (format failures), several MOVES: lines, and truncated answers.",
                 frame)


def paired_table(paired: pd.DataFrame, cohort: str = PRIMARY, metric: str = "SPE") -> Table:
    """Pooled paired differences metric(A) - metric(B) (from ``intervals.paired_differences``)."""
    rows = paired[(paired["grouping"] == "pooled") & (paired["cohort"] == cohort) & (paired["metric"] == metric)]
    frame = rows[["condition_a", "condition_b", "metric", "estimate", "lo", "hi", "draws_used"]].reset_index(drop=True)
    return Table("paired_differences", f"Paired differences of {metric} on the {cohort} cohort between conditions "
                 "adjacent in the ranking, 95% intervals from the same bootstrap draws.", frame,
                 {"estimate": ".3f", "lo": ".3f", "hi": ".3f"})


def paper_tables(verdicts: pd.DataFrame, intervals: pd.DataFrame, conditions: Sequence[str] | None = None,
                 paired: pd.DataFrame | None = None, sums: pd.DataFrame | None = None) -> list[Table]:
    """Tables 1-6, by depth, H.9 and the format audit (and paired differences when given).

    The metric tables read ``sums`` (``metrics.board_sums(verdicts)``, computed here when not
    given), so the per-board sums are formed once rather than once per table.
    """
    check_verdicts(verdicts)
    sums = board_sums(verdicts) if sums is None else sums
    primary = primary_cohort(verdicts)
    conditions = list(conditions) if conditions is not None else condition_order(sums, primary)
    tables = [table1_primary(sums, conditions, primary), table2_outcomes(verdicts, conditions, primary),
              table3_rates(sums, conditions, primary), table4_blocks(sums, conditions, primary),
              table5_stress(sums, conditions, primary), table6_intervals(intervals, conditions, primary),
              depth_table(sums, conditions), h90_table(sums, conditions, primary),
              format_audit(verdicts, conditions)]
    if paired is not None:
        tables.append(paired_table(paired, primary))
    return tables


# Marks that change how Markdown renders text (emphasis, code, links, raw HTML, table cells); a
# backslash before each makes it literal. Line breaks would end a table row and control characters
# are invisible, so both become spaces.
_MARKDOWN_MARK = re.compile(r"([\\`*_\[\]<>|#!~])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def markdown_text(text) -> str:
    """``text`` (a condition or cohort name, a caption) as literal Markdown, safe in a table cell."""
    return _MARKDOWN_MARK.sub(r"\\\1", _CONTROL.sub(" ", str(text)))


def to_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table (numbers right-aligned) with the caption above; every cell and
    header is literal text (``markdown_text``)."""
    text = table.formatted()
    cols = [str(c) for c in text.columns]
    numeric = [pd.api.types.is_numeric_dtype(table.frame[c]) and not pd.api.types.is_bool_dtype(table.frame[c])
               for c in table.frame.columns]
    lines = ["| " + " | ".join(markdown_text(c) for c in cols) + " |",
             "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(markdown_text(v) for v in row) + " |" for row in text.itertuples(index=False)]
    return f"**{markdown_text(table.caption)}**\n\n" + "\n".join(lines) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """``text`` as literal LaTeX: specials escaped, line breaks and control characters as spaces."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in _CONTROL.sub(" ", text))


def to_latex(table: Table) -> str:
    """A plain LaTeX ``table`` with a ``tabular`` (no packages needed)."""
    text = table.formatted()
    align = "".join("r" if pd.api.types.is_numeric_dtype(table.frame[c]) and not pd.api.types.is_bool_dtype(
        table.frame[c]) else "l" for c in table.frame.columns)
    body = [" & ".join(latex_escape(str(c)) for c in text.columns) + r" \\", r"\hline"]
    body += [" & ".join(latex_escape(v) for v in row) + r" \\" for row in text.itertuples(index=False)]
    return "\n".join([r"\begin{table}[t]", r"\centering", rf"\caption{{{latex_escape(table.caption)}}}",
                      rf"\label{{tab:{table.name}}}", rf"\begin{{tabular}}{{{align}}}", r"\hline", *body, r"\hline",
                      r"\end{tabular}", r"\end{table}", ""])


def write_table_files(table: Table, folder: str | Path) -> list[Path]:
    """Write ``<name>.csv``, ``<name>.md`` and ``<name>.tex`` in ``folder`` (atomically)."""
    folder = Path(folder)
    paths = [folder / f"{table.name}.{ext}" for ext in ("csv", "md", "tex")]
    write_table(table.frame, paths[0], formulas_escaped=True)  # opened in spreadsheets
    write_text(to_markdown(table), paths[1])
    write_text(to_latex(table), paths[2])
    return paths
