"""The paper's tables (Tables 1-6, by depth, H.9, format audit, trajectories) as ``Table`` objects.

One source of numbers: every estimate and interval comes from the long metrics frame
(``intervals.bootstrap_intervals(sums, groupings=REPORT_GROUPINGS)``, the rows of ``metrics.csv``);
a table is a view of it, never a second computation. Only counts that are not estimates (Table 2's
outcome partition, the format audit, trajectories) are read from the verdicts. Rendering to
Markdown, LaTeX and CSV lives in ``report.render``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .._names import moved_names
from ..boundary.errors import InputError
from ..errors import UserError
from ..boundary.verdicts import PARSE_MODES, Verdicts, verdicts_domain
from ..boundary.files import require_columns
from ..domains.contract import STRATUM
from ..stats.protocol_names import UNAIDED
from .render import caption_text
from .trajectories import position_columns

__all__ = ["Table", "paper_tables", "condition_order", "primary_cohort", "check_table_inputs", "trajectory_table"]
# fastspe 0.1 reached the renderers through this module, and named check_table_inputs check_verdicts
__getattr__ = moved_names(
    __name__,
    {
        **{
            name: "fastspe.report.render"
            for name in ("to_markdown", "to_latex", "write_table_files", "markdown_text", "latex_escape")
        },
        "check_verdicts": "fastspe.report.tables:check_table_inputs",
    },
)

PRIMARY = "primary"
H_THRESHOLD = 0.9
MISSING = "n/a"  # how an undefined value prints


def error_kinds(domain) -> tuple[str, ...]:
    """The error kinds of a domain, in code order (the sliding puzzle's boundary, obstacle, invalid_action, format)."""
    return tuple(k for k in domain.error_names if k)


RATE = ".3f"
_NEEDED = [
    "board_id",
    "condition",
    "cohort",
    STRATUM,
    "depth",
    "status",
    "error_kind",
    "parse_mode",
    "optimal",
    "economy",
    "excess",
]
_FORMATS = {"R": RATE, "Q": RATE, "E": RATE, "G": ".2f", "SPE": RATE, "C": RATE, "Dc": ".1f"}


@dataclass(frozen=True)
class Table:
    """A table: ``frame`` holds numbers (NaN where undefined); ``formats`` maps a column to a format
    spec (``".3f"``); ``caption`` is a template (``table_render``) whose ``«name»`` parts come from
    ``values``. ``intervals`` maps an estimate column to its (lo, hi) columns: Markdown and LaTeX show
    them inside the cell as ``est [lo, hi]`` when ``interval_cells``, else hide them (CSV keeps all).
    ``heading`` is the table's title as the paper gives it ("Primary results ...", a template too), the
    first sentence of its caption and the heading of its section; ``empty`` says why a table has no
    rows, shown in place of a header-only table."""

    name: str
    caption: str
    frame: pd.DataFrame
    formats: dict[str, str] = field(default_factory=dict)
    number: str | None = None
    values: dict = field(default_factory=dict)
    intervals: dict[str, tuple[str, str]] = field(default_factory=dict)
    interval_cells: bool = False
    heading: str = ""
    empty: str = ""
    tex_headers: dict[str, str] = field(default_factory=dict)  # a column's LaTeX header, where it is not the usual

    def shown_columns(self) -> list:
        hidden = {c for pair in self.intervals.values() for c in pair}
        return [c for c in self.frame.columns if c not in hidden]

    def formatted(self) -> pd.DataFrame:
        """The shown columns as strings: numbers formatted, undefined values as ``MISSING``, and
        ``est [lo, hi]`` cells when ``interval_cells``. Made once per table (the CSV, Markdown, LaTeX and
        both pages show the same cells), so callers read it and leave it as it is."""
        made = self.__dict__.get("_formatted")  # a frozen dataclass: the cache is set past its __setattr__
        if made is None:
            made = self._format()
            object.__setattr__(self, "_formatted", made)
        return made

    def _format(self) -> pd.DataFrame:
        out = pd.DataFrame(index=self.frame.index)
        for col in self.shown_columns():
            spec = self.formats.get(col)
            cells = [_cell(v, spec) for v in self.frame[col]]
            if self.interval_cells and col in self.intervals:
                lo, hi = (self.frame[c] for c in self.intervals[col])
                cells = [
                    c if c == MISSING or _cell(a, spec) == MISSING else f"{c} [{_cell(a, spec)}, {_cell(b, spec)}]"
                    for c, a, b in zip(cells, lo, hi)
                ]
            out[col] = cells
        return out

    @property
    def title(self) -> str:
        """The caption as plain text (``Table 1: ...``)."""
        return caption_text(self)


def _cell(value, spec: str | None) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if spec and isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return format(value, spec)
    return str(value)


def check_table_inputs(verdicts: Verdicts | pd.DataFrame, domain=None) -> None:
    """Raise if ``verdicts`` are empty, or (a plain DataFrame) lack what the tables read or hold an error
    kind or parse mode that no table counts; checked ``Verdicts`` hold both already (the metric columns
    are checked by ``metrics.board_sums``). ``domain``: a frame's, when its ``attrs`` do not name it."""
    if isinstance(verdicts, Verdicts):
        if verdicts.frame.empty:
            raise UserError("verdicts are empty: there is nothing to report")
        return
    found = verdicts_domain(verdicts, domain=domain)
    require_columns(verdicts, found.named(_NEEDED), "verdicts", "make them with `fastspe score`")
    if verdicts.empty:
        raise UserError("verdicts are empty: there is nothing to report")
    for col, known in (("error_kind", ("", *error_kinds(found))), ("parse_mode", PARSE_MODES)):
        values = verdicts[col].fillna("") if col == "error_kind" else verdicts[col]
        bad = ~values.isin(known).to_numpy()
        if bad.any():
            i = int(bad.argmax())
            raise InputError(
                f"verdicts: row {i + 1} (board_id {str(verdicts['board_id'].iat[i])!r}): {col} "
                f"{values.iat[i]!r} is not one of {', '.join(map(repr, known))}"
            )


def primary_cohort(frame: pd.DataFrame) -> str:
    """``"primary"`` if present, else the first cohort in sorted order (of verdicts or a metrics frame)."""
    cohorts = sorted(map(str, frame["cohort"].unique()))
    return PRIMARY if PRIMARY in cohorts else cohorts[0]


def condition_order(metrics: pd.DataFrame, cohort: str | None = None) -> list[str]:
    """Conditions by pooled SPE on ``cohort`` (default primary), best first; ties and conditions
    without outputs there by name."""
    cohort = cohort or primary_cohort(metrics)
    spe = _pick(metrics, "pooled", cohort).query("metric == 'SPE'").set_index("condition")["estimate"]
    names = sorted(map(str, metrics["condition"].unique()))

    def key(name):
        value = spe.get(name, np.nan)
        return (1, 0.0, name) if pd.isna(value) else (0, -float(value), name)

    return sorted(names, key=key)


# -- views of the metrics frame ----------------------------------------------------------------------


def _pick(metrics: pd.DataFrame, grouping: str, cohort: str | None = None) -> pd.DataFrame:
    rows = metrics[metrics["grouping"] == grouping]
    return rows if cohort is None else rows[rows["cohort"] == cohort]


def _wide(
    rows: pd.DataFrame,
    index: Sequence[str],
    metrics: Sequence[str],
    conditions: Sequence[str],
    with_intervals: bool = False,
) -> pd.DataFrame:
    """One row per ``index`` value, a column per metric (and ``M_lo``, ``M_hi``), conditions in order."""
    rows = rows[rows["metric"].isin(metrics) & rows["condition"].isin(conditions)]
    values = ["estimate", "lo", "hi"] if with_intervals else ["estimate"]
    wide = rows.pivot_table(index=list(index), columns="metric", values=values, aggfunc="first", dropna=False)
    out = pd.DataFrame(index=wide.index)
    for m in metrics:
        out[m] = wide[("estimate", m)] if ("estimate", m) in wide.columns else np.nan
        if with_intervals:
            out[f"{m}_lo"] = wide[("lo", m)] if ("lo", m) in wide.columns else np.nan
            out[f"{m}_hi"] = wide[("hi", m)] if ("hi", m) in wide.columns else np.nan
    n = rows.drop_duplicates(list(index)).set_index(list(index))["N"]
    out.insert(0, "N", n.reindex(out.index).astype("Int64"))
    out = out.reset_index()
    return _in_order(out, conditions)


def _in_order(frame: pd.DataFrame, conditions: Sequence[str], first: Sequence[str] = ()) -> pd.DataFrame:
    rank = {c: i for i, c in enumerate(conditions)}
    keep = frame[frame["condition"].isin(rank)]
    order = keep.assign(_r=keep["condition"].map(rank)).sort_values([*first, "_r"], kind="stable")
    return order.drop(columns="_r").reset_index(drop=True)


def _intervals_of(metrics: Sequence[str]) -> dict:
    return {m: (f"{m}_lo", f"{m}_hi") for m in metrics}


def table1_primary(
    metrics: pd.DataFrame,
    conditions: Sequence[str],
    cohort: str = PRIMARY,
    interval_cells: bool = False,
    protocols: Mapping[str, str] | None = None,
) -> Table:
    """Table 1: pooled R, Q, E, G, SPE and Dc (Section 3.3) per condition on ``cohort``, with intervals; rows grouped
    by protocol (a first column) when ``protocols`` (condition -> protocol) holds more than one."""
    shown = ("R", "Q", "E", "G", "SPE", "Dc")
    frame = _wide(_pick(metrics, "pooled", cohort), ["condition"], shown, conditions, with_intervals=True)
    mean_depth = _mean_depth(metrics, cohort)
    depths = ", ".join(str(d) for d in sorted({int(d) for d in _pick(metrics, "depth", cohort)["depth"]}))
    frame, grouped = _by_protocol(frame, protocols)
    return Table(
        "table1_primary",
        "Cohort «cohort»: $R$ over all outputs, $Q$ over legal plans, "
        "$E$ and $G$ over completed plans; SPE $= R \\times Q \\times E$ includes every failure. "
        "$\\bar{d}^*_c$ is the mean certified depth of completed plans (the cohort's outputs average "
        f"$d^*={mean_depth:.1f}$): a lower value means successes come from shorter boards.{grouped}",
        frame,
        dict(_FORMATS),
        number="1",
        values={"cohort": cohort, **({"unaided": UNAIDED} if grouped else {})},
        intervals=_intervals_of(shown),
        interval_cells=interval_cells,
        heading=f"Primary results pooled over $d^* \\in$ {{{depths}}}",
    )


def _by_protocol(frame: pd.DataFrame, protocols: Mapping[str, str] | None) -> tuple[pd.DataFrame, str]:
    """The rows grouped by protocol (unaided first, then by name; the ranking kept within each), with a ``protocol``
    column first, and the caption's sentence; ``frame`` as it is when the rows hold one protocol."""
    if not protocols:
        return frame, ""
    found = frame["condition"].map(lambda c: protocols.get(c, UNAIDED))
    if found.nunique() < 2:
        return frame, ""
    rank = found.map(lambda p: (p != UNAIDED, p))
    order = sorted(range(len(frame)), key=lambda i: rank.iat[i])  # stable: the ranking within a protocol
    out = frame.assign(protocol=found).iloc[order].reset_index(drop=True)
    grouped = " Rows are grouped by protocol; «unaided» is one answer per trial, with no tool or feedback."
    return out[["protocol", *frame.columns]], grouped


def _mean_depth(metrics: pd.DataFrame, cohort: str) -> float:
    """The mean d* of a cohort's outputs (each output counted once), from the by-depth group sizes."""
    rows = _pick(metrics, "depth", cohort).drop_duplicates(["condition", "depth"])
    n = rows["N"].to_numpy(np.float64)
    return float((rows["depth"].astype(float).to_numpy() * n).sum() / n.sum()) if n.sum() else math.nan


def table2_outcomes(verdicts: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY, domain=None) -> Table:
    """Table 2: mutually exclusive outcome counts (complete optimal / not, legal noncompletion,
    illegal by error kind of the verdicts' domain) summing to the outputs of each condition (counts, read from the
    verdicts)."""
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
    kinds = error_kinds(verdicts_domain(verdicts, domain=domain))
    for k in kinds:
        parts[f"illegal_{k}"] = illegal & (kind == k)
    other = illegal & ~kind.isin(kinds)
    if other.any():
        parts["illegal_other"] = other
    counts = pd.DataFrame({name: mask.to_numpy(np.int64) for name, mask in parts.items()})
    counts["condition"] = v["condition"].to_numpy()
    frame = counts.groupby("condition", sort=False).sum().reset_index()
    frame["total"] = frame[list(parts)].sum(axis=1)
    frame = _in_order(frame, conditions)
    return Table(
        "table2_outcomes",
        "Outcomes on the «cohort» cohort, summing to each condition's outputs; illegal "
        "plans split by the kind of their first error.",
        frame,
        number="2",
        values={"cohort": cohort},
        heading="Mutually exclusive primary outcomes",
    )


def table3_rates(metrics: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY) -> Table:
    """Table 3: completion, optimal completion and illegal-plan percentages."""
    frame = _wide(_pick(metrics, "pooled", cohort), ["condition"], ("C", "O", "I"), conditions)
    frame = frame.assign(**{f"{c}_pct": 100.0 * frame[c] for c in ("C", "O", "I")}).drop(columns=["C", "O", "I"])
    return Table(
        "table3_rates",
        "Completion ($C$), optimal completion ($O$) and illegal plans ($I$) on the "
        "«cohort» cohort, in percent of all outputs.",
        frame,
        {f"{c}_pct": ".1f" for c in ("C", "O", "I")},
        number="3",
        values={"cohort": cohort},
        heading="Primary completion, optimal completion and illegal-plan percentages",
    )


def table4_blocks(metrics: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY, domain=None) -> Table:
    """Table 4: completion % by the second stratum (the paper's block count), the mean of the per-depth completion
    rates (each depth weighs the same, whatever its number of outputs)."""
    found = verdicts_domain(metrics, domain=domain, source="metrics")
    cells = _pick(metrics, "stratum_depth", cohort)
    cells = cells[(cells["metric"] == "C") & cells["condition"].isin(conditions)]
    stratum = found.stratum
    mean = cells.groupby(["condition", stratum], sort=True)["estimate"].mean().mul(100.0).unstack(stratum)
    mean.columns = [f"{stratum}={k}" for k in mean.columns]
    frame = _in_order(mean.reset_index(), conditions)
    words, short = found.stratum_words
    tex = (
        {c: f"${found.stratum_tex}={c.partition('=')[2]}$" for c in frame.columns if c != "condition"}
        if found.stratum_tex
        else {}
    )
    return Table(
        "table4_blocks",
        f"Completion % on the «cohort» cohort by {words}, averaged equally over the depths.",
        frame,
        {c: ".1f" for c in frame.columns if c != "condition"},
        number="4",
        values={"cohort": cohort},
        heading=f"Primary completion percentages by {short}",
        tex_headers=tex,
    )


def table5_stress(metrics: pd.DataFrame, conditions: Sequence[str], primary: str = PRIMARY) -> Table:
    """Table 5: every cohort other than ``primary`` (the stress cohort), pooled per condition."""
    shown = ("C", "R", "Q", "E", "G", "SPE", "Dc")
    rows = _pick(metrics, "pooled")
    rows = rows[rows["cohort"] != primary]
    if rows.empty:
        frame = pd.DataFrame(columns=["cohort", "condition", "N", *shown])
    else:
        frame = _wide(rows, ["cohort", "condition"], shown, conditions)
        frame = _in_order(frame, conditions, first=["cohort"])
    several = rows["cohort"].nunique() > 1
    return Table(
        "table5_stress",
        "Every cohort besides «cohort», pooled over its depths and never with «cohort».",
        frame,
        dict(_FORMATS),
        number="5",
        values={"cohort": primary},
        heading=f"Separate stress cohort{'s' if several else ''}",
        empty="No rows: the bank has no cohort besides «cohort», so there is no stress cohort to report.",
    )


def table6_intervals(
    metrics: pd.DataFrame,
    conditions: Sequence[str],
    cohort: str = PRIMARY,
    shown: Sequence[str] = ("R", "Q", "E", "G", "SPE", "Dc"),
) -> Table:
    """Table 6: pooled estimates with their percentile intervals and draws used."""
    rows = _pick(metrics, "pooled", cohort)
    rows = rows[rows["metric"].isin(shown)]
    mrank = {m: i for i, m in enumerate(shown)}
    rows = _in_order(rows.assign(_m=rows["metric"].map(mrank)).sort_values("_m", kind="stable"), conditions)
    frame = rows[["condition", "metric", "estimate", "lo", "hi", "draws_used"]].reset_index(drop=True)
    return Table(
        "table6_intervals",
        "Estimates on the «cohort» cohort with 95% percentile intervals (stratified "
        "whole-board bootstrap); draws_used counts the draws in which the metric is defined.",
        frame,
        {"estimate": ".3f", "lo": ".3f", "hi": ".3f"},
        number="6",
        values={"cohort": cohort},
        heading="Primary 95% percentile intervals",
    )


def depth_table(metrics: pd.DataFrame, conditions: Sequence[str]) -> Table:
    """R, Q, E, G, SPE per cohort, depth and condition."""
    shown = ("R", "Q", "E", "G", "SPE")
    frame = _wide(_pick(metrics, "depth"), ["cohort", "depth", "condition"], shown, conditions, with_intervals=True)
    frame = _in_order(frame, conditions, first=["cohort", "depth"])
    # metrics cover every cohort at every depth of the bank; a depth a cohort does not test has no outputs
    tested = frame.groupby(["cohort", "depth"], observed=True)["N"].transform(lambda n: n.fillna(0).gt(0).any())
    frame = frame[tested.astype(bool)].reset_index(drop=True)
    return Table(
        "by_depth",
        "$R$, $Q$, $E$, $G$ and SPE at each certified depth $d^*$, per cohort (the depths each cohort tests).",
        frame,
        dict(_FORMATS),
        intervals=_intervals_of(shown),
        heading="Results by certified depth",
    )


def h_threshold(completion_by_depth: pd.Series, threshold: float = H_THRESHOLD):
    """The largest depth with C >= threshold at every depth up to it; None if the shortest fails.

    ``completion_by_depth``: C indexed by every tested depth; NaN (no outputs there) does not qualify.
    """
    best = None
    for depth, c in completion_by_depth.sort_index().items():
        if not (c >= threshold):  # NaN fails too
            break
        best = int(depth)
    return best


def h90_table(
    metrics: pd.DataFrame, conditions: Sequence[str], cohort: str = PRIMARY, threshold: float = H_THRESHOLD
) -> Table:
    """H.9 per condition with the completion % at each depth it rests on.

    The tested lengths are the cohort's depths that any condition answered; a condition with no
    output at one of them does not qualify there (its C is NaN, shown as n/a), as the paper defines H.9.
    """
    rows = _pick(metrics, "depth", cohort)
    tested = sorted({int(d) for d in rows["depth"]})
    rows = rows[(rows["metric"] == "C") & rows["condition"].isin(conditions)]
    wide = rows.assign(depth=rows["depth"].astype(int)).pivot(index="condition", columns="depth", values="estimate")
    wide = wide.reindex(columns=tested)  # a depth only other conditions answered stays, as NaN
    frame = pd.DataFrame({"condition": wide.index})
    frame["H"] = pd.array([h_threshold(wide.loc[c], threshold) for c in wide.index], dtype="Int64")
    for depth in wide.columns:
        frame[f"C_pct_d{depth}"] = 100.0 * wide[depth].to_numpy()
    name = "H" + f"{threshold:g}".lstrip("0")  # H.9, as the paper writes it
    frame = _in_order(frame, conditions).rename(columns={"H": name})
    return Table(
        "h90",
        f"The largest «cohort» depth with completion $\\geq {100 * threshold:g}\\%$ at every "
        "depth up to it, with the completion % it rests on (n/a: fails at the shortest).",
        frame,
        {c: ".1f" for c in frame.columns if c.startswith("C_pct")},
        values={"cohort": cohort},
        heading=f"Reliable horizon $H_{{{name[1:]}}}$",
    )


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
    frame = _in_order(counts.groupby("condition", sort=False).sum().reset_index(), conditions)
    return Table(
        "format_audit",
        "All cohorts: answers in the exact MOVES: form, answers normalized to a plan, "
        "answers with no plan (format failures), several MOVES: lines, and truncated answers.",
        frame,
        heading="Format audit",
    )


def paired_table(paired: pd.DataFrame, cohort: str = PRIMARY, metric: str = "SPE") -> Table:
    """Pooled paired differences metric(A) - metric(B) (from ``intervals.paired_differences``)."""
    rows = paired[(paired["grouping"] == "pooled") & (paired["cohort"] == cohort) & (paired["metric"] == metric)]
    frame = rows[["condition_a", "condition_b", "metric", "estimate", "lo", "hi", "draws_used"]].reset_index(drop=True)
    return Table(
        "paired_differences",
        f"{metric}(A) - {metric}(B) on the «cohort» cohort for conditions adjacent in "
        "the ranking, with 95% intervals from the same bootstrap draws (the same boards in every draw).",
        frame,
        {"estimate": ".3f", "lo": ".3f", "hi": ".3f"},
        values={"cohort": cohort},
        heading=f"Paired differences of {metric}",
    )


def trajectory_table(
    trajectories: pd.DataFrame, conditions: Sequence[str], positions: Mapping[str, str] | None = None
) -> Table:
    """Where plans fail and how close they get, per cohort, condition and depth (and pooled, depth ``all``),
    from ``trajectories.trajectory_frame`` (the frame Figure 3 draws, too); ``positions``: the domain's failure
    positions (``Domain.failure_positions``, column -> name) the frame has columns of."""
    frame = _in_order(trajectories, conditions, first=["cohort"])
    formats = {
        "fail_at_L": ".2f",
        "fail_at_dstar": ".2f",
        "revisit_rate": ".3f",
        "closest": ".2f",
        "goal_midway_rate": ".3f",
    }
    caption = (
        "Per cohort, condition and certified depth: the first illegal move "
        "as a fraction of the plan's length $L$ and of $d^*$ (illegal plans), the share of plans that "
        "revisit a state, the closest approach $\\min h / d^*$ (plans that do not complete) and the share "
        "that pass through the goal before their last move."
    )
    for column, name in (positions or {}).items():
        share, at_L, at_dstar = position_columns(column)
        if at_L in frame.columns:
            formats.update({share: ".3f", at_L: ".2f", at_dstar: ".2f"})
            caption += (
                f" Beside them, the {name}: the share of plans that do not complete and "
                f"have one, and its position as a fraction of $L$ and of $d^*$ among those."
            )
    return Table("trajectories", caption, frame, formats, heading="Where plans fail")


def labelled(table: Table, labels: Mapping[str, str] | None) -> Table:
    """``table`` with condition keys replaced by their display labels (keys without a label stay)."""
    if not labels:
        return table
    frame = table.frame.copy()
    for col in ("condition", "condition_a", "condition_b", "baseline", "candidate"):
        if col in frame.columns:
            frame[col] = [labels.get(c, c) for c in frame[col]]
    return replace(table, frame=frame)


def paper_tables(
    verdicts: Verdicts | pd.DataFrame,
    metrics: pd.DataFrame,
    conditions: Sequence[str],
    paired: pd.DataFrame | None = None,
    labels: Mapping[str, str] | None = None,
    interval_cells: bool = False,
    extra: Sequence[Table] = (),
    domain=None,
    protocols: Mapping[str, str] | None = None,
) -> list[Table]:
    """Tables 1-6, by depth, H.9 and the format audit (and paired differences when given), in the
    order of ``conditions``, with ``labels`` shown for condition keys; Table 1's rows grouped by protocol when
    ``protocols`` (condition -> protocol, ``stats.protocol_names.condition_protocols``) holds more than one.

    ``metrics`` is the long frame of ``intervals.bootstrap_intervals(..., groupings=REPORT_GROUPINGS)``;
    ``extra`` tables (trajectories, run costs) are appended as they are. ``verdicts``: checked
    ``Verdicts`` (trusted) or a DataFrame (``check_table_inputs``; ``domain``: its domain, when its ``attrs`` do not
    name it).
    """
    check_table_inputs(verdicts, domain)
    if isinstance(verdicts, Verdicts):
        domain, verdicts = verdicts.domain, verdicts.frame
    else:
        domain = verdicts_domain(verdicts, domain=domain)
    primary = primary_cohort(metrics)
    tables = [
        table1_primary(metrics, conditions, primary, interval_cells, protocols),
        table2_outcomes(verdicts, conditions, primary, domain),
        table3_rates(metrics, conditions, primary),
        table4_blocks(metrics, conditions, primary, domain),
        table5_stress(metrics, conditions, primary),
        table6_intervals(metrics, conditions, primary),
        depth_table(metrics, conditions),
        h90_table(metrics, conditions, primary),
        format_audit(verdicts, conditions),
    ]
    if paired is not None:
        tables.append(paired_table(paired, primary))
    return [labelled(t, labels) for t in [*tables, *extra]]
